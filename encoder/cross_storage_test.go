package encoder_test

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/dynamic"
	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/protobuftest"
	"github.com/protolayout/protolayout/protobuftest/gen/test2pb"
)

// allExtensions returns the variants of test2's TestAllExtensions.
func allExtensions() protobuftest.VariantSet {
	for _, v := range protobuftest.GeneratedVariants() {
		if v.Name == "protolayout.test2.TestAllExtensions" {
			return v
		}
	}
	panic("no protolayout.test2.TestAllExtensions")
}

// extensionNamed returns the generated (open) extension type of s named
// name.
func extensionNamed(t *testing.T, s protobuftest.VariantSet, name protoreflect.Name) protoreflect.ExtensionType {
	t.Helper()
	for _, x := range s.Open.Exts {
		if x.TypeDescriptor().Name() == name {
			return x
		}
	}
	t.Fatalf("no extension %s", name)
	return nil
}

// fillScalars sets m's int32 and string fields (the first level only).
func fillScalars(m protoreflect.Message) {
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		switch fd.Kind() {
		case protoreflect.Int32Kind:
			m.Set(fd, protoreflect.ValueOfInt32(int32(7+i)))
		case protoreflect.StringKind:
			if !fd.IsList() {
				m.Set(fd, protoreflect.ValueOfString("é"))
			}
		}
	}
}

// setExtension sets the message extension xt of holder to one message
// (two for a repeated one) made by newValue, filled by fillScalars.
func setExtension(holder protoreflect.Message, xt protoreflect.ExtensionType, newValue func() protoreflect.Message) {
	xd := xt.TypeDescriptor()
	if !xd.IsList() {
		v := newValue()
		fillScalars(v)
		holder.Set(xd, protoreflect.ValueOfMessage(v))
		return
	}
	l := xt.New().List()
	for range 2 {
		v := newValue()
		fillScalars(v)
		l.Append(protoreflect.ValueOfMessage(v))
	}
	holder.Set(xd, protoreflect.ValueOfList(l))
}

// A message extension whose value is of the other storage (a message of
// package dynamic in a generated message, set through
// dynamic.NewExtensionType; a generated message in a dynamic one, set
// through the generated extension type) is encoded by the engine in the
// same call, each message by its own storage's passes, with the bytes
// proto.Marshal gives for the same content in generated messages alone,
// and its faults named as the walk names them, without the walk.
func TestExtensionsAcrossStorage(t *testing.T) {
	s := allExtensions()
	names := []protoreflect.Name{"optional_nested_message_extension", "repeated_nested_message_extension",
		"optionalgroup_extension", "repeatedgroup_extension"}
	for _, name := range names {
		gxt := extensionNamed(t, s, name)
		gxd := gxt.TypeDescriptor()
		dxt := dynamic.NewExtensionType(gxd.Descriptor())
		newGen := func() protoreflect.Message { return gxt.New().Message().Type().New() }
		if gxd.IsList() {
			newGen = func() protoreflect.Message { return gxt.New().List().NewElement().Message() }
		}
		newDyn := func() protoreflect.Message { return dynamic.NewMessage(gxd.Message()) }

		// The oracle: generated messages alone, through protobuf-go.
		pure := s.Open.Type.New()
		setExtension(pure, gxt, newGen)
		want, err := proto.MarshalOptions{Deterministic: true}.Marshal(pure.Interface())
		if err != nil {
			t.Fatal(err)
		}

		genHolder := s.Open.Type.New()
		setExtension(genHolder, dxt, newDyn)
		dynHolder := dynamic.NewMessage(s.Open.Type.Descriptor())
		setExtension(dynHolder, gxt, newGen)
		cases := []struct {
			what string
			m    proto.Message
		}{
			{"generated message, dynamic value", genHolder.Interface()},
			{"dynamic message, generated value", dynHolder},
		}
		// Canonical, the walk's bytes for the same content.
		wantCanon, err := encoder.MarshalOptions{Canonical: encoder.Canonical}.Marshal(protobuftest.DynamicTwin(pure.Interface()))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			e := encoder.NewEncoder(encoder.MarshalOptions{Canonical: encoder.Canonical})
			if got, err := e.Marshal(c.m); err != nil || !bytes.Equal(got, wantCanon) {
				t.Errorf("%s, %s, Canonical: %x, %v; want %x", name, c.what, got, err, wantCanon)
			}
			if steps := encoder.WalkStats(e).Steps; steps != 0 {
				t.Errorf("%s, %s, Canonical: left to the walk (%d steps)", name, c.what, steps)
			}

			e = encoder.NewEncoder(encoder.MarshalOptions{Deterministic: true})
			got, err := e.Marshal(c.m)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s, %s: %x, %v; want %x", name, c.what, got, err, want)
			}
			if steps := encoder.WalkStats(e).Steps; steps != 0 {
				t.Errorf("%s, %s: left to the walk (%d steps)", name, c.what, steps)
			}
			if n, err := e.Size(c.m); err != nil || n != len(want) {
				t.Errorf("%s, %s: Size %d, %v; want %d", name, c.what, n, err, len(want))
			}
			// Through proto.Marshal: a dynamic message's fast-path
			// methods, with a state of their own.
			got, err = proto.MarshalOptions{Deterministic: true}.Marshal(c.m)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s, %s: proto.Marshal gives %x, %v; want %x", name, c.what, got, err, want)
			}
			if n := proto.Size(c.m); n != len(want) {
				t.Errorf("%s, %s: proto.Size %d; want %d", name, c.what, n, len(want))
			}

			// The depth limit inside the value, as the walk names it.
			walkErr := func() error {
				_, err := encoder.MarshalOptions{MaxDepth: 1}.Marshal(protobuftest.DynamicTwin(pure.Interface()))
				return err
			}()
			if !errors.Is(walkErr, encoder.ErrDepthExceeded) {
				t.Fatalf("%s: the walk gives %v", name, walkErr)
			}
			e = encoder.NewEncoder(encoder.MarshalOptions{MaxDepth: 1})
			_, err = e.Marshal(c.m)
			if openNames(err) != openNames(walkErr) {
				t.Errorf("%s, %s, MaxDepth 1: %v; want %v", name, c.what, err, walkErr)
			}
			if steps := encoder.WalkStats(e).Steps; steps != 0 {
				t.Errorf("%s, %s, MaxDepth 1: named by the walk (%d steps)", name, c.what, steps)
			}
		}
	}
}

