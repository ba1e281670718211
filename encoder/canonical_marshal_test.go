package encoder_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"slices"
	"testing"

	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/dynamic"
	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/internal/reloadtest"
	"github.com/protolayout/protolayout/protobuftest"
	hybridtest2pb "github.com/protolayout/protolayout/protobuftest/gen/hybrid/test2pb"
	opaquetest2pb "github.com/protolayout/protolayout/protobuftest/gen/opaque/test2pb"
	"github.com/protolayout/protolayout/protobuftest/gen/test2pb"
)

// storages returns m, a dynamicpb message, as each storage holds it: the
// dynamicpb message itself, the generated type and package dynamic's,
// decoded from m's bytes.
func storages(t *testing.T, tw protobuftest.Twin, m protoreflect.Message) map[string]proto.Message {
	t.Helper()
	b, err := proto.MarshalOptions{AllowPartial: true}.Marshal(m.Interface())
	if err != nil {
		t.Fatal(err)
	}
	gen := tw.Gen.New().Interface()
	dyn := dynamic.NewMessage(tw.Dyn.Descriptor())
	for _, c := range []struct {
		m proto.Message
		o proto.UnmarshalOptions
	}{
		{gen, proto.UnmarshalOptions{AllowPartial: true}},
		{dyn, proto.UnmarshalOptions{AllowPartial: true, Resolver: protobuftest.DynamicMessageTypes()}},
	} {
		if err := c.o.Unmarshal(b, c.m); err != nil {
			t.Fatal(err)
		}
	}
	return map[string]proto.Message{"dynamicpb": m.Interface(), "generated": gen, "dynamic": dyn}
}

// TestMarshalCanonicalRandom encodes seeded random messages of every test
// schema under both profiles, held as dynamicpb, generated and dynamic
// messages, with MarshalOptions and a reused Encoder: the bytes are the
// reference canonical encoding's (whose agreement with protoc --encode
// TestRefCanonicalMatchesProtoc checks), the checker accepts them, Size
// counts them, and they decode to a message equal to the input.
func TestMarshalCanonicalRandom(t *testing.T) {
	n := reloadtest.Seeds() / 5
	for _, tw := range protobuftest.Twins() {
		t.Run(string(tw.Name), func(t *testing.T) {
			t.Parallel()
			encs := map[encoder.Profile]*encoder.Encoder{}
			for _, p := range profiles {
				encs[p] = encoder.NewEncoder(encoder.MarshalOptions{Canonical: p, AllowPartial: true})
			}
			for seed := range n {
				for _, p := range profiles {
					m := testMessage(tw, seed, p)
					want, err := refCanonical(m, p)
					if err != nil {
						t.Fatalf("seed %d %v: reference: %v", seed, p, err)
					}
					o := encoder.MarshalOptions{Canonical: p, AllowPartial: true}
					for name, sm := range storages(t, tw, m) {
						got, err := o.Marshal(sm)
						if err != nil || !bytes.Equal(got, want) {
							t.Fatalf("seed %d %v %s: %v\n%s", seed, p, name, err, protobuftest.FirstDiff(got, want, tw.Gen.Descriptor()))
						}
						if again, err := encs[p].Marshal(sm); err != nil || !bytes.Equal(again, want) {
							t.Fatalf("seed %d %v %s, reused Encoder: %v", seed, p, name, err)
						}
						if n := o.Size(sm); n != len(want) {
							t.Fatalf("seed %d %v %s: Size %d, Marshal %d bytes", seed, p, name, n, len(want))
						}
					}
					if err := checkDyn(want, tw.Dyn.Descriptor(), p); err != nil {
						t.Fatalf("seed %d %v: %v", seed, p, err)
					}
					back := tw.Dyn.New()
					if err := (proto.UnmarshalOptions{AllowPartial: true, Resolver: protobuftest.DynamicTypes()}).Unmarshal(want, back.Interface()); err != nil {
						t.Fatalf("seed %d %v: decoding: %v", seed, p, err)
					}
					if !proto.Equal(back.Interface(), m.Interface()) {
						t.Fatalf("seed %d %v: the bytes decode to another message", seed, p)
					}
				}
			}
		})
	}
}

