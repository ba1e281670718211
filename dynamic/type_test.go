package dynamic_test

import (
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/dynamic"
	"github.com/protolayout/protolayout/protobuftest"
)

// valueDescriptor is a message descriptor that is not a pointer: its
// interface values have no identity, and the module caches nothing of it.
type valueDescriptor struct{ protoreflect.MessageDescriptor }

// TestMessageTypeEqual checks that the message types of one descriptor
// are equal, as NewMessageType documents, whether NewMessageType or a
// message's Type made them, and that each makes messages of its
// descriptor that hold and encode what is set; for every test message
// type, and for a descriptor that is not a pointer.
func TestMessageTypeEqual(t *testing.T) {
	for _, tw := range protobuftest.Twins() {
		md := tw.Dyn.Descriptor()
		descs := []protoreflect.MessageDescriptor{md, valueDescriptor{md}}
		for i, d := range descs {
			a, b := dynamic.NewMessageType(d), dynamic.NewMessageType(d)
			if a != b {
				t.Fatalf("%s (%d): NewMessageType gives unequal types", md.FullName(), i)
			}
			m := a.New()
			if m.Type() != a || dynamic.NewMessage(d).Type() != a || a.Zero().Type() != a {
				t.Fatalf("%s (%d): a message's Type differs from NewMessageType", md.FullName(), i)
			}
			if m.Descriptor() != d || a.Zero().Descriptor() != d {
				t.Fatalf("%s (%d): New or Zero made a message of another descriptor", md.FullName(), i)
			}
			if a.Zero().IsValid() || !m.IsValid() {
				t.Fatalf("%s (%d): Zero valid, or New not valid", md.FullName(), i)
			}
		}
		if dynamic.NewMessageType(md) == dynamic.NewMessageType(valueDescriptor{md}) {
			t.Fatalf("%s: the types of two descriptors are equal", md.FullName())
		}
	}
	// A message New makes holds and encodes what is set, as one of
	// NewMessage does.
	md := protobuftest.TwinByName("protolayout.test3.TestAllTypes").Dyn.Descriptor()
	fd := md.Fields().ByName("optional_int32")
	for i, mt := range []protoreflect.MessageType{dynamic.NewMessageType(md), dynamic.NewMessageType(valueDescriptor{md})} {
		m := mt.New()
		m.Set(fd, protoreflect.ValueOfInt32(150))
		want := dynamic.NewMessage(md)
		want.Set(fd, protoreflect.ValueOfInt32(150))
		got, err := proto.Marshal(m.Interface())
		if err != nil {
			t.Fatal(err)
		}
		if w, _ := proto.Marshal(want); string(got) != string(w) {
			t.Fatalf("type %d: New's message encodes to % x, want % x", i, got, w)
		}
	}
}
