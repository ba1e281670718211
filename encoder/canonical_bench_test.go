package encoder_test

import (
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/dynamic"
	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/protobuftest"
)

// canonicalInputs returns the reference canonical encoding, under p, of
// a random message (seed) of each test schema's TestAllTypes, generated
// form, with its type.
func canonicalInputs(t testing.TB, p encoder.Profile, seed uint64) (names []string, types []protoreflect.MessageType, inputs [][]byte) {
	for _, name := range []protoreflect.FullName{
		"protolayout.test3.TestAllTypes",
		"protolayout.test2.TestAllTypes",
		"protolayout.testeditions.TestAllTypes",
		"protolayout.test2.TestRequiredContainer",
	} {
		tw := protobuftest.TwinByName(name)
		m := tw.Gen.New()
		protobuftest.Fill(m, seed, protobuftest.RandOptions{MaxDepth: 3, NoMaps: p == encoder.Signing, Extensions: tw.GenExts})
		b, err := refCanonical(m, p)
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, string(name.Parent().Name())+"."+string(name.Name()))
		types = append(types, tw.Gen)
		inputs = append(inputs, b)
	}
	return names, types, inputs
}

// TestCheckCanonicalAllocs checks that a successful check allocates
// nothing, on messages of every kind of field, both profiles.
func TestCheckCanonicalAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates (and drops pooled checkers)")
	}
	for _, p := range profiles {
		for seed := range uint64(5) {
			names, types, inputs := canonicalInputs(t, p, seed)
			for i, b := range inputs {
				md := types[i].Descriptor()
				if err := encoder.CheckCanonical(b, md, p); err != nil {
					t.Fatalf("%s %v seed %d: %v", names[i], p, seed, err)
				}
				if n := testing.AllocsPerRun(20, func() { _ = encoder.CheckCanonical(b, md, p) }); n != 0 {
					t.Errorf("%s %v seed %d (%d bytes): %v allocations per check", names[i], p, seed, len(b), n)
				}
			}
		}
	}
}

// BenchmarkCheckCanonical checks the canonical encoding of a random
// message of each test schema's TestAllTypes, beside proto.Unmarshal of
// the same bytes into the generated type.
func BenchmarkCheckCanonical(b *testing.B) {
	names, types, inputs := canonicalInputs(b, encoder.Canonical, 7)
	for i, in := range inputs {
		md, mt := types[i].Descriptor(), types[i]
		b.Run(names[i]+"/check", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				if err := encoder.CheckCanonical(in, md, encoder.Canonical); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(names[i]+"/proto.Unmarshal", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				m := mt.New().Interface()
				if err := proto.Unmarshal(in, m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkMarshalCanonical encodes a random message of each test
// schema's TestAllTypes, generated and as a dynamic.Message, with a
// reused Encoder: canonically under each profile, beside the default
// encoding of the same message.
func BenchmarkMarshalCanonical(b *testing.B) {
	names, types, inputs := canonicalInputs(b, encoder.Signing, 7) // no maps: every profile takes it
	for i, in := range inputs {
		gen := types[i].New().Interface()
		dyn := dynamic.NewMessage(types[i].Descriptor())
		for _, m := range []proto.Message{gen, dyn} {
			if err := (proto.UnmarshalOptions{Resolver: protobuftest.DynamicMessageTypes()}).Unmarshal(in, m); err != nil {
				b.Fatal(err)
			}
		}
		for _, c := range []struct {
			name string
			m    proto.Message
			p    encoder.Profile
		}{
			{"generated/default", gen, 0}, {"generated/canonical", gen, encoder.Canonical}, {"generated/signing", gen, encoder.Signing},
			{"dynamic/default", dyn, 0}, {"dynamic/canonical", dyn, encoder.Canonical}, {"dynamic/signing", dyn, encoder.Signing},
		} {
			m := c.m
			e := encoder.NewEncoder(encoder.MarshalOptions{Deterministic: true, Canonical: c.p})
			b.Run(names[i]+"/"+c.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(in)))
				var buf []byte
				for b.Loop() {
					var err error
					if buf, err = e.MarshalAppend(buf[:0], m); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
