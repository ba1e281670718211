package encoder_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
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

// TestWriterNumberPath checks the names Number and Lookup resolve (dotted
// paths through message, group and map fields, extensions in brackets or
// by their full name alone) and their errors: Number's sticks, as a failed
// write's does; Lookup's is returned and leaves the Writer as it was.
func TestWriterNumberPath(t *testing.T) {
	w := encoder.NewWriter(test3Desc)
	for path, want := range map[string]protowire.Number{
		"singular_int32":            1,
		"singular_nested_message.a": 1,
		"singular_nested_message.corecursive.singular_nested_message.corecursive": 2,
		"map_string_string.key":                                       1,
		"map_string_nested_message.value.a":                           1,
		"repeated_nested_message.corecursive.map_string_string.value": 2,
	} {
		if n := w.Number(path); n != want {
			t.Errorf("Number(%q) = %d, want %d", path, n, want)
		}
		if n, err := w.Lookup(path); n != want || err != nil {
			t.Errorf("Lookup(%q) = %d, %v; want %d", path, n, err, want)
		}
	}
	if err := w.Err(); err != nil {
		t.Fatalf("resolving names: %v", err)
	}

	// Number resolves in the innermost open message, Lookup from the top.
	w.Begin(18)
	if n := w.Number("corecursive.singular_string"); n != 14 {
		t.Errorf("in a Begin: Number = %d, want 14", n)
	}
	if n, err := w.Lookup("singular_nested_message.corecursive"); n != 2 || err != nil {
		t.Errorf("in a Begin: Lookup = %d, %v", n, err)
	}

	// The errors, Lookup's first: they leave the Writer as it was.
	for _, c := range []struct {
		path, want string
		err        error
	}{
		{"singular_int33", `protolayout: no such field: "singular_int33" in protolayout.test3.TestAllTypes`, encoder.ErrUnknownField},
		{"singular_nested_message.spanz", `protolayout: no such field: "spanz" in message protolayout.test3.TestAllTypes.NestedMessage (resolving "singular_nested_message.spanz") in protolayout.test3.TestAllTypes`, encoder.ErrUnknownField},
		{"", `protolayout: no such field: "" in protolayout.test3.TestAllTypes`, encoder.ErrUnknownField},
		{"singular_nested_message.", `protolayout: no such field: "" in message protolayout.test3.TestAllTypes.NestedMessage (resolving "singular_nested_message.") in protolayout.test3.TestAllTypes`, encoder.ErrUnknownField},
		{"singular_int32.a", `protolayout: value type does not match the field's kind: field "singular_int32" of message protolayout.test3.TestAllTypes is int32, not a message (resolving "singular_int32.a") in protolayout.test3.TestAllTypes`, encoder.ErrKindMismatch},
		{"repeated_string.a", `protolayout: value type does not match the field's kind: field "repeated_string" of message protolayout.test3.TestAllTypes is repeated string, not a message (resolving "repeated_string.a") in protolayout.test3.TestAllTypes`, encoder.ErrKindMismatch},
		{"[protolayout.test2.optional_int32_extension]", `protolayout: no such field: "[protolayout.test2.optional_int32_extension]" in protolayout.test3.TestAllTypes`, encoder.ErrUnknownField},
	} {
		n, err := w.Lookup(c.path)
		if n != 0 || !errors.Is(err, c.err) || !errors.Is(err, proto.Error) || err.Error() != c.want {
			t.Errorf("Lookup(%q) = %d, %v\nwant 0, %s", c.path, n, err, c.want)
		}
	}
	if err := w.Err(); err != nil {
		t.Fatalf("Lookup set the Writer's error: %v", err)
	}

	// Number's error sticks, naming the open message's position.
	w.Int32(1, 5)
	if n := w.Number("corecursive.spanz"); n != 0 {
		t.Errorf("Number of an unknown name = %d", n)
	}
	const want = `protolayout: no such field: "spanz" in message protolayout.test3.TestAllTypes (resolving "corecursive.spanz") in protolayout.test3.TestAllTypes at singular_nested_message`
	if err := w.Err(); !errors.Is(err, encoder.ErrUnknownField) || err.Error() != want {
		t.Errorf("after Number of an unknown name: %v\nwant %s", err, want)
	}
	n := w.Len()
	w.Int32(2, 1)
	w.End()
	if _, err := w.Finish(); err == nil || err.Error() != want || w.Len() != n {
		t.Errorf("Finish: %v, want the error of Number", err)
	}
	w.Reset()
	if w.Err() != nil {
		t.Errorf("Reset kept %v", w.Err())
	}

	var zero encoder.Writer
	if _, err := zero.Lookup("a"); !errors.Is(err, encoder.ErrNotStarted) {
		t.Errorf("Lookup on a zero Writer: %v", err)
	}
	if zero.Number("a") != 0 || !errors.Is(zero.Err(), encoder.ErrNotStarted) {
		t.Errorf("Number on a zero Writer: %v", zero.Err())
	}
}