// anyExtension is an extension type whose message values may be of any
// implementation of the extension's message type (as protobuf-go's own
// types for generated messages are not, for a descriptor loaded at run
// time): here, generated messages in a dynamic message's extension.
type anyExtension struct {
	desc protoreflect.ExtensionDescriptor
	new  func() protoreflect.Message
}

type anyExtensionDescriptor struct {
	protoreflect.ExtensionDescriptor
	xt *anyExtension
}

func (x *anyExtension) New() protoreflect.Value { return protoreflect.ValueOfMessage(x.new()) }
func (x *anyExtension) Zero() protoreflect.Value {
	return protoreflect.ValueOfMessage(x.new().Type().Zero())
}
func (x *anyExtension) TypeDescriptor() protoreflect.ExtensionTypeDescriptor {
	return anyExtensionDescriptor{x.desc, x}
}
func (x *anyExtension) ValueOf(v any) protoreflect.Value { return protoreflect.ValueOf(v) }
func (x *anyExtension) InterfaceOf(v protoreflect.Value) any {
	return v.Interface()
}
func (x *anyExtension) IsValidValue(v protoreflect.Value) bool {
	m, ok := v.Interface().(protoreflect.Message)
	return ok && m.Descriptor().FullName() == x.desc.Message().FullName()
}
func (x *anyExtension) IsValidInterface(v any) bool {
	return x.IsValidValue(protoreflect.ValueOf(v))
}
func (d anyExtensionDescriptor) Type() protoreflect.ExtensionType { return d.xt }
func (d anyExtensionDescriptor) Descriptor() protoreflect.ExtensionDescriptor {
	return d.ExtensionDescriptor
}

