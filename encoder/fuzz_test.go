package encoder_test

import (
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/protobuftest"
)

// fuzzEquivalence decodes the fuzzer's bytes into the generated and the
// dynamic form of one test message and, when they decode, holds protolayout
// to the reference on both. Seeds are random messages of that type.
func fuzzEquivalence(f *testing.F, name protoreflect.FullName) {
	tw := protobuftest.TwinByName(name)
	for seed := range uint64(8) {
		g, _ := protobuftest.NewPair(tw.Gen, tw.Dyn, tw.GenExts, tw.DynExts, seed, protobuftest.RandOptions{MaxDepth: 3, Unknown: seed%2 == 0})
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(g)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		uo := proto.UnmarshalOptions{AllowPartial: true}
		g := tw.Gen.New().Interface()
		if uo.Unmarshal(b, g) != nil {
			return
		}
		d := tw.Dyn.New().Interface()
		uo.Resolver = protobuftest.DynamicTypes()
		if err := uo.Unmarshal(b, d); err != nil {
			t.Fatalf("generated form decodes, dynamic form does not: %v", err)
		}
		for _, o := range []protobuftest.CheckOptions{{Deterministic: true, AllowPartial: true}, {Deterministic: true}} {
			protobuftest.Equivalent(t, o, nil, g)
			protobuftest.Equivalent(t, o, protobuftest.DynamicTypes(), d)
		}
	})
}

func FuzzProto2(f *testing.F)      { fuzzEquivalence(f, "protolayout.test2.TestAllTypes") }
func FuzzProto2Ext(f *testing.F)   { fuzzEquivalence(f, "protolayout.test2.TestAllExtensions") }
func FuzzRequired(f *testing.F)    { fuzzEquivalence(f, "protolayout.test2.TestRequiredContainer") }
func FuzzProto3(f *testing.F)      { fuzzEquivalence(f, "protolayout.test3.TestAllTypes") }
func FuzzEditions(f *testing.F)    { fuzzEquivalence(f, "protolayout.testeditions.TestAllTypes") }
func FuzzRecursive(f *testing.F)   { fuzzEquivalence(f, "protolayout.test3.TestRecursive") }
func FuzzFieldNumber(f *testing.F) { fuzzEquivalence(f, "protolayout.test3.TestFieldNumbers") }
