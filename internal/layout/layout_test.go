package layout_test

import (
	"slices"
	"sync"
	"testing"

	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/protolayout/protolayout/internal/layout"
)

// orderProto declares fields out of number order and two oneofs whose
// declaration order differs from their members' numbers, as in the
// example of docs/semantics.md#field-order.
const orderProto = `
name: "order.proto" package: "lt" syntax: "proto2"
message_type {
  name: "M"
  field { name: "z"  number: 30 label: LABEL_OPTIONAL type: TYPE_INT32 }
  field { name: "s1" number: 1  label: LABEL_OPTIONAL type: TYPE_INT32 oneof_index: 0 }
  field { name: "s9" number: 9  label: LABEL_OPTIONAL type: TYPE_INT32 oneof_index: 0 }
  field { name: "a"  number: 20 label: LABEL_REQUIRED type: TYPE_STRING }
  field { name: "f3" number: 3  label: LABEL_OPTIONAL type: TYPE_INT32 oneof_index: 1 }
  field { name: "b"  number: 10 label: LABEL_REPEATED type: TYPE_SINT64 options { packed: true } }
  field { name: "g"  number: 11 label: LABEL_OPTIONAL type: TYPE_GROUP type_name: ".lt.M.G" }
  field { name: "m"  number: 12 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".lt.M.MEntry" }
  field { name: "self" number: 2048 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".lt.M" }
  nested_type { name: "G" field { name: "x" number: 1 label: LABEL_OPTIONAL type: TYPE_INT32 } }
  nested_type { name: "MEntry" options { map_entry: true }
    field { name: "key" number: 1 label: LABEL_OPTIONAL type: TYPE_STRING }
    field { name: "value" number: 2 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".lt.M" } }
  oneof_decl { name: "second" }
  oneof_decl { name: "first" }
  extension_range { start: 100 end: 200 }
}
`

func load(t testing.TB, src string) protoreflect.FileDescriptor {
	t.Helper()
	fdp := new(descriptorpb.FileDescriptorProto)
	if err := prototext.Unmarshal([]byte(src), fdp); err != nil {
		t.Fatal(err)
	}
	fd, err := protodesc.NewFile(fdp, nil)
	if err != nil {
		t.Fatal(err)
	}
	return fd
}

func TestEmissionOrder(t *testing.T) {
	md := load(t, orderProto).Messages().ByName("M")
	l := layout.Of(md)
	var got []protoreflect.FieldNumber
	for i := range l.Fields {
		got = append(got, l.Fields[i].Number)
	}
	// Fields outside oneofs by number, then oneof "second" (declared
	// first) by number, then oneof "first".
	want := []protoreflect.FieldNumber{10, 11, 12, 20, 30, 2048, 1, 9, 3}
	if !slices.Equal(got, want) {
		t.Fatalf("emission order %v, want %v", got, want)
	}
	if l.Regular != 6 {
		t.Errorf("Regular = %d, want 6", l.Regular)
	}
	if len(l.Oneofs) != 2 || l.Oneofs[0].Name != "second" || l.Oneofs[0].First != 6 || l.Oneofs[0].End != 8 ||
		l.Oneofs[1].Name != "first" || l.Oneofs[1].First != 8 || l.Oneofs[1].End != 9 {
		t.Errorf("oneofs %+v", l.Oneofs)
	}
	if !l.Extendable || !l.Required || l.MessageSet {
		t.Errorf("Extendable %v Required %v MessageSet %v", l.Extendable, l.Required, l.MessageSet)
	}
	for i := range md.Fields().Len() {
		fd := md.Fields().Get(i)
		if f := l.Lookup(fd); f == nil || f.Index != fd.Index() || f.Name != fd.Name() || f.FullName != fd.FullName() {
			t.Errorf("Lookup(%s) = %v", fd.Name(), f)
		}
	}
}

func TestFieldRecords(t *testing.T) {
	md := load(t, orderProto).Messages().ByName("M")
	l := layout.Of(md)
	by := func(n protoreflect.FieldNumber) *layout.Field {
		return l.Lookup(md.Fields().ByNumber(n))
	}
	if f := by(10); !f.List || !f.Packed || string(f.PackedTag) != "\x52" || string(f.Tag) != "\x50" || f.Explicit {
		t.Errorf("b: %+v", f)
	}
	if f := by(11); !f.Group || string(f.Tag) != "\x5b" || string(f.EndTag) != "\x5c" || f.Message() == nil {
		t.Errorf("g: %+v", f)
	}
	if f := by(12); !f.Map || f.List || f.MapKey.Number != 1 || f.MapValue.Number != 2 || string(f.Tag) != "\x62" ||
		f.MapValue.Message() != l || f.Message() != nil {
		t.Errorf("m: %+v", f)
	}
	if f := by(20); !f.Required || f.ValidateUTF8 || !f.Explicit {
		t.Errorf("a (proto2 string): %+v", f)
	}
	if f := by(2048); string(f.Tag) != "\x82\x80\x01" || f.Message() != l {
		t.Errorf("self: tag % x", f.Tag)
	}
	if f := by(1); f.Oneof != 0 || by(3).Oneof != 1 || by(30).Oneof != -1 {
		t.Errorf("oneof indexes %d %d %d", f.Oneof, by(3).Oneof, by(30).Oneof)
	}
}

func TestCacheIdentity(t *testing.T) {
	a := load(t, orderProto).Messages().ByName("M")
	b := load(t, orderProto).Messages().ByName("M")
	if a.FullName() != b.FullName() || a == b {
		t.Fatal("two loads should give distinct descriptors with one name")
	}
	la, lb := layout.Of(a), layout.Of(b)
	if la == lb {
		t.Fatal("two descriptors with the same full name share a layout")
	}
	if layout.Of(a) != la || layout.Of(b) != lb {
		t.Fatal("layouts are not cached")
	}
	if la.FullName != a.FullName() || lb.FullName != b.FullName() {
		t.Fatal("layout has the wrong name")
	}
}