// TestMarshalCanonicalADR027 encodes ADR-027's test document under
// Signing: the bytes are the ADR's vector.
func TestMarshalCanonicalADR027(t *testing.T) {
	md := articleSchema(t)
	m := dynamicpb.NewMessage(md)
	if err := prototext.Unmarshal([]byte(`title: "The world needs change 🌳" description: "" created: 1596806111080
		updated: 0 public: true promoted: false type: NEWS review: REVIEW_UNSPECIFIED
		comments: ["Nice one", "Thank you"]`), m); err != nil {
		t.Fatal(err)
	}
	vec, _ := hex.DecodeString(adr027Vector)
	dyn := dynamic.NewMessage(md)
	if err := proto.Unmarshal(vec, dyn); err != nil {
		t.Fatal(err)
	}
	for name, msg := range map[string]proto.Message{"dynamicpb": m, "dynamic": dyn} {
		got, err := encoder.MarshalOptions{Canonical: encoder.Signing}.Marshal(msg)
		if err != nil || !bytes.Equal(got, vec) {
			t.Fatalf("%s: %x, %v; want %x", name, got, err, vec)
		}
	}
}

// TestMarshalCanonicalOrder checks the order itself on the test schemas'
// oneofs and extensions, where proto.Marshal's order differs: a oneof
// member and an extension come at their numbers, and proto.Marshal's
// bytes (oneof after the other fields, extensions first) are refused by
// the checker when they differ.
func TestMarshalCanonicalOrder(t *testing.T) {
	differ := 0
	for _, tw := range protobuftest.Twins() {
		for seed := range uint64(20) {
			m := testMessage(tw, seed, encoder.Canonical)
			got, err := encoder.MarshalOptions{Canonical: encoder.Canonical, AllowPartial: true}.Marshal(m.Interface())
			if err != nil {
				t.Fatal(err)
			}
			plain, err := proto.MarshalOptions{Deterministic: true, AllowPartial: true}.Marshal(m.Interface())
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Equal(got, plain) {
				continue
			}
			differ++
			if checkDyn(plain, tw.Dyn.Descriptor(), encoder.Canonical) == nil {
				t.Fatalf("%s seed %d: proto.Marshal's bytes differ from the canonical ones and the checker accepts them", tw.Name, seed)
			}
		}
	}
	if differ == 0 {
		t.Fatal("no random message where proto.Marshal's order differs from field-number order")
	}
}

// TestMarshalCanonicalSigningRefuses checks the Signing profile's
// refusals: a non-empty map (ErrMapField, naming the field) and unknown
// fields (ErrUnknownField); an empty map is fine.
func TestMarshalCanonicalSigningRefuses(t *testing.T) {
	tw := protobuftest.TwinByName("protolayout.test3.TestAllTypes")
	md := tw.Dyn.Descriptor()
	fd := md.Fields().ByName("map_string_string")
	if fd == nil {
		t.Fatal("no map_string_string field")
	}
	o := encoder.MarshalOptions{Canonical: encoder.Signing}
	m := dynamic.NewMessage(md)
	m.Mutable(fd).Map() // empty
	if _, err := o.Marshal(m); err != nil {
		t.Fatalf("empty map: %v", err)
	}
	m.Mutable(fd).Map().Set(protoreflect.ValueOfString("k").MapKey(), protoreflect.ValueOfString("v"))
	_, err := o.Marshal(m)
	var e *encoder.Error
	if !errors.Is(err, encoder.ErrMapField) || !errors.As(err, &e) || e.Field != fd.FullName() || e.Path != "map_string_string" {
		t.Fatalf("map: %v, want ErrMapField on map_string_string", err)
	}
	if _, err := (encoder.MarshalOptions{Canonical: encoder.Canonical}).Marshal(m); err != nil {
		t.Fatalf("Canonical takes maps: %v", err)
	}
	u := dynamic.NewMessage(md)
	u.SetUnknown(protoreflect.RawFields{0xf8, 0xff, 0x3f, 0x01}) // field 131071, varint 1
	if _, err := o.Marshal(u); !errors.Is(err, encoder.ErrUnknownField) {
		t.Fatalf("unknown fields: %v, want ErrUnknownField", err)
	}
	if b, err := (encoder.MarshalOptions{Canonical: encoder.Canonical}).Marshal(u); err != nil || len(b) != 4 {
		t.Fatalf("Canonical keeps unknown fields: %x, %v", b, err)
	}
}

