package encoder_test

import (
	"bytes"
	"errors"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/dynamic"
	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/protobuftest"
)

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
	var s protobuftest.VariantSet
	for _, v := range protobuftest.GeneratedVariants() {
		if v.Name == "protolayout.test2.TestAllExtensions" {
			s = v
		}
	}
	names := []protoreflect.Name{"optional_nested_message_extension", "repeated_nested_message_extension",
		"optionalgroup_extension", "repeatedgroup_extension"}
	for _, name := range names {
		var gxt protoreflect.ExtensionType
		for _, x := range s.Open.Exts {
			if x.TypeDescriptor().Name() == name {
				gxt = x
			}
		}
		if gxt == nil {
			t.Fatalf("no extension %s", name)
		}
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
