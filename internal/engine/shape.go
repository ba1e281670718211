package engine

import (
	"reflect"
	"sync/atomic"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/layout"
	"github.com/protolayout/protolayout/internal/slots"
	"github.com/protolayout/protolayout/internal/weakcache"
)

// class says which of a message's storage slices holds a field's value.
type class uint8

const (
	classScalar  class = iota // words: ints, enums and bools as integers, floats as their bits
	classString               // strs
	classBytes                // bytes
	classMessage              // msgs
	classList                 // lists
	classMap                  // maps
	numClasses
)

// field is the compiled storage of one field: where its value lives and
// how its presence is kept.
type field struct {
	kind  protoreflect.Kind
	class class
	// slot is the index of the value in the slice of its class, or of
	// the class whose part holds it (see partOf; for scalars, in words,
	// past the presence and oneof words). The members of a oneof share
	// one slot per part, since one of them at most is set; a message
	// member of a oneof that keeps a string slot keeps its pointer in that
	// slot's first word, and slot is that word's index for msgAt and
	// setMsgAt, out of the messages' range (see Layout.PointerInString).
	slot int32
	// bit is the index in words of the presence bit of a scalar, string
	// or bytes field with explicit presence outside real oneofs, or -1:
	// for implicit presence the value itself tells (zero is unset),
	// messages are set when their slot is not nil, lists and maps when
	// they are not empty, oneof members when their oneof's case names
	// them.
	bit int32
	// oneof is the index in words of the case of the real oneof holding
	// the field (the set member's index in the descriptor's Fields plus
	// one, or 0), or -1.
	oneof int32
	// pos is the field's position in the layout.
	pos int32
	// child is the shape of a message field's type, linked on first use.
	child atomic.Pointer[shape]
}

// shape is the compiled storage of one message descriptor: a record per
// field, by the field's index in the descriptor's Fields, and the length
// of each storage slice. It holds no descriptor, so that the cache can
// release it with its schema (see internal/weakcache); it is immutable
// once built (but for the child links, which are set once) and shared.
type shape struct {
	layout *layout.Layout
	fields []field
	// words is the length of a message's words: presence bits first
	// (presence words of them), then the touched bits (from word
	// touched on, one bit per field by index: set when the field is
	// stored to, so that Range looks only at fields that may be set),
	// then, in a shape that is not inOrder, the same bits by layout
	// position (from word posTouched on), then one case per real oneof,
	// then the scalar slots. A oneofOnly shape has no touched words:
	// touched is the first case's word, and touchedBits reads the cases.
	words, presence, touched int32
	// posTouched is where the touched bits start again by layout
	// position (bit p for the field at position p), for the encoder, in
	// a shape that is not inOrder; -1 in one that is, whose bits by
	// index are by position already (for the regular fields).
	posTouched int32
	// counts holds the length of each other storage slice, by class
	// (0 for bytes where the strings' part holds them: see partOf).
	counts [numClasses]int32
	// slots lays out a message's storage block: one part per class, by
	// class, of words and counts elements.
	slots slots.Layout
	// zero is a block of slots that stays zero: the block the messages
	// a decode finds empty share, read as any other, until own gives
	// one a block of its own to write to.
	zero slots.Block
	// oneofs holds the index in words of the case of each oneof, by the
	// oneof's index in the descriptor's Oneofs, or -1 for a synthetic
	// oneof (proto3 optional).
	oneofs []int32
	// dec is the decoder's table, built on first use (decode.go).
	dec atomic.Pointer[decodeTable]
	// prog is the direct encoder's program (marshal.go).
	prog *encProgram
	// oneofOnly reports that every field is a member of a real oneof,
	// and there are 64 at most: a message's cases tell which fields were
	// stored to, and it keeps no touched bits (see touchedBits).
	oneofOnly bool
	// inOrder reports that the layout emits the fields outside real
	// oneofs in index order (layout position p holds the field of index
	// p for every p below the layout's Regular), so that the encoder's
	// walker can visit only the touched ones, by their bits.
	inOrder bool
	// messageSet caches whether the type reaches a MessageSet type
	// (reachesMessageSet): 0 not known yet, 1 no, 2 yes.
	messageSet atomic.Int32
	// cached is set for a shape the cache holds, the one shape of its
	// descriptor while the descriptor lives (see shapeOf), which message
	// types may then hold (typeOf).
	cached bool
}

// shapes caches the shape of each message descriptor, by identity.
var shapes weakcache.Cache[*shape]

// shapeOf returns the shape of md, building it on first use. A
// descriptor the cache does not hold (one that is not a pointer, whose
// interface values have no identity) gets a new shape, not cached, from
// every call.
func shapeOf(md protoreflect.MessageDescriptor) *shape {
	if s, ok := shapes.Load(md); ok {
		return s
	}
	b := buildShape(md)
	// Marked before it is published; cleared if the cache did not take
	// it, before anyone else can see it.
	b.cached = true
	s, loaded := shapes.LoadOrStore(md, b)
	if !loaded {
		if c, ok := shapes.Load(md); !ok || c != b {
			b.cached = false
		}
	}
	return s
}

// childShape returns the shape of the message type of f, the record of
// fd, linking it on first use.
func (f *field) childShape(fd protoreflect.FieldDescriptor) *shape {
	if s := f.child.Load(); s != nil {
		return s
	}
	s := shapeOf(fd.Message())
	f.child.Store(s)
	return s
}

