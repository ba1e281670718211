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

// apiLevelSeeds is how many random messages each test schema message gets
// in the equivalence tests of its hybrid and Opaque API forms: a tenth of
// reloadtest.Seeds (30, or 3 with -short). The open form, which
// TestRandomEquivalence covers with every seed, takes the same encoder
// paths on the same content; these seeds check the other struct layouts.
func apiLevelSeeds() uint64 { return reloadtest.Seeds() / 10 }

// TestRandomEquivalenceAPILevels encodes seeded random messages of every
// test schema message generated with the hybrid and the Opaque API, in the
// option modes of TestRandomEquivalence, and holds every output to the
// reference. Each form is filled through its own setters from the seed,
// not decoded (no test schema field is declared [lazy = true] either, so
// the Opaque API decodes nothing lazily), and must hold the same content
// as the open form.
func TestRandomEquivalenceAPILevels(t *testing.T) {
	n := apiLevelSeeds()
	for _, s := range protobuftest.GeneratedVariants() {
		t.Run(string(s.Name), func(t *testing.T) {
			t.Parallel()
			for seed := range n {
				opts := protobuftest.RandOptions{MaxDepth: 3, Unknown: seed%3 == 0}
				g := s.Open.Random(seed, opts)
				h, q := s.Hybrid.Random(seed, opts), s.Opaque.Random(seed, opts)
				if !twinsAgree(t, g, h) || !twinsAgree(t, g, q) {
					return
				}
				for _, o := range []protobuftest.CheckOptions{{Deterministic: true, AllowPartial: true}, {AllowPartial: true}, {Deterministic: true}} {
					protobuftest.Equivalent(t, o, nil, h, q)
				}
				if t.Failed() {
					t.Fatalf("seed %d", seed)
				}
			}
		})
	}
}

// TestRandomDefaultModeWithoutMapsAPILevels is
// TestRandomDefaultModeWithoutMaps on the hybrid and Opaque API forms.
func TestRandomDefaultModeWithoutMapsAPILevels(t *testing.T) {
	n := apiLevelSeeds() / 3
	for _, s := range protobuftest.GeneratedVariants() {
		for seed := range n {
			opts := protobuftest.RandOptions{MaxDepth: 3, NoMaps: true}
			for _, v := range []protobuftest.Variant{s.Hybrid, s.Opaque} {
				m := v.Random(seed, opts)
				want, werr := proto.MarshalOptions{AllowPartial: true}.Marshal(m)
				got, err := encoder.MarshalOptions{AllowPartial: true}.Marshal(m)
				if (err != nil) != (werr != nil) || !bytes.Equal(got, want) {
					t.Fatalf("%s seed %d %v: %v / %v\n%s", s.Name, seed, v.Level, err, werr,
						protobuftest.FirstDiff(got, want, v.Type.Descriptor()))
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
// well-known types, protobuftest's schemas and their hybrid and Opaque API
// copies, 27 files. (The same test
// over a binary that links the OTLP schema too is in the benchmarks
// module, benchmarks/internal/otlptest.)
func TestDescriptorSetEquivalence(t *testing.T) {
	settest.DescriptorSetEquivalence(t, 15)
}
