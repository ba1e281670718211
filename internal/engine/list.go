package engine

import (
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/slots"
	"github.com/protolayout/protolayout/internal/wire"
)

// list is the protoreflect.List of a repeated field (or extension): its
// elements in a slice of their class, as a message keeps its fields
// (scalars as words, see toWord; those of 32-bit kinds in 32 bits, as
// wire.WidthOf says), which words, int32s, uint32s, strs, bytes or msgs
// returns, by kind; and its type, which lists of one field share.
type list struct {
	*listType
	// elems holds the one slice of the list's class.
	elems slots.Vec
}

// listType is what the lists of one field share: the field, the kind of
// its elements, and whether the lists can be modified. As a message's
// msgType, it cannot be kept with the field's compiled records, which
// must not reach the descriptor: a decode or a Merge call makes one per
// field it makes lists of (or shares the source's), and a list made on
// its own is allocated with its own.
type listType struct {
	fd   protoreflect.FieldDescriptor
	kind protoreflect.Kind
	// width is the element type of a list of scalars.
	width wire.Width
	// valid is false for the read-only empty list Get returns for an
	// unset field.
	valid bool
}

// init sets t to the type of lists of fd, whose elements are of kind k.
func (t *listType) init(fd protoreflect.FieldDescriptor, k protoreflect.Kind, valid bool) {
	t.fd, t.kind, t.width, t.valid = fd, k, wire.WidthOf(k), valid
}

// aloneList is a list made on its own, with its type.
type aloneList struct {
	t listType
	l list
}

// words returns the elements of a list of scalars of 64-bit kinds;
// int32s and uint32s those of the 32-bit kinds (by l.width), strs, bytes
// and msgs those of lists of the other classes. Each returns nil for a
// list of another class.
func (l *list) words() []uint64 {
	if classOfKind(l.kind) != classScalar || l.width != wire.Wide {
		return nil
	}
	return slots.Get[uint64](&l.elems)
}

func (l *list) int32s() []int32 {
	if classOfKind(l.kind) != classScalar || l.width != wire.Signed32 {
		return nil
	}
	return slots.Get[int32](&l.elems)
}

func (l *list) uint32s() []uint32 {
	if classOfKind(l.kind) != classScalar || l.width != wire.Unsigned32 {
		return nil
	}
	return slots.Get[uint32](&l.elems)
}

// word returns element i of a list of scalars as its word.
func (l *list) word(i int) uint64 {
	switch l.width {
	case wire.Signed32:
		return uint64(l.int32s()[i])
	case wire.Unsigned32:
		return uint64(l.uint32s()[i])
	}
	return l.words()[i]
}

func (l *list) strs() []string {
	if l.kind != protoreflect.StringKind {
		return nil
	}
	return slots.Get[string](&l.elems)
}

func (l *list) bytes() [][]byte {
	if l.kind != protoreflect.BytesKind {
		return nil
	}
	return slots.Get[[]byte](&l.elems)
}

func (l *list) msgs() []*Message {
	if classOfKind(l.kind) != classMessage {
		return nil
	}
	return slots.Get[*Message](&l.elems)
}

// classOfKind returns the class of an element of kind k.
func classOfKind(k protoreflect.Kind) class {
	switch k {
	case protoreflect.StringKind:
		return classString
	case protoreflect.BytesKind:
		return classBytes
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return classMessage
	default:
		return classScalar
	}
}

// setWords stores s as the elements of a list of scalars; setStrs,
// setBytes and setMsgs do so for the other classes.
func (l *list) setWords(s []uint64)   { slots.Set(&l.elems, s) }
func (l *list) setInt32s(s []int32)   { slots.Set(&l.elems, s) }
func (l *list) setUint32s(s []uint32) { slots.Set(&l.elems, s) }
func (l *list) setStrs(s []string)    { slots.Set(&l.elems, s) }
func (l *list) setBytes(s [][]byte)   { slots.Set(&l.elems, s) }
func (l *list) setMsgs(s []*Message)  { slots.Set(&l.elems, s) }

// newList returns a new empty list for fd, whose elements are of kind k.
func newList(fd protoreflect.FieldDescriptor, k protoreflect.Kind) *list {
	a := new(aloneList)
	a.t.init(fd, k, true)
	a.l.listType = &a.t
	return &a.l
}

// readOnlyList returns the read-only empty list of fd, whose elements are
// of kind k.
func readOnlyList(fd protoreflect.FieldDescriptor, k protoreflect.Kind) *list {
	a := new(aloneList)
	a.t.init(fd, k, false)
	a.l.listType = &a.t
	return &a.l
}