// buildShape compiles the storage of md from its layout.
func buildShape(md protoreflect.MessageDescriptor) *shape {
	l := layout.Of(md)
	s := &shape{layout: l, fields: make([]field, len(l.Fields)), inOrder: true}
	for p := range l.Regular {
		if l.Fields[p].Index != p {
			s.inOrder = false
		}
	}

	// Presence bits first, then one case word per real oneof.
	var bits int32
	for i := range l.Fields {
		lf := &l.Fields[i]
		if lf.Presence == layout.PresenceFlag {
			bits++
		}
	}
	s.presence = (bits + 63) / 64
	s.touched = s.presence
	touchedWords := (int32(len(l.Fields)) + 63) / 64
	if l.Regular == 0 && len(l.Fields) > 0 && len(l.Fields) <= 64 {
		s.oneofOnly, touchedWords = true, 0
	}
	cases := s.touched + touchedWords
	s.posTouched = -1
	if !s.inOrder {
		s.posTouched = cases
		cases += touchedWords
	}
	s.words = cases + int32(len(l.Oneofs))
	s.oneofs = make([]int32, md.Oneofs().Len())
	for i := range s.oneofs {
		s.oneofs[i] = -1
	}
	for k, o := range l.Oneofs {
		s.oneofs[o.Index] = cases + int32(k)
	}

	// shared[k][c] is the slot the members of real oneof k keep their
	// values in part c in, plus one; 0 until one is needed. inStrs[k]
	// reports that oneof k has a member whose values are in the strings'
	// part, where its message members then keep theirs.
	shared := make([][numClasses]int32, len(l.Oneofs))
	inStrs := make([]bool, len(l.Oneofs))
	for i := range l.Fields {
		lf := &l.Fields[i]
		if lf.Oneof >= 0 && partOf(classOf(lf)) == classString {
			inStrs[lf.Oneof] = true
		}
	}
	var aliased []*field
	bits = 0
	for i := range l.Fields {
		lf := &l.Fields[i]
		f := &s.fields[lf.Index]
		f.pos = int32(i)
		f.kind = lf.Kind
		f.class = classOf(lf)
		f.bit, f.oneof = -1, -1
		if lf.Presence == layout.PresenceFlag {
			f.bit = bits
			bits++
		}
		part := partOf(f.class)
		if f.class == classMessage && lf.Oneof >= 0 && inStrs[lf.Oneof] && slots.BytesInStrings {
			part = classString
			aliased = append(aliased, f)
		}
		if lf.Oneof >= 0 {
			f.oneof = cases + int32(lf.Oneof)
			if p := shared[lf.Oneof][part]; p > 0 {
				f.slot = p - 1
				continue
			}
		}
		f.slot = s.alloc(part)
		if lf.Oneof >= 0 {
			shared[lf.Oneof][part] = f.slot + 1
		}
	}
	lens := make([]int, numClasses)
	lens[classScalar] = int(s.words)
	for c := classString; c < numClasses; c++ {
		lens[c] = int(s.counts[c])
	}
	s.slots = slots.NewLayout(partTypes, lens)
	s.zero = s.slots.New()
	for _, f := range aliased {
		f.slot = int32(s.slots.PointerInString(int(classString), int(f.slot), int(classMessage)))
	}
	s.prog = buildProgram(s)
	return s
}

// touchedBits returns word k of the touched bits (by field index) of a
// message of shape s whose words are words: in a oneofOnly shape, the
// bits of the members that its oneofs' cases name.
func (s *shape) touchedBits(words []uint64, k int) uint64 {
	if !s.oneofOnly {
		return words[int(s.touched)+k]
	}
	var t uint64
	for _, o := range s.oneofs {
		if o >= 0 && words[o] != 0 {
			t |= 1 << (words[o] - 1)
		}
	}
	return t
}

// touchedWords returns how many words of touched bits touchedBits reads.
func (s *shape) touchedWords() int { return (len(s.fields) + 63) / 64 }

// partTypes are the element types of a message's storage parts, by class.
var partTypes = []reflect.Type{
	classScalar:  reflect.TypeFor[uint64](),
	classString:  reflect.TypeFor[string](),
	classBytes:   reflect.TypeFor[[]byte](),
	classMessage: reflect.TypeFor[*Message](),
	classList:    reflect.TypeFor[*list](),
	classMap:     reflect.TypeFor[*dmap](),
}

// partOf returns the class of the part that holds the values of class
// c: c's own, but for bytes values, which the strings' part holds where
// strings can hold them (see Message.bytesAt).
func partOf(c class) class {
	if c == classBytes && slots.BytesInStrings {
		return classString
	}
	return c
}

// alloc returns a new slot in the part of class c.
func (s *shape) alloc(c class) int32 {
	if c == classScalar {
		s.words++
		return s.words - 1
	}
	s.counts[c]++
	return s.counts[c] - 1
}

// classOf returns the storage class of a field's values.
func classOf(lf *layout.Field) class {
	switch {
	case lf.Map:
		return classMap
	case lf.List:
		return classList
	case lf.IsMessage():
		return classMessage
	case lf.Kind == protoreflect.StringKind:
		return classString
	case lf.Kind == protoreflect.BytesKind:
		return classBytes
	default:
		return classScalar
	}
}

// cached reports how many shapes the cache holds, released or not. Tests
// use it.
func cached() int { return shapes.Len() }