// TestMarshalCanonicalLimits checks that the limits hold under Canonical
// for every storage, as they do by default (profile 0): a message that
// contains itself fails with ErrCycle, one nested past MaxDepth with
// ErrDepthExceeded.
func TestMarshalCanonicalLimits(t *testing.T) {
	tw := protobuftest.TwinByName("protolayout.test2.TestRecursive")
	for _, p := range append([]encoder.Profile{0}, profiles...) {
		o := encoder.MarshalOptions{Canonical: p}
		for name, newMsg := range map[string]func() protoreflect.Message{
			"generated": func() protoreflect.Message { return tw.Gen.New() },
			"dynamicpb": func() protoreflect.Message { return tw.Dyn.New() },
			"dynamic":   func() protoreflect.Message { return dynamic.NewMessage(tw.Dyn.Descriptor()) },
		} {
			child := tw.Gen.Descriptor().Fields().ByName("child")
			if name != "generated" {
				child = tw.Dyn.Descriptor().Fields().ByName("child")
			}
			cyc := newMsg()
			cyc.Set(child, protoreflect.ValueOfMessage(cyc))
			if _, err := o.Marshal(cyc.Interface()); !errors.Is(err, encoder.ErrCycle) {
				t.Errorf("%v %s, a message that contains itself: %v, want ErrCycle", p, name, err)
			}
			deep := newMsg()
			m := deep
			for range 60 {
				m = m.Mutable(child).Message()
			}
			shallow := o
			shallow.MaxDepth = 50
			if _, err := shallow.Marshal(deep.Interface()); !errors.Is(err, encoder.ErrDepthExceeded) || errors.Is(err, encoder.ErrCycle) {
				t.Errorf("%v %s, 61 levels: %v, want ErrDepthExceeded", p, name, err)
			}
		}
	}
}

// TestMarshalCanonicalExtensionAmongFields checks an extension numbered
// between two fields of a schema built at run time: its canonical place
// is between them, for dynamicpb and dynamic messages alike.
func TestMarshalCanonicalExtensionAmongFields(t *testing.T) {
	fdp := &descriptorpb.FileDescriptorProto{
		Name:    proto.String("among.proto"),
		Package: proto.String("among"),
		Syntax:  proto.String("proto2"),
		MessageType: []*descriptorpb.DescriptorProto{{
			Name: proto.String("M"),
			Field: []*descriptorpb.FieldDescriptorProto{
				{Name: proto.String("a"), Number: proto.Int32(1), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), Type: descriptorpb.FieldDescriptorProto_TYPE_INT32.Enum()},
				{Name: proto.String("z"), Number: proto.Int32(300), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), Type: descriptorpb.FieldDescriptorProto_TYPE_INT32.Enum()},
			},
			ExtensionRange: []*descriptorpb.DescriptorProto_ExtensionRange{{Start: proto.Int32(100), End: proto.Int32(200)}},
		}},
		Extension: []*descriptorpb.FieldDescriptorProto{
			{Name: proto.String("e150"), Number: proto.Int32(150), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), Type: descriptorpb.FieldDescriptorProto_TYPE_INT32.Enum(), Extendee: proto.String(".among.M")},
		},
	}
	fd, err := protodesc.NewFile(fdp, nil)
	if err != nil {
		t.Fatal(err)
	}
	md, xd := fd.Messages().Get(0), fd.Extensions().Get(0)
	want := []byte{0x08, 0x01, 0xb0, 0x09, 0x02, 0xe0, 0x12, 0x03}
	for name, c := range map[string]struct {
		m  protoreflect.Message
		xt protoreflect.ExtensionType
	}{
		"dynamicpb": {dynamicpb.NewMessage(md), dynamicpb.NewExtensionType(xd)},
		"dynamic":   {dynamic.NewMessage(md), dynamic.NewExtensionType(xd)},
	} {
		m := c.m
		m.Set(md.Fields().ByName("a"), protoreflect.ValueOfInt32(1))
		m.Set(md.Fields().ByName("z"), protoreflect.ValueOfInt32(3))
		m.Set(c.xt.TypeDescriptor(), protoreflect.ValueOfInt32(2))
		for _, p := range profiles {
			got, err := encoder.MarshalOptions{Canonical: p}.Marshal(m.Interface())
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s %v: % x, %v; want % x", name, p, got, err, want)
			}
		}
		if ref, _ := refCanonical(m, encoder.Canonical); !bytes.Equal(ref, want) {
			t.Errorf("%s: the reference writes % x", name, ref)
		}
	}
}

