package dynamic_test

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/dynamic"
	"github.com/protolayout/protolayout/internal/dyntest"
	"github.com/protolayout/protolayout/protobuftest"
)

var deterministic = proto.MarshalOptions{Deterministic: true}

// TestProtoFunctions checks proto.Marshal, Unmarshal, Equal, Clone, Merge
// and Reset, protojson and prototext on dynamic messages of every test
// message type filled at random, against their dynamicpb twins.
func TestProtoFunctions(t *testing.T) {
	types := dynamic.NewTypes(protobuftest.DynamicFiles())
	seeds := uint64(4)
	if testing.Short() {
		seeds = 2
	}
	for _, tw := range protobuftest.Twins() {
		t.Run(string(tw.Name), func(t *testing.T) {
			md := tw.Dyn.Descriptor()
			for seed := range seeds {
				dpb, dyn := dyntest.Filled(tw, seed, protobuftest.RandOptions{Unknown: true})
				want, err := deterministic.Marshal(dpb)
				if err != nil {
					t.Fatal(err)
				}
				got, err := deterministic.Marshal(dyn)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("seed %d: Marshal differs from dynamicpb's:\n%s", seed, protobuftest.FirstDiff(got, want, md))
				}
				if n := proto.Size(dyn); n != len(want) {
					t.Fatalf("seed %d: Size %d, Marshal wrote %d bytes", seed, n, len(want))
				}

				// Unmarshal, then back.
				back := dynamic.NewMessage(md)
				if err := (proto.UnmarshalOptions{Resolver: types}).Unmarshal(want, back); err != nil {
					t.Fatalf("seed %d: Unmarshal: %v", seed, err)
				}
				if !proto.Equal(back, dyn) {
					t.Fatalf("seed %d: Unmarshal of the bytes is not Equal to the message", seed)
				}
				if again, _ := deterministic.Marshal(back); !bytes.Equal(again, want) {
					t.Fatalf("seed %d: Marshal after Unmarshal differs:\n%s", seed, protobuftest.FirstDiff(again, want, md))
				}

				// Clone and Merge.
				c := proto.Clone(dyn)
				if _, ok := c.(*dynamic.Message); !ok || !proto.Equal(c, dyn) {
					t.Fatalf("seed %d: Clone is a %T, Equal %v", seed, c, proto.Equal(c, dyn))
				}
				dpb2, dyn2 := dyntest.Filled(tw, seed+100, protobuftest.RandOptions{})
				proto.Merge(dpb2, dpb)
				proto.Merge(dyn2, dyn)
				mw, _ := deterministic.Marshal(dpb2)
				mg, _ := deterministic.Marshal(dyn2)
				if !bytes.Equal(mg, mw) {
					t.Fatalf("seed %d: Merge differs from dynamicpb's:\n%s", seed, protobuftest.FirstDiff(mg, mw, md))
				}

				// Reset.
				proto.Reset(c)
				if b, _ := proto.Marshal(c); len(b) != 0 || !proto.Equal(c, dynamic.NewMessage(md)) {
					t.Fatalf("seed %d: Reset leaves %d bytes", seed, len(b))
				}
			}
			for seed := range seeds {
				// JSON and text drop unknown fields; without them the
				// round trips are exact.
				dpb, dyn := dyntest.Filled(tw, seed, protobuftest.RandOptions{})
				checkText(t, md, types, dpb, dyn, "protojson",
					func(m proto.Message) ([]byte, error) { return protojson.MarshalOptions{Resolver: types}.Marshal(m) },
					func(b []byte, m proto.Message) error {
						return protojson.UnmarshalOptions{Resolver: types}.Unmarshal(b, m)
					})
				checkText(t, md, types, dpb, dyn, "prototext",
					func(m proto.Message) ([]byte, error) { return prototext.MarshalOptions{Resolver: types}.Marshal(m) },
					func(b []byte, m proto.Message) error {
						return prototext.UnmarshalOptions{Resolver: types}.Unmarshal(b, m)
					})
			}
		})
	}
}

// checkText checks that an encoding writes dyn as it writes dpb, and that
// what it writes reads back into a dynamic message equal to dyn.
func checkText(t *testing.T, md protoreflect.MessageDescriptor, types *dynamic.Types, dpb, dyn proto.Message, name string,
	marshal func(proto.Message) ([]byte, error), unmarshal func([]byte, proto.Message) error) {
	t.Helper()
	want, errw := marshal(dpb)
	got, errg := marshal(dyn)
	if (errw == nil) != (errg == nil) {
		t.Fatalf("%s: Marshal errors %v (dynamicpb), %v (dynamic)", name, errw, errg)
	}
	if errw != nil {
		return
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: Marshal differs from dynamicpb's:\n%s\n%s", name, got, want)
	}
	back := dynamic.NewMessage(md)
	if err := unmarshal(got, back); err != nil {
		t.Fatalf("%s: Unmarshal: %v", name, err)
	}
	// Both sides' NaNs read back as the same quiet NaN; compare encodings.
	b1, _ := deterministic.Marshal(back)
	b2, _ := deterministic.Marshal(dyn)
	if !proto.Equal(back, dyn) && !bytes.Equal(b1, b2) {
		t.Fatalf("%s: round trip differs:\n%s", name, protobuftest.FirstDiff(b1, b2, md))
	}
}
