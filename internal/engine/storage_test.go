package engine

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/internal/slots"
)

// A Message header is two words (its type, shared with the messages of
// that type; block) and the direct encoder's size stamp (8 bytes), a
// message type four words (descriptor, shape, rare), a list four
// words (its type, shared with the lists of its field; its one slice),
// a list type three words (descriptor; kind, width and validity), and the
// direct encoder's record of a field 20 bytes (padded to a word) and a
// word.
func TestHeaderSizes(t *testing.T) {
	word := reflect.TypeFor[uintptr]().Size()
	if got, want := reflect.TypeFor[encField]().Size(), (20+word-1)/word*word+word; got != want {
		t.Errorf("encField is %d bytes, want %d", got, want)
	}
	if got := reflect.TypeFor[Message]().Size(); got != 2*word+8 {
		t.Errorf("Message is %d bytes, want %d", got, 2*word+8)
	}
	if got := reflect.TypeFor[msgType]().Size(); got != 4*word {
		t.Errorf("msgType is %d bytes, want %d", got, 4*word)
	}
	if got := reflect.TypeFor[list]().Size(); got != 4*word {
		t.Errorf("list is %d bytes, want %d", got, 4*word)
	}
	if got := reflect.TypeFor[listType]().Size(); got != 3*word {
		t.Errorf("listType is %d bytes, want %d", got, 3*word)
	}
}

// chainSchema returns a message type M0 of a schema of n types M0 ...
// M(n-1), where Mi has a scalar, a string, a repeated string, a message
// field of type M(i+1) and a repeated one (but the last, which has the
// scalars only).
func chainSchema(t *testing.T, n int) protoreflect.MessageDescriptor {
	t.Helper()
	fdp := &descriptorpb.FileDescriptorProto{
		Name:    proto.String("chain.proto"),
		Package: proto.String("chain"),
		Syntax:  proto.String("proto3"),
	}
	field := func(name string, num int32, typ descriptorpb.FieldDescriptorProto_Type, label descriptorpb.FieldDescriptorProto_Label, msg string) *descriptorpb.FieldDescriptorProto {
		f := &descriptorpb.FieldDescriptorProto{Name: proto.String(name), Number: proto.Int32(num), Type: typ.Enum(), Label: label.Enum(), JsonName: proto.String(name)}
		if msg != "" {
			f.TypeName = proto.String(".chain." + msg)
		}
		return f
	}
	opt, rep := descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL, descriptorpb.FieldDescriptorProto_LABEL_REPEATED
	for i := range n {
		m := &descriptorpb.DescriptorProto{Name: proto.String(fmt.Sprintf("M%d", i))}
		m.Field = append(m.Field,
			field("n", 1, descriptorpb.FieldDescriptorProto_TYPE_INT64, opt, ""),
			field("s", 2, descriptorpb.FieldDescriptorProto_TYPE_STRING, opt, ""),
			field("ss", 3, descriptorpb.FieldDescriptorProto_TYPE_STRING, rep, ""))
		if i+1 < n {
			next := fmt.Sprintf("M%d", i+1)
			m.Field = append(m.Field,
				field("m", 4, descriptorpb.FieldDescriptorProto_TYPE_MESSAGE, opt, next),
				field("ms", 5, descriptorpb.FieldDescriptorProto_TYPE_MESSAGE, rep, next))
		}
		fdp.MessageType = append(fdp.MessageType, m)
	}
	fd, err := protodesc.NewFile(fdp, protoregistry.GlobalFiles)
	if err != nil {
		t.Fatal(err)
	}
	return fd.Messages().Get(0)
}

// chainValue encodes a value of Mi of chainSchema(t, n): its scalars and
// width strings, and for i below n-1 a message field holding the value
// of M(i+1) built alike, and width list elements holding values of
// M(i+1) with scalars only.
func chainValue(i, n, width int) []byte {
	return chainValueDepth(i, n, width, n)
}

// chainValueDepth is chainValue, with message fields below type end
// left out.
func chainValueDepth(i, n, width, end int) []byte {
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(i+1))
	b = protowire.AppendTag(b, 2, protowire.BytesType)
	b = protowire.AppendString(b, fmt.Sprintf("s%d", i))
	for k := range width {
		b = protowire.AppendTag(b, 3, protowire.BytesType)
		b = protowire.AppendString(b, fmt.Sprintf("e%d.%d", i, k))
	}
	if i+1 < min(n, end) {
		b = protowire.AppendTag(b, 4, protowire.BytesType)
		b = protowire.AppendBytes(b, chainValueDepth(i+1, n, width, end))
		for range width {
			b = protowire.AppendTag(b, 5, protowire.BytesType)
			b = protowire.AppendBytes(b, chainValueDepth(i+1, n, 1, i+1))
		}
	}
	return b
}

