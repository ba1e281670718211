package engine

import (
	"math/bits"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/runtime/protoiface"

	"github.com/protolayout/protolayout/internal/slots"
	"github.com/protolayout/protolayout/internal/wire"
)

// Merge, over the storage: proto.Merge and proto.Clone of a Message into
// a Message of the same type copy its storage field by field, instead of
// going through Range, Set and Mutable. What they do is what the proto
// package's reflective merge does (protoiface's Merge contract):
//
//   - a populated scalar or string of the source is stored in the
//     destination; bytes are copied;
//   - a message field is merged into the destination's, which is made
//     first if it is not set;
//   - the elements of a list are appended, messages and bytes copied;
//   - the entries of a map replace the destination's, messages and bytes
//     copied;
//   - a member of a oneof replaces the destination's other member;
//   - extensions are merged as the proto package merges any field;
//   - unknown fields are appended.
//
// The new messages, lists and copies come from an arena (decode_arena.go),
// as an Unmarshal's do: a clone of a large message costs a few
// allocations per kind of storage, not several per message.

// merge implements protoiface.Methods.Merge. It merges only a *Message
// into a *Message of the same descriptor (whose storage is laid out
// alike, by the same shape or one built from that descriptor again where
// the shape cache cannot hold it), and reports the merge
// incomplete (having changed nothing) for any other source, or a
// read-only destination, which the proto package then merges through
// reflection (where a read-only destination panics).
func merge(in protoiface.MergeInput) protoiface.MergeOutput {
	dst, ok := in.Destination.(*Message)
	if !ok || dst == nil || !dst.IsValid() {
		return protoiface.MergeOutput{}
	}
	src, ok := in.Source.(*Message)
	if !ok || src == nil || dst.t.desc != src.t.desc {
		return protoiface.MergeOutput{}
	}
	var mg merger
	mg.message(dst, src, 0)
	mg.release()
	return protoiface.MergeOutput{Flags: protoiface.MergeComplete}
}

// merger is one Merge call: the arena its new values come from.
type merger struct {
	arena
}

// maxMergeDepth is the deepest nesting a merge follows: deeper, the
// source is taken to contain itself, and the merge panics rather than
// recurse until the stack overflows (which the reflective merge of the
// proto package does on such a message, fatally).
const maxMergeDepth = 1 << 16

// message merges src, at level depth, into dst, which is valid, of the
// same type.
func (mg *merger) message(dst, src *Message, depth int) {
	if !src.IsValid() {
		return
	}
	if depth > maxMergeDepth {
		panic(errorf("%v: merging a message nested more than %d levels deep: it contains itself", src.t.desc.FullName(), maxMergeDepth))
	}
	if !src.shared() {
		dst.own()
	}
	s := src.t.shape
	fields := s.fields
	srcWords := src.words()
	for k := range s.touchedWords() {
		t := s.touchedBits(srcWords, k)
		for ; t != 0; t &= t - 1 {
			i := k*64 + bits.TrailingZeros64(t)
			f := &fields[i]
			if src.has(f, i) {
				mg.field(dst, src, f, i, depth)
			}
		}
	}
	for _, x := range src.exts() {
		if extensionSet(x.fd, x.v) {
			mergeExtension(dst, x.fd, x.v)
		}
	}
	if u := src.GetUnknown(); len(u) > 0 {
		dst.SetUnknown(append(dst.GetUnknown(), u...))
	}
}

// field merges the field at index i, of record f, which is set in src
// (at level depth), into dst.
func (mg *merger) field(dst, src *Message, f *field, i, depth int) {
	switch f.class {
	case classScalar:
		dst.claim(f, i)
		dst.words()[f.slot] = src.words()[f.slot]
	case classString:
		dst.claim(f, i)
		dst.strs()[f.slot] = src.strs()[f.slot]
	case classBytes:
		dst.claim(f, i)
		dst.setBytesAt(f.slot, mg.copyBytes(src.bytesAt(f.slot)))
	case classMessage:
		c := src.msgAt(f.slot)
		if !dst.has(f, i) {
			dst.claim(f, i)
			dst.setMsgAt(f.slot, mg.newMessageOf(c.t))
		}
		mg.into(dst.msgAt(f.slot), c, depth+1)
	case classList:
		l := dst.lists()[f.slot]
		sl := src.lists()[f.slot]
		if l == nil {
			dst.touch(i)
			l = mg.newListOf(sl.listType)
			dst.lists()[f.slot] = l
		}
		mg.list(l, sl, depth+1)
	default:
		mp := dst.maps()[f.slot]
		smp := src.maps()[f.slot]
		if mp == nil {
			dst.touch(i)
			mp = newMap(smp.fd)
			dst.maps()[f.slot] = mp
		}
		mg.mapEntries(mp, smp, depth+1)
	}
}