func TestConcurrentFirstUse(t *testing.T) {
	md := load(t, orderProto).Messages().ByName("M")
	const n = 32
	got := make([]*layout.Layout, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			l := layout.Of(md)
			_ = l.Fields[0].Message()
			_ = l.Lookup(md.Fields().ByNumber(2048)).Message()
			got[i] = l
		})
	}
	close(start)
	wg.Wait()
	for i := range got {
		if got[i] != got[0] {
			t.Fatalf("goroutine %d got a different layout", i)
		}
	}
	if layout.Of(md) != got[0] {
		t.Fatal("the stored layout is not the one handed out")
	}
}

func TestRecursiveSchemaTerminates(t *testing.T) {
	md := load(t, orderProto).Messages().ByName("M")
	before := layout.Builds()
	l := layout.Of(md)
	// Following the self reference many times builds nothing new.
	cur := l
	for range 100 {
		cur = cur.Lookup(md.Fields().ByNumber(2048)).Message()
	}
	if cur != l {
		t.Fatal("self reference does not lead back to the same layout")
	}
	// M, its group G and its map entry MEntry (whose value is M), all
	// built by the first Of, once each.
	if d := layout.Builds() - before; d != 3 {
		t.Fatalf("%d layouts built for one recursive message, its group and its map entry; want 3", d)
	}
}

const utf8Proto = `
name: "u.proto" package: "lu" syntax: "editions" edition: EDITION_2023
message_type {
  name: "E"
  field { name: "verify" number: 1 label: LABEL_OPTIONAL type: TYPE_STRING }
  field { name: "none" number: 2 label: LABEL_OPTIONAL type: TYPE_STRING options { features { utf8_validation: NONE } } }
  field { name: "req" number: 3 label: LABEL_OPTIONAL type: TYPE_INT32 options { features { field_presence: LEGACY_REQUIRED } } }
  field { name: "implicit" number: 4 label: LABEL_OPTIONAL type: TYPE_INT32 options { features { field_presence: IMPLICIT } } }
  field { name: "delim" number: 5 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".lu.E" options { features { message_encoding: DELIMITED } } }
  field { name: "expanded" number: 6 label: LABEL_REPEATED type: TYPE_INT32 options { features { repeated_field_encoding: EXPANDED } } }
  field { name: "packed" number: 7 label: LABEL_REPEATED type: TYPE_INT32 }
  extension_range { start: 100 end: 200 }
}
extension { name: "xs" number: 100 label: LABEL_OPTIONAL type: TYPE_STRING extendee: ".lu.E" }
`

func TestEditionsFeatures(t *testing.T) {
	fd := load(t, utf8Proto)
	md := fd.Messages().ByName("E")
	l := layout.Of(md)
	by := func(n protoreflect.FieldNumber) *layout.Field { return l.Lookup(md.Fields().ByNumber(n)) }
	if !by(1).ValidateUTF8 || by(2).ValidateUTF8 {
		t.Errorf("utf8: verify %v none %v", by(1).ValidateUTF8, by(2).ValidateUTF8)
	}
	if !by(3).Required || !l.Required {
		t.Error("LEGACY_REQUIRED not required")
	}
	if by(4).Explicit || !by(1).Explicit {
		t.Error("presence features not applied")
	}
	if !by(5).Group || by(5).Message() != l {
		t.Error("DELIMITED not a group")
	}
	if by(6).Packed || !by(7).Packed {
		t.Error("repeated_field_encoding not applied")
	}
	// Extensions of an editions file are never validated (as in proto.Marshal).
	if x := layout.Extension(fd.Extensions().ByName("xs")); x.ValidateUTF8 || !x.Extension || !x.Explicit {
		t.Errorf("extension record %+v", x)
	}
}

func TestByNumberAndName(t *testing.T) {
	md := load(t, orderProto).Messages().ByName("M")
	l := layout.Of(md)
	if f := l.ByNumber(2048); f == nil || f.Name != "self" {
		t.Errorf("ByNumber(2048) = %v", f)
	}
	if f := l.ByName("s9"); f == nil || f.Number != 9 {
		t.Errorf("ByName(s9) = %v", f)
	}
	if l.ByNumber(4) != nil || l.ByNumber(150) != nil || l.ByName("nope") != nil {
		t.Error("lookup of an undeclared field succeeded")
	}
}

// NumberIndex is the dense part of PositionOfNumber's index: the numbers up
// to the largest at most 1024 (M's 30), with 2048 beyond it in the map.
func TestNumberIndex(t *testing.T) {
	md := load(t, orderProto).Messages().ByName("M")
	l := layout.Of(md)
	x := l.NumberIndex()
	if len(x) != 31 {
		t.Fatalf("dense index of %d numbers, want 31 (0 to 30)", len(x))
	}
	for n := range protoreflect.FieldNumber(3000) {
		want := -1
		if fd := md.Fields().ByNumber(n); fd != nil {
			want = l.Position(fd)
		}
		if got := l.PositionOfNumber(n); got != want {
			t.Errorf("PositionOfNumber(%d) = %d, want %d", n, got, want)
		}
		if int(n) < len(x) && int(x[n])-1 != want {
			t.Errorf("NumberIndex()[%d] = %d, want position %d plus one", n, x[n], want)
		}
	}
	for _, n := range []protoreflect.FieldNumber{-1, 536870911, 1 << 30} {
		if p := l.PositionOfNumber(n); p != -1 {
			t.Errorf("PositionOfNumber(%d) = %d", n, p)
		}
	}
}
