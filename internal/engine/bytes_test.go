package engine_test

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/dynamic"
	"github.com/protolayout/protolayout/internal/engine"
	"github.com/protolayout/protolayout/protobuftest"
)

// A oneof's string and bytes members, which share a slot where strings
// hold bytes values, replace one another as they are set, decoded and
// merged, and read back as dynamicpb's do: a bytes value nil, empty or
// aliasing the slice that was set.
func TestOneofStringAndBytes(t *testing.T) {
	for _, name := range []protoreflect.FullName{"protolayout.test3.TestAllTypes", "protolayout.test2.TestAllTypes"} {
		md := protobuftest.TwinByName(name).Dyn.Descriptor()
		fs, fb := md.Fields().ByName("oneof_string"), md.Fields().ByName("oneof_bytes")
		m := dynamic.NewMessage(md)
		m.Set(fs, protoreflect.ValueOfString("abc"))
		b := []byte("xyz")
		m.Set(fb, protoreflect.ValueOfBytes(b))
		if m.Has(fs) || !m.Has(fb) || m.WhichOneof(fb.ContainingOneof()) != fb {
			t.Fatalf("%s: setting oneof_bytes left oneof_string set", name)
		}
		if got := m.Get(fs).String(); got != "" {
			t.Fatalf("%s: oneof_string reads %q once oneof_bytes is set", name, got)
		}
		b[0] = 'X'
		if got := m.Get(fb).Bytes(); string(got) != "Xyz" {
			t.Fatalf("%s: oneof_bytes reads %q, not the slice set", name, got)
		}
		m.Set(fb, protoreflect.ValueOfBytes([]byte{}))
		if got := m.Get(fb).Bytes(); got == nil || len(got) != 0 || !m.Has(fb) {
			t.Fatalf("%s: empty oneof_bytes reads %v (nil %v), set %v", name, got, got == nil, m.Has(fb))
		}
		m.Set(fs, protoreflect.ValueOfString("def"))
		if m.Has(fb) || m.Get(fs).String() != "def" || m.Get(fb).Bytes() != nil {
			t.Fatalf("%s: setting oneof_string left oneof_bytes set", name)
		}

		// Decoding and merging: the last member wins.
		one := dynamic.NewMessage(md)
		one.Set(fb, protoreflect.ValueOfBytes([]byte("bytes")))
		in, err := proto.Marshal(one)
		if err != nil {
			t.Fatal(err)
		}
		other := dynamic.NewMessage(md)
		other.Set(fs, protoreflect.ValueOfString("string"))
		more, err := proto.Marshal(other)
		if err != nil {
			t.Fatal(err)
		}
		got := dynamic.NewMessage(md)
		if err := proto.Unmarshal(append(append([]byte(nil), more...), in...), got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Get(fb).Bytes(), []byte("bytes")) || got.Has(fs) || !proto.Equal(got, one) || proto.Equal(got, other) {
			t.Fatalf("%s: decoded string then bytes: %v", name, got)
		}
		proto.Merge(got, other)
		if got.Get(fs).String() != "string" || got.Has(fb) || !proto.Equal(got, other) {
			t.Fatalf("%s: merged a string over bytes: %v", name, got)
		}
		clone := proto.Clone(one).(*dynamic.Message)
		if !bytes.Equal(clone.Get(fb).Bytes(), []byte("bytes")) || !proto.Equal(clone, one) {
			t.Fatalf("%s: clone %v", name, clone)
		}
	}
}

// The lists one decode makes have the type of their own field, however
// the arena's cache of list types collides: storing a decoded list back
// in its field is allowed. Two messages' lists of one field share one
// type when the type's list fields fit in the cache, as
// TestAllTypes's do (fewer than arenaListTypes, with consecutive ids).
func TestDecodedListTypes(t *testing.T) {
	md := protobuftest.TwinByName("protolayout.test3.TestAllTypes").Dyn.Descriptor()
	one := dynamic.NewMessage(md)
	protobuftest.Fill(one, 3, protobuftest.RandOptions{})
	fds := md.Fields()
	for i := range fds.Len() {
		if fd := fds.Get(i); fd.IsList() && !one.Has(fd) {
			l := one.Mutable(fd).List()
			l.Append(l.NewElement())
		}
	}
	in, err := proto.Marshal(one)
	if err != nil {
		t.Fatal(err)
	}
	nested := md.Fields().ByName("singular_nested_message")
	corecursive := nested.Message().Fields().ByName("corecursive")
	two := dynamic.NewMessage(md)
	two.Mutable(nested).Message().Set(corecursive, protoreflect.ValueOfMessage(one))
	in2, err := proto.Marshal(two)
	if err != nil {
		t.Fatal(err)
	}
	got := dynamic.NewMessage(md)
	if err := proto.Unmarshal(append(in, in2...), got); err != nil {
		t.Fatal(err)
	}
	inner := got.Get(nested).Message().Get(corecursive).Message().Interface().(*dynamic.Message)
	lists := 0
	for i := range fds.Len() {
		fd := fds.Get(i)
		if !fd.IsList() {
			continue
		}
		lists++
		l, il := got.Get(fd).List(), inner.Get(fd).List()
		if engine.ListType(l) != engine.ListType(il) {
			t.Errorf("%s: two decoded lists of the field have two types", fd.Name())
		}
		got.Set(fd, protoreflect.ValueOfList(l)) // panics if l is another field's
		inner.Set(fd, protoreflect.ValueOfList(il))
	}
	if lists < 20 || !proto.Equal(inner, one) {
		t.Fatalf("%d list fields; the nested message differs from the one encoded", lists)
	}
}