// decodeBoth decodes b into a new Message and a new dynamicpb message of
// md, failing t on either's error.
func decodeBoth(t *testing.T, md protoreflect.MessageDescriptor, b []byte) (*Message, *dynamicpb.Message) {
	t.Helper()
	m, want := NewMessage(md), dynamicpb.NewMessage(md)
	if err := proto.Unmarshal(b, m); err != nil {
		t.Fatal(err)
	}
	if err := proto.Unmarshal(b, want); err != nil {
		t.Fatal(err)
	}
	return m, want
}

// One Unmarshal call over more message types than the arena finds by a
// scan (so that it keeps the others' chunks in its map), with enough
// messages of each to fill several chunks, decodes what dynamicpb does.
func TestArenaManyShapes(t *testing.T) {
	const n = 3 * arenaShapes
	md := chainSchema(t, n)
	b := chainValue(0, n, 6)
	m, want := decodeBoth(t, md, b)
	o := proto.MarshalOptions{Deterministic: true}
	got, err := o.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	exp, _ := o.Marshal(want)
	if !bytes.Equal(got, exp) {
		t.Fatal("re-encoding differs from dynamicpb's")
	}
	// The messages do not share storage: changing one leaves the others.
	ms := m.Get(md.Fields().ByName("ms")).List()
	first, second := ms.Get(0).Message(), ms.Get(1).Message()
	first.Set(first.Descriptor().Fields().ByName("n"), protoreflect.ValueOfInt64(99))
	if second.Get(second.Descriptor().Fields().ByName("n")).Int() == 99 {
		t.Fatal("setting a field of one list element set it in the next")
	}
}

// A list's accessors of the classes it does not hold return nil.
func TestListAccessorsOfOtherClasses(t *testing.T) {
	md := chainSchema(t, 2)
	m := NewMessage(md)
	if err := proto.Unmarshal(chainValue(0, 2, 3), m); err != nil {
		t.Fatal(err)
	}
	ss := m.lists()[m.t.shape.fields[md.Fields().ByName("ss").Index()].slot]
	if len(ss.strs()) != 3 || ss.words() != nil || ss.bytes() != nil || ss.msgs() != nil {
		t.Errorf("list of strings: %d strings, %v %v %v", len(ss.strs()), ss.words(), ss.bytes(), ss.msgs())
	}
	ms := m.lists()[m.t.shape.fields[md.Fields().ByName("ms").Index()].slot]
	if len(ms.msgs()) != 3 || ms.words() != nil || ms.strs() != nil || ms.bytes() != nil {
		t.Errorf("list of messages: %d messages, %v %v %v", len(ms.msgs()), ms.words(), ms.strs(), ms.bytes())
	}
}

// A message makes its record of extensions and unknown fields only when
// it has one, and Reset drops it.
func TestRareMadeWhenNeeded(t *testing.T) {
	md := chainSchema(t, 1)
	m := NewMessage(md)
	if err := proto.Unmarshal(chainValue(0, 1, 2), m); err != nil {
		t.Fatal(err)
	}
	m.SetUnknown(nil)
	if m.rareOf() != nil {
		t.Fatal("a message without unknown fields made its rare record")
	}
	unknown := protowire.AppendVarint(protowire.AppendTag(nil, 9, protowire.VarintType), 1)
	if err := (proto.UnmarshalOptions{Merge: true}).Unmarshal(unknown, m); err != nil {
		t.Fatal(err)
	}
	if m.rareOf() == nil || !bytes.Equal(m.GetUnknown(), unknown) {
		t.Fatalf("unknown fields %x, want %x", m.GetUnknown(), unknown)
	}
	m.Reset()
	if m.rareOf() != nil || m.GetUnknown() != nil || !m.IsValid() {
		t.Fatal("Reset kept the unknown fields, or made the message read-only")
	}
	if z := zeroMessage(md, shapeOf(md)); z.IsValid() || z.words() != nil || z.strs() != nil || z.GetUnknown() != nil {
		t.Fatal("a read-only message has storage")
	}
}

