package encoder_test

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/internal/reloadtest"
	"github.com/protolayout/protolayout/internal/reloadtest/settest"
	"github.com/protolayout/protolayout/protobuftest"
)

// TestRandomEquivalence encodes seeded random messages of every test schema
// message, generated, dynamicpb and *dynamic.Message, and holds every
// output to the reference.
func TestRandomEquivalence(t *testing.T) {
	n := reloadtest.Seeds()
	for _, tw := range protobuftest.Twins() {
		t.Run(string(tw.Name), func(t *testing.T) {
			t.Parallel()
			for seed := range n {
				opts := protobuftest.RandOptions{MaxDepth: 3, Unknown: seed%3 == 0}
				g, d := protobuftest.NewPair(tw.Gen, tw.Dyn, tw.GenExts, tw.DynExts, seed, opts)
				if !twinsAgree(t, g, d) {
					return
				}
				dm := protobuftest.DynamicMessageTwin(g)
				for _, o := range []protobuftest.CheckOptions{{Deterministic: true, AllowPartial: true}, {AllowPartial: true}, {Deterministic: true}} {
					protobuftest.Equivalent(t, o, nil, g)
					protobuftest.Equivalent(t, o, protobuftest.DynamicTypes(), d)
					protobuftest.Equivalent(t, o, protobuftest.DynamicMessageTypes(), dm)
				}
				if t.Failed() {
					t.Fatalf("seed %d", seed)
				}
			}
		})
	}
}

// TestRandomDefaultModeWithoutMaps compares default-mode output with
// default-mode proto.Marshal of the generated form, which is stable when no
// map has entries.
func TestRandomDefaultModeWithoutMaps(t *testing.T) {
	n := reloadtest.Seeds() / 3
	for _, tw := range protobuftest.Twins() {
		for seed := range n {
			g, d := protobuftest.NewPair(tw.Gen, tw.Dyn, tw.GenExts, tw.DynExts, seed, protobuftest.RandOptions{MaxDepth: 3, NoMaps: true})
			want, werr := proto.MarshalOptions{AllowPartial: true}.Marshal(g)
			for _, x := range []proto.Message{g, d, protobuftest.DynamicMessageTwin(g)} {
				got, err := encoder.MarshalOptions{AllowPartial: true}.Marshal(x)
				if (err != nil) != (werr != nil) || !bytes.Equal(got, want) {
					t.Fatalf("%s seed %d %T: %v / %v\n%s", tw.Name, seed, x, err, werr,
						protobuftest.FirstDiff(got, want, tw.Gen.Descriptor()))
				}
			}
		}
	}
}

// twinsAgree checks that the pair really is one message in two forms.
func twinsAgree(t *testing.T, g, d proto.Message) bool {
	t.Helper()
	o := proto.MarshalOptions{Deterministic: true, AllowPartial: true}
	a, err1 := o.Marshal(g)
	b, err2 := o.Marshal(d)
	if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
		t.Errorf("twins differ (%v, %v):\n%s", err1, err2, protobuftest.FirstDiff(b, a, g.ProtoReflect().Descriptor()))
		return false
	}
	return true
}

// TestDescriptorSetEquivalence encodes the FileDescriptorSet of every file
// linked into the test binary, generated and dynamic: descriptor.proto, the
// well-known types and protobuftest's schemas, 18 files. (The same test
// over a binary that links the OTLP schema too is in the benchmarks
// module, benchmarks/internal/otlptest.)
func TestDescriptorSetEquivalence(t *testing.T) {
	settest.DescriptorSetEquivalence(t, 15)
}
