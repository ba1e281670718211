package encoder_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/protobuftest"
)

// strategies are the length strategies every Writer test runs under.
var strategies = []encoder.LengthStrategy{encoder.LengthLearned, encoder.LengthOneByte}

// replaySeeds is how many random messages per test schema message the
// replay equivalence test writes.
func replaySeeds() uint64 {
	if testing.Short() {
		return 8
	}
	return 40
}

// checkReplay writes the calls describing m to a Writer for m's descriptor
// and holds the result to proto.MarshalOptions{Deterministic: true}.
func checkReplay(t *testing.T, m proto.Message, res protoregistry.ExtensionTypeResolver, ro protobuftest.ReplayOptions, wo encoder.WriterOptions) {
	t.Helper()
	want, wantErr := proto.MarshalOptions{Deterministic: true, AllowPartial: wo.AllowPartial}.Marshal(m)
	calls := protobuftest.Calls(m, ro)
	wo.Extensions = res
	w := encoder.NewWriter(m.ProtoReflect().Descriptor(), wo)
	for round := range 2 { // the second round reuses the Writer
		w.Reset()
		got, err := protobuftest.Replay(w, calls)
		if wantErr != nil {
			if err == nil || !errors.Is(err, proto.Error) {
				t.Fatalf("%T seed %d: reference fails (%v), Writer gives %v", m, ro.Seed, wantErr, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("%T seed %d round %d: %v\ncalls:\n%s", m, ro.Seed, round, err, callList(calls))
		}
		if !bytes.Equal(got, want) {
			md := m.ProtoReflect().Descriptor()
			t.Fatalf("%T seed %d %v round %d: bytes differ at %s\ncalls:\n%s", m, ro.Seed, wo.Lengths, round,
				protobuftest.FirstDiff(got, want, md), callList(calls))
		}
	}
}

func callList(calls []protobuftest.Call) string {
	var sb strings.Builder
	for i, c := range calls {
		if i == 200 {
			fmt.Fprintf(&sb, "  ... %d more\n", len(calls)-i)
			break
		}
		s := c.String()
		if len(s) > 120 {
			s = s[:120] + "…"
		}
		fmt.Fprintf(&sb, "  %s\n", s)
	}
	return sb.String()
}

// TestWriterReplayEquivalence writes seeded random messages of every test
// schema message, generated and dynamic, as Writer calls (the replay
// walker varies the call styles), with and without AllowPartial and under
// each length strategy, and compares with the reference.
func TestWriterReplayEquivalence(t *testing.T) {
	n := replaySeeds()
	for _, tw := range protobuftest.Twins() {
		t.Run(string(tw.Name), func(t *testing.T) {
			t.Parallel()
			for seed := range n {
				opts := protobuftest.RandOptions{MaxDepth: 3, Unknown: seed%3 == 0, Partial: seed%5 == 4}
				g, d := protobuftest.NewPair(tw.Gen, tw.Dyn, tw.GenExts, tw.DynExts, seed, opts)
				wo := encoder.WriterOptions{AllowPartial: seed%2 == 1, Lengths: strategies[seed/2%2]}
				ro := protobuftest.ReplayOptions{Seed: seed, NoEmbeds: seed%7 == 6}
				checkReplay(t, g, protoregistry.GlobalTypes, ro, wo)
				checkReplay(t, d, protobuftest.DynamicTypes(), ro, wo)
			}
		})
	}
}

// Ensure the Writer is usable with a descriptor loaded at run time and a
// name resolved once.
func TestWriterNumber(t *testing.T) {
	md := protobuftest.TwinByName("protolayout.test3.TestAllTypes").Dyn.Descriptor()
	w := encoder.NewWriter(md)
	if got := w.Number("singular_int32"); got != 1 {
		t.Errorf("Number(singular_int32) = %d, want 1", got)
	}
	if got := w.Number("no_such_field"); got != 0 {
		t.Errorf("Number(no_such_field) = %d, want 0", got)
	}
	w.Int32(w.Number("no_such_field"), 1)
	if !errors.Is(w.Err(), encoder.ErrUnknownField) {
		t.Errorf("writing to Number of an unknown name: %v, want ErrUnknownField", w.Err())
	}
	_ = protoreflect.FullName("")
}