// Where strings hold bytes values, a type's bytes fields take slots among
// its strings, and a oneof's string and bytes members share one: the
// type has no bytes part.
func TestBytesAmongStrings(t *testing.T) {
	fdp := &descriptorpb.FileDescriptorProto{
		Name:    proto.String("sb.proto"),
		Package: proto.String("sb"),
		Syntax:  proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{{
			Name: proto.String("O"),
			Field: []*descriptorpb.FieldDescriptorProto{
				{Name: proto.String("s"), Number: proto.Int32(1), Type: descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum(), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), OneofIndex: proto.Int32(0), JsonName: proto.String("s")},
				{Name: proto.String("b"), Number: proto.Int32(2), Type: descriptorpb.FieldDescriptorProto_TYPE_BYTES.Enum(), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), OneofIndex: proto.Int32(0), JsonName: proto.String("b")},
				{Name: proto.String("c"), Number: proto.Int32(3), Type: descriptorpb.FieldDescriptorProto_TYPE_BYTES.Enum(), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), JsonName: proto.String("c")},
			},
			OneofDecl: []*descriptorpb.OneofDescriptorProto{{Name: proto.String("v")}},
		}},
	}
	fd, err := protodesc.NewFile(fdp, new(protoregistry.Files))
	if err != nil {
		t.Fatal(err)
	}
	s := shapeOf(fd.Messages().Get(0))
	fs, fb, fc := &s.fields[0], &s.fields[1], &s.fields[2]
	if !slots.BytesInStrings {
		if s.counts[classString] != 1 || s.counts[classBytes] != 2 || fb.slot == fc.slot {
			t.Fatalf("strings %d, bytes %d; b in slot %d, c in %d", s.counts[classString], s.counts[classBytes], fb.slot, fc.slot)
		}
		return
	}
	if s.counts[classString] != 2 || s.counts[classBytes] != 0 || fs.slot != fb.slot || fc.slot == fs.slot {
		t.Fatalf("strings %d, bytes %d; s in slot %d, b in %d, c in %d", s.counts[classString], s.counts[classBytes], fs.slot, fb.slot, fc.slot)
	}
}