// Generated messages reached through the values of a dynamic map, whose
// entries the size pass and the write pass may visit in other orders, or
// through a dynamic message held twice (which the size pass counts once
// and the write pass writes twice), are never written with another
// message's recorded sizes or map entries: each generated message holds
// a map of the same size but its own content, and the bytes must be
// those of the same content in dynamicpb messages (the walk).
func TestGeneratedInDynamicMapValues(t *testing.T) {
	fdp := &descriptorpb.FileDescriptorProto{}
	if err := prototext.Unmarshal([]byte(`
		name: "crossmap.proto" package: "crossmap" syntax: "proto2"
		dependency: "test2.proto"
		message_type {
			name: "Holder"
			field { name: "m" number: 1 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".crossmap.Holder.MEntry" }
			field { name: "l" number: 2 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".crossmap.Ext" }
			nested_type {
				name: "MEntry" options { map_entry: true }
				field { name: "key" number: 1 label: LABEL_OPTIONAL type: TYPE_STRING }
				field { name: "value" number: 2 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".crossmap.Ext" }
			}
		}
		message_type { name: "Ext" extension_range { start: 100 end: 200 } }
		extension { name: "all" number: 100 label: LABEL_OPTIONAL type: TYPE_MESSAGE
			type_name: ".protolayout.test2.TestAllTypes" extendee: ".crossmap.Ext" }
	`), fdp); err != nil {
		t.Fatal(err)
	}
	gen := (&test2pb.TestAllTypes{}).ProtoReflect()
	files := new(protoregistry.Files)
	if err := files.RegisterFile(gen.Descriptor().ParentFile()); err != nil {
		t.Fatal(err)
	}
	fdp.Dependency = []string{gen.Descriptor().ParentFile().Path()}
	fd, err := protodesc.NewFile(fdp, files)
	if err != nil {
		t.Fatal(err)
	}
	holderMD := fd.Messages().ByName("Holder")
	extMD := fd.Messages().ByName("Ext")
	xd := fd.Extensions().ByName("all")
	crossXT := &anyExtension{desc: xd, new: func() protoreflect.Message { return gen.Type().New() }}
	walkXT := dynamicpb.NewExtensionType(xd)

	// values returns twin Ext messages whose extension holds a generated
	// message with one map entry, i to i+10: in ours, the generated
	// message itself; in the oracle, a dynamicpb copy.
	values := func(i int) (ours, oracle protoreflect.Value) {
		g := &test2pb.TestAllTypes{MapInt32Int32: map[int32]int32{int32(10 + i): int32(20 + i)}}
		ov := dynamic.NewMessage(extMD)
		ov.Set(crossXT.TypeDescriptor(), protoreflect.ValueOfMessage(g.ProtoReflect()))
		dg := dynamicpb.NewMessage(gen.Descriptor())
		proto.Merge(dg, g)
		wv := dynamicpb.NewMessage(extMD)
		wv.Set(walkXT.TypeDescriptor(), protoreflect.ValueOfMessage(dg))
		return protoreflect.ValueOfMessage(ov), protoreflect.ValueOfMessage(wv)
	}
	types := new(protoregistry.Types)
	if err := types.RegisterExtension(walkXT); err != nil {
		t.Fatal(err)
	}
	mapField, listField := holderMD.Fields().ByName("m"), holderMD.Fields().ByName("l")

	// A map of eight entries.
	inMap, inMapOracle := dynamic.NewMessage(holderMD), dynamicpb.NewMessage(holderMD)
	for i := range 8 {
		key := protoreflect.ValueOfString(fmt.Sprintf("entry%d", i)).MapKey()
		o, w := values(i)
		inMap.Mutable(mapField).Map().Set(key, o)
		inMapOracle.Mutable(mapField).Map().Set(key, w)
	}
	// A list holding one message twice, then another.
	shared, sharedOracle := dynamic.NewMessage(holderMD), dynamicpb.NewMessage(holderMD)
	o0, w0 := values(0)
	o1, w1 := values(1)
	for _, v := range [][2]protoreflect.Value{{o0, w0}, {o0, w0}, {o1, w1}} {
		shared.Mutable(listField).List().Append(v[0])
		sharedOracle.Mutable(listField).List().Append(v[1])
	}

	for _, c := range []struct {
		what         string
		ours, oracle proto.Message
	}{{"map", inMap, inMapOracle}, {"shared", shared, sharedOracle}} {
		for _, opts := range []encoder.MarshalOptions{{Deterministic: true}, {}} {
			for range 20 {
				want, err := opts.Marshal(c.oracle)
				if err != nil {
					t.Fatal(err)
				}
				got, err := encoder.NewEncoder(opts).Marshal(c.ours)
				if err != nil {
					t.Fatal(err)
				}
				if opts.Deterministic && !bytes.Equal(got, want) {
					t.Fatalf("%s, Deterministic: %x; want %x", c.what, got, want)
				}
				back := dynamicpb.NewMessage(holderMD)
				if err := (proto.UnmarshalOptions{Resolver: types}).Unmarshal(got, back); err != nil {
					t.Fatal(err)
				}
				if !proto.Equal(back, c.oracle) {
					t.Fatalf("%s, %+v: the bytes hold other content than the message", c.what, opts)
				}
			}
		}
	}
}
