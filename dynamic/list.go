package dynamic

import (
	"google.golang.org/protobuf/reflect/protoreflect"
)

// list is the protoreflect.List of a repeated field (or extension): its
// elements in the slice of their class, as a message keeps its fields
// (scalars as words, see toWord).
type list struct {
	fd   protoreflect.FieldDescriptor
	kind protoreflect.Kind
	// valid is false for the read-only empty list Get returns for an
	// unset field.
	valid bool
	words []uint64
	strs  []string
	bytes [][]byte
	msgs  []*Message
}

// newList returns a new empty list for fd, whose elements are of kind k.
func newList(fd protoreflect.FieldDescriptor, k protoreflect.Kind) *list {
	return &list{fd: fd, kind: k, valid: true}
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
func (l *list) Len() int {
	switch l.kind {
	case protoreflect.StringKind:
		return len(l.strs)
	case protoreflect.BytesKind:
		return len(l.bytes)
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return len(l.msgs)
	default:
		return len(l.words)
	}
}

// Get returns element i; it panics if i is out of range.
func (l *list) Get(i int) protoreflect.Value {
	switch l.kind {
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(l.strs[i])
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes(l.bytes[i])
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return protoreflect.ValueOfMessage(l.msgs[i])
	default:
		return fromWord(l.kind, l.words[i])
	}
}

// Set stores v as element i; it panics if i is out of range or v is not
// a valid element.
func (l *list) Set(i int, v protoreflect.Value) {
	l.readOnly()
	switch l.kind {
	case protoreflect.StringKind:
		l.strs[i] = l.stringOf(v)
	case protoreflect.BytesKind:
		l.bytes[i] = l.bytesOf(v)
	case protoreflect.MessageKind, protoreflect.GroupKind:
		l.msgs[i] = checkMessage(l.fd, v)
	default:
		l.words[i] = l.wordOf(v)
	}
}

// Append adds v at the end; it panics if v is not a valid element.
func (l *list) Append(v protoreflect.Value) {
	l.readOnly()
	switch l.kind {
	case protoreflect.StringKind:
		l.strs = append(l.strs, l.stringOf(v))
	case protoreflect.BytesKind:
		l.bytes = append(l.bytes, l.bytesOf(v))
	case protoreflect.MessageKind, protoreflect.GroupKind:
		l.msgs = append(l.msgs, checkMessage(l.fd, v))
	default:
		l.words = append(l.words, l.wordOf(v))
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
	l.msgs = append(l.msgs, m)
	return protoreflect.ValueOfMessage(m)
}

// Truncate keeps the first n elements.
func (l *list) Truncate(n int) {
	l.readOnly()
	// Clear what is cut off, so that it is not kept alive.
	switch l.kind {
	case protoreflect.StringKind:
		clear(l.strs[n:])
		l.strs = l.strs[:n]
	case protoreflect.BytesKind:
		clear(l.bytes[n:])
		l.bytes = l.bytes[:n]
	case protoreflect.MessageKind, protoreflect.GroupKind:
		clear(l.msgs[n:])
		l.msgs = l.msgs[:n]
	default:
		l.words = l.words[:n]
	}
}

// NewElement returns a new value for an element: the zero value of the
// element kind (an enum's first value), or a new empty message.
func (l *list) NewElement() protoreflect.Value { return newElement(l.fd) }

// IsValid reports whether the list can be modified: false for the
// read-only empty list of an unset field.
func (l *list) IsValid() bool { return l.valid }