// listOf returns v's list if it is one of this package's.
func listOf(v protoreflect.Value) (*list, bool) {
	if !v.IsValid() {
		return nil, false
	}
	l, ok := v.Interface().(*list)
	return l, ok
}

func (l *list) readOnly() {
	if !l.valid {
		panic(errorf("%v: modification of read-only list", l.fd.FullName()))
	}
}

// Len reports the number of elements.
func (l *list) Len() int { return l.elems.Len() }

// Get returns element i; it panics if i is out of range.
func (l *list) Get(i int) protoreflect.Value {
	switch l.kind {
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(l.strs()[i])
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes(l.bytes()[i])
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return protoreflect.ValueOfMessage(l.msgs()[i])
	default:
		return fromWord(l.kind, l.word(i))
	}
}

// Set stores v as element i; it panics if i is out of range or v is not
// a valid element.
func (l *list) Set(i int, v protoreflect.Value) {
	l.readOnly()
	switch l.kind {
	case protoreflect.StringKind:
		x := l.stringOf(v)
		l.strs()[i] = x
	case protoreflect.BytesKind:
		x := l.bytesOf(v)
		l.bytes()[i] = x
	case protoreflect.MessageKind, protoreflect.GroupKind:
		x := checkMessage(l.fd, v)
		l.msgs()[i] = x
	default:
		x := l.wordOf(v)
		switch l.width {
		case wire.Signed32:
			l.int32s()[i] = int32(x)
		case wire.Unsigned32:
			l.uint32s()[i] = uint32(x)
		default:
			l.words()[i] = x
		}
	}
}

// Append adds v at the end; it panics if v is not a valid element.
func (l *list) Append(v protoreflect.Value) {
	l.readOnly()
	switch l.kind {
	case protoreflect.StringKind:
		l.setStrs(append(l.strs(), l.stringOf(v)))
	case protoreflect.BytesKind:
		l.setBytes(append(l.bytes(), l.bytesOf(v)))
	case protoreflect.MessageKind, protoreflect.GroupKind:
		l.setMsgs(append(l.msgs(), checkMessage(l.fd, v)))
	default:
		x := l.wordOf(v)
		switch l.width {
		case wire.Signed32:
			l.setInt32s(append(l.int32s(), int32(x)))
		case wire.Unsigned32:
			l.setUint32s(append(l.uint32s(), uint32(x)))
		default:
			l.setWords(append(l.words(), x))
		}
	}
}

func (l *list) wordOf(v protoreflect.Value) uint64 {
	if !v.IsValid() {
		invalidValue(l.fd)
	}
	w, ok := toWord(l.kind, v)
	if !ok {
		wrongType(l.fd, v)
	}
	return w
}

func (l *list) stringOf(v protoreflect.Value) string {
	if !v.IsValid() || !isString(v) {
		wrongType(l.fd, v)
	}
	return v.String()
}

func (l *list) bytesOf(v protoreflect.Value) []byte {
	if !v.IsValid() {
		invalidValue(l.fd)
	}
	return v.Bytes()
}

// AppendMutable appends a new empty message and returns it; it panics
// for a list of scalars.
func (l *list) AppendMutable() protoreflect.Value {
	if l.fd.Message() == nil {
		panic(errorf("%v: invalid AppendMutable on list with non-message type", l.fd.FullName()))
	}
	l.readOnly()
	m := NewMessage(l.fd.Message())
	l.setMsgs(append(l.msgs(), m))
	return protoreflect.ValueOfMessage(m)
}

// Truncate keeps the first n elements.
func (l *list) Truncate(n int) {
	l.readOnly()
	// Clear what is cut off, so that it is not kept alive.
	switch l.kind {
	case protoreflect.StringKind:
		s := l.strs()
		clear(s[n:])
		l.setStrs(s[:n])
	case protoreflect.BytesKind:
		s := l.bytes()
		clear(s[n:])
		l.setBytes(s[:n])
	case protoreflect.MessageKind, protoreflect.GroupKind:
		s := l.msgs()
		clear(s[n:])
		l.setMsgs(s[:n])
	default:
		switch l.width {
		case wire.Signed32:
			l.setInt32s(l.int32s()[:n])
		case wire.Unsigned32:
			l.setUint32s(l.uint32s()[:n])
		default:
			l.setWords(l.words()[:n])
		}
	}
}

// NewElement returns a new value for an element: the zero value of the
// element kind (an enum's first value), or a new empty message.
func (l *list) NewElement() protoreflect.Value { return newElement(l.fd) }

// IsValid reports whether the list can be modified: false for the
// read-only empty list of an unset field.
func (l *list) IsValid() bool { return l.valid }