// TestMarshalCanonicalExtensionAmongFieldsGenerated checks the generated
// OneofOrder (open, hybrid and Opaque structs), whose extensions 101 and
// 150 lie between its fields 30 and 200: canonical bytes put them there,
// with a oneof member at its number too, as the reference encoding does,
// and the checker accepts them. proto.Marshal writes the extensions first
// and the oneof member last.
func TestMarshalCanonicalExtensionAmongFieldsGenerated(t *testing.T) {
	open := &test2pb.OneofOrder{Z: proto.Int32(30), B: proto.Int32(10), After: proto.Int32(200), Second: &test2pb.OneofOrder_S9{S9: 9}}
	proto.SetExtension(open, test2pb.E_OrderExt150, int32(150))
	proto.SetExtension(open, test2pb.E_OrderExt101, int32(101))
	hybrid := &hybridtest2pb.OneofOrder{Z: proto.Int32(30), B: proto.Int32(10), After: proto.Int32(200), Second: &hybridtest2pb.OneofOrder_S9{S9: 9}}
	proto.SetExtension(hybrid, hybridtest2pb.E_OrderExt150, int32(150))
	proto.SetExtension(hybrid, hybridtest2pb.E_OrderExt101, int32(101))
	opaque := &opaquetest2pb.OneofOrder{}
	opaque.SetZ(30)
	opaque.SetB(10)
	opaque.SetAfter(200)
	opaque.SetS9(9)
	proto.SetExtension(opaque, opaquetest2pb.E_OrderExt150, int32(150))
	proto.SetExtension(opaque, opaquetest2pb.E_OrderExt101, int32(101))
	want := []protowire.Number{9, 10, 30, 101, 150, 200}
	for name, m := range map[string]proto.Message{"open": open, "hybrid": hybrid, "opaque": opaque} {
		for _, p := range profiles {
			got, err := encoder.MarshalOptions{Canonical: p}.Marshal(m)
			if err != nil {
				t.Fatalf("%s %v: %v", name, p, err)
			}
			if nums := numbers(t, got); !slices.Equal(nums, want) {
				t.Errorf("%s %v: field order %v, want %v", name, p, nums, want)
			}
			if ref, err := refCanonical(m.ProtoReflect(), p); err != nil || !bytes.Equal(got, ref) {
				t.Errorf("%s %v: % x, the reference writes % x (%v)", name, p, got, ref, err)
			}
			if err := encoder.CheckCanonical(got, m.ProtoReflect().Descriptor(), p); err != nil {
				t.Errorf("%s %v: the checker refuses the bytes: %v", name, p, err)
			}
			if again, err := encoder.NewEncoder(encoder.MarshalOptions{Canonical: p}).Marshal(m); err != nil || !bytes.Equal(again, got) {
				t.Errorf("%s %v: a reused Encoder writes % x (%v), want % x", name, p, again, err, got)
			}
		}
		plain, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if nums := numbers(t, plain); !slices.Equal(nums, []protowire.Number{101, 150, 10, 30, 200, 9}) {
			t.Errorf("%s: proto.Marshal's field order %v", name, nums)
		}
	}
}
