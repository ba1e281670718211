package engine

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// A message's unknown fields and extensions live in a type record of its
// own: messages made beside it (a decode's, a Merge's, a Clone's) do not
// see them, a copy of its header reads them and takes a record of its
// own before it writes, and Reset drops them from the message alone.
func TestRareInOwnRecord(t *testing.T) {
	md := chainSchema(t, 2)
	unknown := protowire.AppendVarint(protowire.AppendTag(nil, 9, protowire.VarintType), 7)
	elem := func(unk bool) []byte {
		b := protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), 1)
		if unk {
			b = append(b, unknown...)
		}
		return b
	}
	// Three elements of ms, the first alone with unknown fields.
	var in []byte
	for i := range 3 {
		in = protowire.AppendBytes(protowire.AppendTag(in, 5, protowire.BytesType), elem(i == 0))
	}
	src := NewMessage(md)
	if err := proto.Unmarshal(in, src); err != nil {
		t.Fatal(err)
	}
	ms := src.Get(md.Fields().ByNumber(5)).List()
	check := func(what string, l protoreflect.List) {
		t.Helper()
		for i := range l.Len() {
			got := l.Get(i).Message().GetUnknown()
			if want := []byte(nil); i == 0 {
				want = unknown
				if !bytes.Equal(got, want) {
					t.Fatalf("%s: element %d has unknown fields %x, want %x", what, i, got, want)
				}
			} else if len(got) != 0 {
				t.Fatalf("%s: element %d has unknown fields %x, want none", what, i, got)
			}
		}
	}
	check("decoded", ms)
	check("cloned", proto.Clone(src).ProtoReflect().Get(md.Fields().ByNumber(5)).List())
	dst := NewMessage(md)
	proto.Merge(dst, src)
	check("merged", dst.Get(md.Fields().ByNumber(5)).List())

	// A copy of the first element's header.
	first := ms.Get(0).Message().(*Message)
	cp := new(Message)
	*cp = *first
	if !bytes.Equal(cp.GetUnknown(), unknown) {
		t.Fatalf("a copy reads unknown fields %x, want %x", cp.GetUnknown(), unknown)
	}
	cp.SetUnknown(append(cp.GetUnknown(), unknown...))
	if !bytes.Equal(first.GetUnknown(), unknown) || len(cp.GetUnknown()) != 2*len(unknown) {
		t.Fatalf("a copy's write: the original reads %x, the copy %x", first.GetUnknown(), cp.GetUnknown())
	}
	first.Reset()
	if first.GetUnknown() != nil || !bytes.Equal(cp.GetUnknown()[:len(unknown)], unknown) {
		t.Fatal("Reset of the original dropped the copy's unknown fields, or kept its own")
	}
	if next := ms.Get(1).Message(); next.GetUnknown() != nil || next.(*Message).t == first.t {
		t.Fatal("an element made beside one with unknown fields shares its record")
	}
}