// into merges c, at level depth, into d, messages of one field. It
// panics if they are of two descriptors, as the reflective merge does (d
// then holds a message of another load of the schema, which Set accepts
// by its name).
func (mg *merger) into(d, c *Message, depth int) {
	if d.t.desc != c.t.desc {
		panic(errorf("%v: merging a message into one of another descriptor of that name", c.t.desc.FullName()))
	}
	mg.message(d, c, depth)
}

// clone returns a copy of c, a message element (at level depth) of a
// list or a map.
func (mg *merger) clone(c *Message, depth int) *Message {
	d := mg.newMessageOf(c.t)
	mg.message(d, c, depth)
	return d
}

// list appends the elements of src, at level depth, to l, lists of one
// field (src may be l itself, whose elements are then appended once).
func (mg *merger) list(l, src *list, depth int) {
	switch classOfKind(l.kind) {
	case classScalar:
		switch l.width {
		case wire.Signed32:
			l.setInt32s(appendScalars(&mg.words, l.int32s(), src.int32s()))
		case wire.Unsigned32:
			l.setUint32s(appendScalars(&mg.words, l.uint32s(), src.uint32s()))
		default:
			l.setWords(appendScalars(&mg.words, l.words(), src.words()))
		}
	case classString:
		l.setStrs(appendAll(&mg.lstrs, l.strs(), src.strs()))
	case classBytes:
		from := src.bytes()
		out := appendAll(&mg.lbytes, l.bytes(), from)
		for j := len(out) - len(from); j < len(out); j++ {
			out[j] = mg.copyBytes(out[j])
		}
		l.setBytes(out)
	default:
		from := src.msgs()
		out := appendAll(&mg.lmsgs, l.msgs(), from)
		for j := len(out) - len(from); j < len(out); j++ {
			out[j] = mg.clone(out[j], depth)
		}
		l.setMsgs(out)
	}
}

// appendAll returns s with the elements of from appended: in place when
// s has room, else in a new array from sl holding exactly both.
func appendAll[T any](sl *slab[T], s, from []T) []T {
	return appendTaking(s, from, func(n int) []T { return sl.take(n, 8, 256) })
}

// appendScalars is appendAll for the elements of lists of scalars, of
// 32 or 64 bits, cut from the slab of words (slots.Elems).
func appendScalars[T wire.Scalars](sl *slab[uint64], s, from []T) []T {
	return appendTaking(s, from, func(n int) []T { return slots.Elems[T](sl.take(wordsFor[T](n), 8, 256))[:n] })
}

// appendTaking returns s with the elements of from appended: in place
// when s has room, else in a new array of exactly both, which take
// returns (n zero Ts).
func appendTaking[T any](s, from []T, take func(n int) []T) []T {
	if len(from) == 0 {
		return s
	}
	if cap(s)-len(s) >= len(from) {
		return append(s, from...)
	}
	r := take(len(s) + len(from))
	copy(r, s)
	copy(r[len(s):], from)
	return r
}

// mapEntries stores the entries of src, at level depth, in mp, maps of
// one field (src may be mp itself), messages and bytes copied.
func (mg *merger) mapEntries(mp, src *dmap, depth int) {
	vk := mp.vd.Kind()
	value := func(v protoreflect.Value) protoreflect.Value {
		switch vk {
		case protoreflect.MessageKind, protoreflect.GroupKind:
			return protoreflect.ValueOfMessage(mg.clone(v.Message().(*Message), depth))
		case protoreflect.BytesKind:
			return protoreflect.ValueOfBytes(mg.copyBytes(v.Bytes()))
		}
		return v
	}
	if src.strs != nil {
		for k, v := range src.strs {
			mp.strs[k] = value(v)
		}
		return
	}
	for k, v := range src.words {
		mp.words[k] = value(v)
	}
}

// mergeExtension merges the value v of the extension fd into dst, as
// the proto package merges a field through reflection.
func mergeExtension(dst *Message, fd protoreflect.FieldDescriptor, v protoreflect.Value) {
	switch {
	case fd.IsList():
		l := dst.Mutable(fd).List()
		from := v.List()
		for j, n := 0, from.Len(); j < n; j++ {
			e := from.Get(j)
			switch {
			case fd.Message() != nil:
				ne := l.NewElement()
				proto.Merge(ne.Message().Interface(), e.Message().Interface())
				l.Append(ne)
			case fd.Kind() == protoreflect.BytesKind:
				l.Append(protoreflect.ValueOfBytes(append([]byte{}, e.Bytes()...)))
			default:
				l.Append(e)
			}
		}
	case fd.Message() != nil:
		proto.Merge(dst.Mutable(fd).Message().Interface(), v.Message().Interface())
	case fd.Kind() == protoreflect.BytesKind:
		dst.Set(fd, protoreflect.ValueOfBytes(append([]byte{}, v.Bytes()...)))
	default:
		dst.Set(fd, v)
	}
}