// A type whose fields are all members of real oneofs keeps no touched
// word: its cases tell which fields were stored to; and a oneof's
// message member keeps its pointer in the oneof's string slot where it
// has one. Decoding, Range, Has, Clear, Equal, Merge and Marshal read
// them as dynamicpb does, the case going from a string to a message and
// back; a type with a field outside the oneofs keeps its touched word.
func TestOneofOnlyNoTouchedWord(t *testing.T) {
	opt := descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL
	field := func(name string, num int32, typ descriptorpb.FieldDescriptorProto_Type, oneof int32, msg string) *descriptorpb.FieldDescriptorProto {
		f := &descriptorpb.FieldDescriptorProto{Name: proto.String(name), Number: proto.Int32(num), Type: typ.Enum(), Label: opt.Enum(), JsonName: proto.String(name)}
		if oneof >= 0 {
			f.OneofIndex = proto.Int32(oneof)
		}
		if msg != "" {
			f.TypeName = proto.String(".oo." + msg)
		}
		return f
	}
	fdp := &descriptorpb.FileDescriptorProto{
		Name:    proto.String("oo.proto"),
		Package: proto.String("oo"),
		Syntax:  proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{{
			Name: proto.String("V"),
			Field: []*descriptorpb.FieldDescriptorProto{
				field("s", 1, descriptorpb.FieldDescriptorProto_TYPE_STRING, 0, ""),
				field("i", 2, descriptorpb.FieldDescriptorProto_TYPE_INT64, 0, ""),
				field("v", 3, descriptorpb.FieldDescriptorProto_TYPE_MESSAGE, 0, "V"),
				field("d", 4, descriptorpb.FieldDescriptorProto_TYPE_DOUBLE, 1, ""),
				field("b", 5, descriptorpb.FieldDescriptorProto_TYPE_BYTES, 1, ""),
			},
			OneofDecl: []*descriptorpb.OneofDescriptorProto{{Name: proto.String("k")}, {Name: proto.String("l")}},
		}, {
			Name: proto.String("W"),
			Field: []*descriptorpb.FieldDescriptorProto{
				field("s", 1, descriptorpb.FieldDescriptorProto_TYPE_STRING, 0, ""),
				field("n", 2, descriptorpb.FieldDescriptorProto_TYPE_INT64, -1, ""),
			},
			OneofDecl: []*descriptorpb.OneofDescriptorProto{{Name: proto.String("k")}},
		}},
	}
	fd, err := protodesc.NewFile(fdp, new(protoregistry.Files))
	if err != nil {
		t.Fatal(err)
	}
	md := fd.Messages().Get(0)
	// V: two cases and the scalar slots of i and d; W: its touched words
	// by index and by position (n comes first in the layout), its case
	// and the slot of n.
	if s := shapeOf(md); !s.oneofOnly || s.words != 4 || s.touched != s.oneofs[0] {
		t.Fatalf("V: oneofOnly %v, %d words, touched at %d, cases at %v", s.oneofOnly, s.words, s.touched, s.oneofs)
	}
	// V's strings: the slot of k (s and v) and that of l (b), and no
	// messages' part, where strings can hold v and b.
	s := shapeOf(md)
	if got, want := s.counts, [numClasses]int32{classString: 2}; slots.BytesInStrings && got != want {
		t.Fatalf("V: parts %v, want %v", got, want)
	}
	if got, want := s.counts, [numClasses]int32{classString: 1, classBytes: 1, classMessage: 1}; !slots.BytesInStrings && got != want {
		t.Fatalf("V: parts %v, want %v", got, want)
	}
	if s := shapeOf(fd.Messages().Get(1)); s.oneofOnly || s.words != 4 {
		t.Fatalf("W: oneofOnly %v, %d words", s.oneofOnly, s.words)
	}

	// s, then i in its place; d; v holding b.
	var in []byte
	in = protowire.AppendTag(in, 1, protowire.BytesType)
	in = protowire.AppendString(in, "x")
	in = protowire.AppendTag(in, 2, protowire.VarintType)
	in = protowire.AppendVarint(in, 7)
	in = protowire.AppendTag(in, 4, protowire.Fixed64Type)
	in = protowire.AppendFixed64(in, 1)
	inner := protowire.AppendTag(nil, 5, protowire.BytesType)
	inner = protowire.AppendBytes(inner, []byte("y"))
	inner = protowire.AppendTag(inner, 3, protowire.BytesType)
	inner = protowire.AppendBytes(inner, nil)
	in = protowire.AppendTag(in, 3, protowire.BytesType)
	in = protowire.AppendBytes(in, inner)

	// The input again, then v cleared by s: k goes back to a string.
	back := protowire.AppendTag(append([]byte(nil), in...), 1, protowire.BytesType)
	back = protowire.AppendString(back, "w")
	for _, b := range [][]byte{back, append(append([]byte(nil), back...), in...)} {
		m, want := decodeBoth(t, md, b)
		if !proto.Equal(m, want) || !proto.Equal(want, m) {
			t.Errorf("%x: not equal to dynamicpb's", b)
		}
		out, _ := proto.MarshalOptions{Deterministic: true}.Marshal(m)
		ref, _ := proto.MarshalOptions{Deterministic: true}.Marshal(want)
		if !bytes.Equal(out, ref) {
			t.Errorf("%x: encodes to %x, want %x", b, out, ref)
		}
	}

	check := func(what string, m *Message) {
		t.Helper()
		want := dynamicpb.NewMessage(md)
		if err := proto.Unmarshal(in, want); err != nil {
			t.Fatal(err)
		}
		// v replaced i, so that the input's last member wins in k.
		var got []protoreflect.Name
		m.Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
			got = append(got, fd.Name())
			return true
		})
		if fmt.Sprint(got) != "[v d]" {
			t.Errorf("%s: Range gives %v, want [v d]", what, got)
		}
		if !proto.Equal(m, want) || !proto.Equal(want, m) {
			t.Errorf("%s: not equal to dynamicpb's", what)
		}
		out, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		ref, _ := proto.MarshalOptions{Deterministic: true}.Marshal(want)
		if !bytes.Equal(out, ref) {
			t.Errorf("%s: encodes to %x, want %x", what, out, ref)
		}
	}
	m := NewMessage(md)
	if err := proto.Unmarshal(in, m); err != nil {
		t.Fatal(err)
	}
	check("decoded", m)
	merged := NewMessage(md)
	proto.Merge(merged, m)
	check("merged", merged)
	set := NewMessage(md)
	set.Set(md.Fields().ByName("s"), protoreflect.ValueOfString("z"))
	set.Set(md.Fields().ByName("v"), protoreflect.ValueOfMessage(m.Get(md.Fields().ByName("v")).Message()))
	set.Set(md.Fields().ByName("d"), protoreflect.ValueOfFloat64(5e-324))
	check("set", set)

	m.Set(md.Fields().ByName("s"), protoreflect.ValueOfString("t"))
	if m.Has(md.Fields().ByName("v")) || m.Get(md.Fields().ByName("s")).String() != "t" || m.Get(md.Fields().ByName("v")).Message().IsValid() {
		t.Error("s set over v: v still set, or s not t")
	}
	m.Clear(md.Fields().ByName("s"))
	m.Clear(md.Fields().ByName("d"))
	if !m.empty() || !proto.Equal(m, NewMessage(md)) {
		t.Error("cleared: not empty")
	}
	m.Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
		t.Errorf("cleared: Range gives %s", fd.Name())
		return true
	})
}
