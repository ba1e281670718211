package encoder_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/encoder"
)

// embedSchema loads, anew, a file with message Outer { Inner inner = 1; }
// and Inner { <kind> s = 1; Inner next = 2; }.
func embedSchema(t *testing.T, kind descriptorpb.FieldDescriptorProto_Type) (outer, inner protoreflect.MessageDescriptor) {
	t.Helper()
	opt := descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()
	msg := descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum()
	fdp := &descriptorpb.FileDescriptorProto{
		Name: proto.String("embed.proto"), Package: proto.String("em"), Syntax: proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{
			{Name: proto.String("Outer"), Field: []*descriptorpb.FieldDescriptorProto{
				{Name: proto.String("inner"), JsonName: proto.String("inner"), Number: proto.Int32(1), Label: opt, Type: msg, TypeName: proto.String(".em.Inner")},
			}},
			{Name: proto.String("Inner"), Field: []*descriptorpb.FieldDescriptorProto{
				{Name: proto.String("s"), JsonName: proto.String("s"), Number: proto.Int32(1), Label: opt, Type: kind.Enum()},
				{Name: proto.String("next"), JsonName: proto.String("next"), Number: proto.Int32(2), Label: opt, Type: msg, TypeName: proto.String(".em.Inner")},
			}},
		},
	}
	fd, err := protodesc.NewFile(fdp, nil)
	if err != nil {
		t.Fatal(err)
	}
	return fd.Messages().ByName("Outer"), fd.Messages().ByName("Inner")
}

// TestWriterMessageOfAnotherSchema checks that Message takes a message of
// the field's own descriptor or of another load of the same schema, and
// refuses one of another version of the schema (same full name, a field
// of another kind), whose bytes the field's type would misread.
func TestWriterMessageOfAnotherSchema(t *testing.T) {
	str := descriptorpb.FieldDescriptorProto_TYPE_STRING
	outer, inner := embedSchema(t, str)
	_, sameAgain := embedSchema(t, str)
	_, otherKind := embedSchema(t, descriptorpb.FieldDescriptorProto_TYPE_INT64)

	fill := func(md protoreflect.MessageDescriptor) proto.Message {
		m := dynamicpb.NewMessage(md)
		if md.Fields().ByName("s").Kind() == protoreflect.StringKind {
			m.Set(md.Fields().ByName("s"), protoreflect.ValueOfString("x"))
		} else {
			m.Set(md.Fields().ByName("s"), protoreflect.ValueOfInt64(7))
		}
		next := m.Mutable(md.Fields().ByName("next")).Message()
		next.Set(md.Fields().ByName("s"), m.Get(md.Fields().ByName("s")))
		return m
	}
	want, err := proto.MarshalOptions{Deterministic: true}.Marshal(func() proto.Message {
		o := dynamicpb.NewMessage(outer)
		o.Set(outer.Fields().ByName("inner"), protoreflect.ValueOfMessage(fill(inner).ProtoReflect()))
		return o
	}())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		md   protoreflect.MessageDescriptor
		ok   bool
	}{{"the field's own type", inner, true}, {"another load of the schema", sameAgain, true}, {"another version of the schema", otherKind, false}} {
		w := encoder.NewWriter(outer)
		w.Message(1, fill(c.md))
		got, err := w.Finish()
		if c.ok {
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s: %v, % x; want % x", c.name, err, got, want)
			}
			continue
		}
		if !errors.Is(err, encoder.ErrKindMismatch) || !strings.Contains(err.Error(), "another version of the schema") {
			t.Errorf("%s: %v, want ErrKindMismatch", c.name, err)
		}
	}
}