// TestWriterNumberExtensionPath checks extensions in paths: by their full
// name in brackets, followed by their message's fields, or by their full
// name alone.
func TestWriterNumberExtensionPath(t *testing.T) {
	w := encoder.NewWriter(extsDesc, encoder.WriterOptions{Extensions: protoregistry.GlobalTypes})
	for path, want := range map[string]protowire.Number{
		"protolayout.test2.optional_nested_message_extension":     18,
		"[protolayout.test2.optional_nested_message_extension]":   18,
		"[protolayout.test2.optional_nested_message_extension].a": 1,
	} {
		if n, err := w.Lookup(path); n != want || err != nil {
			t.Errorf("Lookup(%q) = %d, %v; want %d", path, n, err, want)
		}
	}
	const want = `protolayout: no such field: "[protolayout.test2.no_such_extension]" (resolving "[protolayout.test2.no_such_extension].a") in protolayout.test2.TestAllExtensions`
	if _, err := w.Lookup("[protolayout.test2.no_such_extension].a"); err == nil || err.Error() != want {
		t.Errorf("unknown extension: %v\nwant %s", err, want)
	}
}

// TestWriterScalarAtSizeLimit writes one element of a packed field (the
// general path) under every size limit around the output's size: the
// call itself fails with ErrSizeExceeded exactly when the limit is below
// the bytes it writes, whatever the width of the value.
func TestWriterScalarAtSizeLimit(t *testing.T) {
	for _, c := range []struct {
		name  string
		write func(w *encoder.Writer)
	}{
		{"int64 1", func(w *encoder.Writer) { w.Int64(32, 1) }},
		{"int64 300", func(w *encoder.Writer) { w.Int64(32, 300) }},
		{"int64 -1", func(w *encoder.Writer) { w.Int64(32, -1) }},
		{"sint64 -1", func(w *encoder.Writer) { w.Int64(36, -1) }},
		{"sint64 min", func(w *encoder.Writer) { w.Int64(36, -1<<63) }},
		{"fixed64", func(w *encoder.Writer) { w.Uint64(38, 1) }},
		{"fixed32", func(w *encoder.Writer) { w.Uint32(37, 1) }},
	} {
		w := encoder.NewWriter(test3Desc)
		c.write(w)
		want, err := w.Finish()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for limit := max(1, len(want)-12); limit <= len(want)+1; limit++ {
			w := encoder.NewWriter(test3Desc, encoder.WriterOptions{MaxSize: limit})
			c.write(w)
			if limit < len(want) {
				if err := w.Err(); !errors.Is(err, encoder.ErrSizeExceeded) {
					t.Errorf("%s, limit %d below %d bytes: %v, want ErrSizeExceeded from the call", c.name, limit, len(want), err)
				}
				continue
			}
			got, err := w.Finish()
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s, limit %d: % x, %v; want % x", c.name, limit, got, err, want)
			}
		}
	}
}
