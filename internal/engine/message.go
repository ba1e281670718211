package engine

import (
	"cmp"
	"math/bits"
	"slices"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/runtime/protoiface"
	"google.golang.org/protobuf/runtime/protoimpl"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/internal/slots"
)

// Message is dynamic.Message, which documents it: a message of a type
// known only at run time, stored in one block laid out per type.
type Message struct {
	// stored marks the type for the walker and the size pass (see
	// cursor.Stored); it takes no space.
	//lint:ignore U1000 read through its promoted method, by cursor.StoredOf
	stored
	// t is the message's type: its descriptor and shape, which the
	// messages of one type share, so that a message holds one pointer
	// for both (see msgType).
	t *msgType
	// block holds the message's storage, laid out by shape.slots: the
	// parts that words, strs, bytes, msgs, lists and maps return. It is
	// nil for a read-only empty message (Zero, or Get of an unset message
	// field), which has no storage; that is what IsValid reports.
	block slots.Block
	// size is the size the direct encoder last counted (marshal.go).
	size sizeStamp
}

// msgType is what the messages of one type share: the descriptor and
// its shape. It cannot be kept in the shape, which the shape cache holds
// and which so must not reach the descriptor (see internal/weakcache):
// each call that makes messages of a type makes one for them (a decode
// or Merge call cuts them from a chunk of its own), or shares another
// message's, and the messages keep it, and so their descriptor, alive.
//
// A message that stores an extension or unknown fields gets a record of
// its own first, whose rare holds them (see rareOf and ownRare): what
// few messages have costs the others no word in their headers. A record
// with rare is never shared with the messages a call makes.
type msgType struct {
	desc  protoreflect.MessageDescriptor
	shape *shape
	rare  *rare
}

// rare is the part of a Message's state that most messages lack.
type rare struct {
	// owner is the message whose record holds this one: the only one
	// that may change it in place (a copy of the message's header reads
	// it, and takes a record of its own before it writes).
	owner *Message
	// ext holds the extensions set, in ascending number (the order
	// they are written in); nil until one is.
	ext     []extension
	unknown protoreflect.RawFields
}

// ownedType is a message's record of its own, with its rare part.
type ownedType struct {
	t msgType
	r rare
}

// rareOf returns m's extensions and unknown fields, or nil if it has
// none.
func (m *Message) rareOf() *rare { return m.t.rare }

// ownRare returns m's extensions and unknown fields for writing: first
// giving m a record of its own, which starts as a copy of the one it
// read, unless it has one.
func (m *Message) ownRare() *rare {
	if r := m.t.rare; r != nil && r.owner == m {
		return r
	}
	o := new(ownedType)
	o.t = msgType{desc: m.t.desc, shape: m.t.shape, rare: &o.r}
	o.r.owner = m
	if r := m.t.rare; r != nil {
		o.r.ext = slices.Clone(r.ext)
		o.r.unknown = slices.Clone(r.unknown)
	}
	m.t = &o.t
	return &o.r
}

// dropRare removes m's extensions and unknown fields.
func (m *Message) dropRare() {
	r := m.t.rare
	switch {
	case r == nil:
	case r.owner == m:
		m.t.rare = nil
	default:
		m.t = &msgType{desc: m.t.desc, shape: m.t.shape}
	}
}

// words returns m's presence bits, oneof cases and scalar values (see
// shape); the other accessors return the parts holding one class of
// values each. A part whose class the message type lacks, or any part of
// a read-only message, is nil.
func (m *Message) words() []uint64 {
	return slots.Part[uint64](m.block, &m.t.shape.slots, int(classScalar))
}

// strs returns m's string values.
func (m *Message) strs() []string {
	return slots.Part[string](m.block, &m.t.shape.slots, int(classString))
}

// bytes returns m's bytes values, in a build whose strings cannot hold
// them (see bytesAt); nil in the others.
func (m *Message) bytes() [][]byte {
	return slots.Part[[]byte](m.block, &m.t.shape.slots, int(classBytes))
}

// bytesAt returns the bytes value in slot i: of the strs, where strings
// can hold bytes values (slots.BytesInStrings, which saves a word a
// value, and lets a oneof's string and bytes members share a slot), or
// of the bytes.
func (m *Message) bytesAt(i int32) []byte {
	if slots.BytesInStrings {
		return slots.LoadBytes(&m.strs()[i])
	}
	return m.bytes()[i]
}

// setBytesAt stores b in slot i of the bytes values (see bytesAt).
func (m *Message) setBytesAt(i int32, b []byte) {
	if slots.BytesInStrings {
		slots.StoreBytes(&m.strs()[i], b)
		return
	}
	m.bytes()[i] = b
}

// msgs returns m's message values.
func (m *Message) msgs() []*Message {
	return slots.Part[*Message](m.block, &m.t.shape.slots, int(classMessage))
}

// strAt, msgAt, listAt and mapAt return the value in slot i of m's
// strings, messages, lists and maps, without the checks of strs()[i] and
// its kin: for the encoder's passes, which read a valid message (one
// with a block) at the slots its shape compiled.
func (m *Message) strAt(i int32) string {
	return slots.At[string](m.block, &m.t.shape.slots, int(classString), int(i))
}

func (m *Message) msgAt(i int32) *Message {
	return slots.At[*Message](m.block, &m.t.shape.slots, int(classMessage), int(i))
}

// setMsgAt stores x in slot i of m's messages, as msgAt reads it. (A
// message field's slot may be out of msgs()'s range: see field.slot.)
func (m *Message) setMsgAt(i int32, x *Message) {
	*m.msgSlot(i) = x
}

// strSlot returns the address of slot i of m's strings, m valid: strs()[i]
// without strs's checks.
func (m *Message) strSlot(i int32) *string {
	return slots.Ptr[string](m.block, &m.t.shape.slots, int(classString), int(i))
}

// msgSlot returns the address of slot i of m's messages, as msgAt reads
// it.
func (m *Message) msgSlot(i int32) **Message {
	return slots.Ptr[*Message](m.block, &m.t.shape.slots, int(classMessage), int(i))
}

func (m *Message) listAt(i int32) *list {
	return slots.At[*list](m.block, &m.t.shape.slots, int(classList), int(i))
}

// listSlot returns the address of slot i of m's lists, m valid.
func (m *Message) listSlot(i int32) **list {
	return slots.Ptr[*list](m.block, &m.t.shape.slots, int(classList), int(i))
}

func (m *Message) mapAt(i int32) *dmap {
	return slots.At[*dmap](m.block, &m.t.shape.slots, int(classMap), int(i))
}

// lists returns m's lists.
func (m *Message) lists() []*list {
	return slots.Part[*list](m.block, &m.t.shape.slots, int(classList))
}

// maps returns m's maps.
func (m *Message) maps() []*dmap {
	return slots.Part[*dmap](m.block, &m.t.shape.slots, int(classMap))
}

// exts returns m's extensions in ascending number, or nil.
func (m *Message) exts() []extension {
	if r := m.rareOf(); r != nil {
		return r.ext
	}
	return nil
}

// ext returns the extension numbered num, if m has one.
func (m *Message) ext(num protoreflect.FieldNumber) (extension, bool) {
	xs := m.exts()
	if i, ok := findExt(xs, num); ok {
		return xs[i], true
	}
	return extension{}, false
}

// findExt returns the index of the extension numbered num in xs, sorted
// by number, or where it would go.
func findExt(xs []extension, num protoreflect.FieldNumber) (int, bool) {
	if n := len(xs); n == 0 || xs[n-1].num < num {
		return n, false // the common case of a decode: in order
	}
	return slices.BinarySearchFunc(xs, num, func(x extension, num protoreflect.FieldNumber) int {
		return cmp.Compare(x.num, num)
	})
}

// setExt stores x as the extension numbered x.num.
func (m *Message) setExt(x extension) {
	x.rec = extField(x.fd)
	r := m.ownRare()
	i, ok := findExt(r.ext, x.num)
	if ok {
		r.ext[i] = x
		return
	}
	r.ext = slices.Insert(r.ext, i, x)
}

// clearExt removes the extension numbered num.
func (m *Message) clearExt(num protoreflect.FieldNumber) {
	if _, ok := findExt(m.exts(), num); !ok {
		return
	}
	r := m.ownRare()
	if i, ok := findExt(r.ext, num); ok {
		r.ext = slices.Delete(r.ext, i, i+1)
	}
}

// appendUnknown appends raw to m's unknown fields.
func (m *Message) appendUnknown(raw []byte) {
	r := m.ownRare()
	r.unknown = append(r.unknown, raw...)
}

// extension is a set extension field: its number, the descriptor it was
// set with, its value, and the direct encoder's record of it (found once,
// when the extension is stored, rather than by each pass of each
// encoding).
type extension struct {
	num protoreflect.FieldNumber
	fd  protoreflect.FieldDescriptor
	v   protoreflect.Value
	rec *encField
}

var (
	_ protoreflect.Message      = (*Message)(nil)
	_ protoreflect.ProtoMessage = (*Message)(nil)
	_ protoiface.MessageV1      = (*Message)(nil)
)

// NewMessage returns a new empty message of the type md describes.
func NewMessage(md protoreflect.MessageDescriptor) *Message {
	return newMessage(md, shapeOf(md))
}

// alone is a message made on its own, with its type.
type alone struct {
	t msgType
	m Message
}

// newMessage returns a new empty message of md, whose shape is s: its
// type, header and block in one allocation.
func newMessage(md protoreflect.MessageDescriptor, s *shape) *Message {
	a, b := slots.NewHeaded[alone](&s.slots)
	a.t = msgType{desc: md, shape: s}
	a.m.t, a.m.block = &a.t, b
	return &a.m
}

// zeroMessage returns the read-only empty message of md, whose shape is
// s.
func zeroMessage(md protoreflect.MessageDescriptor, s *shape) *Message {
	a := &alone{t: msgType{desc: md, shape: s}}
	a.m.t = &a.t
	return &a.m
}

// ProtoMessage implements the legacy message interface.
func (m *Message) ProtoMessage() {}

// ProtoReflect implements [protoreflect.ProtoMessage]: it returns m.
func (m *Message) ProtoReflect() protoreflect.Message { return m }

// String returns a text representation of m, as generated messages'
// String methods do; its format is not stable.
func (m *Message) String() string { return protoimpl.X.MessageStringOf(m) }

// Reset clears every field of m, keeping its type. A read-only empty
// message becomes an empty message that can be set.
func (m *Message) Reset() {
	switch {
	case !m.IsValid():
		m.block = m.t.shape.slots.New()
	case !m.shared():
		clear(m.words())
		clear(m.strs())
		clear(m.bytes())
		clear(m.msgs())
		clear(m.lists())
		clear(m.maps())
	}
	m.dropRare()
}

// Descriptor returns the message descriptor.
func (m *Message) Descriptor() protoreflect.MessageDescriptor { return m.t.desc }

// Type returns the message type, which is NewMessageType(m.Descriptor()).
func (m *Message) Type() protoreflect.MessageType { return typeOf(m.t.desc, m.t.shape) }

// New returns a new empty message of the same type.
func (m *Message) New() protoreflect.Message { return newMessage(m.t.desc, m.t.shape) }

// Interface returns m.
func (m *Message) Interface() protoreflect.ProtoMessage { return m }

// ProtoMethods returns the fast-path methods of the proto package: Size
// and Marshal encode m with protolayout's encoder (the checked walk, with
// its limits: see package encoder), and Unmarshal and CheckInitialized
// decode into and check its storage directly, so that proto.Marshal,
// proto.Size, proto.Unmarshal and proto.CheckInitialized do, and Merge
// copies a Message of the same type field by field, so that proto.Merge
// and proto.Clone do, and Equal compares two Messages' storage, so that
// proto.Equal does. Every Message returns the same pointer.
func (m *Message) ProtoMethods() *protoiface.Methods { return Methods }

// field returns the record of fd, a field of m's type, or nil if fd is
// an extension of m's type. It panics if fd is neither, as
// protoreflect's contract asks: a field of another message, or of the
// same message from another load of its schema.
func (m *Message) field(fd protoreflect.FieldDescriptor) *field {
	if fd.IsExtension() {
		if fd.ContainingMessage().FullName() != m.t.desc.FullName() {
			panic(errorf("%v: extension field descriptor does not extend %v", fd.FullName(), m.t.desc.FullName()))
		}
		if _, ok := fd.(protoreflect.ExtensionTypeDescriptor); !ok {
			panic(errorf("%v: extension field descriptor does not implement ExtensionTypeDescriptor", fd.FullName()))
		}
		return nil
	}
	i := fd.Index()
	if fd.Parent() != m.t.desc {
		fields := m.t.desc.Fields()
		if i < 0 || i >= fields.Len() || fields.Get(i) != fd {
			panic(errorf("%v: field descriptor does not belong to this message", fd.FullName()))
		}
	}
	return &m.t.shape.fields[i]
}

// readOnly panics: m cannot be modified.
func (m *Message) readOnly(name protoreflect.FullName) {
	panic(errorf("%v: modification of read-only message", name))
}

// has reports whether f, the record of the field at index i, is set in
// m, which is valid.
func (m *Message) has(f *field, i int) bool {
	if f.oneof >= 0 {
		return m.words()[f.oneof] == uint64(i)+1
	}
	if f.bit >= 0 {
		return m.words()[f.bit>>6]&(1<<(f.bit&63)) != 0
	}
	switch f.class {
	case classScalar:
		return m.words()[f.slot] != 0
	case classString:
		return m.strs()[f.slot] != ""
	case classBytes:
		return len(m.bytesAt(f.slot)) > 0
	case classMessage:
		return m.msgAt(f.slot) != nil
	case classList:
		l := m.lists()[f.slot]
		return l != nil && l.Len() > 0
	default:
		mp := m.maps()[f.slot]
		return mp != nil && mp.Len() > 0
	}
}

// claim marks f, the record of the field at index i, as set: its
// presence bit, or its oneof's case, after clearing the member of the
// oneof set before (whose slot f may share).
func (m *Message) claim(f *field, i int) {
	m.touch(i)
	if f.oneof >= 0 {
		if c := m.words()[f.oneof]; c != 0 && c != uint64(i)+1 {
			m.clearSlot(&m.t.shape.fields[c-1])
		}
		m.words()[f.oneof] = uint64(i) + 1
		return
	}
	if f.bit >= 0 {
		m.words()[f.bit>>6] |= 1 << (f.bit & 63)
	}
}

// touch marks the field at index i as stored to: its touched bit, and
// its bit by position where the shape keeps those.
func (m *Message) touch(i int) {
	words, s := m.words(), m.t.shape
	if s.oneofOnly {
		return
	}
	words[int(s.touched)+i>>6] |= 1 << (i & 63)
	if s.posTouched >= 0 {
		p := int(s.fields[i].pos)
		words[int(s.posTouched)+p>>6] |= 1 << (p & 63)
	}
}

// clearSlot empties the value slot of f.
func (m *Message) clearSlot(f *field) {
	switch f.class {
	case classScalar:
		m.words()[f.slot] = 0
	case classString:
		m.strs()[f.slot] = ""
	case classBytes:
		m.setBytesAt(f.slot, nil)
	case classMessage:
		m.setMsgAt(f.slot, nil)
	case classList:
		m.lists()[f.slot] = nil
	default:
		m.maps()[f.slot] = nil
	}
}

// Range calls f for every populated field, extensions included, until f
// returns false: fields in the descriptor's order, then extensions in
// ascending number. f may clear or set the field it is given, and no
// other.
func (m *Message) Range(f func(protoreflect.FieldDescriptor, protoreflect.Value) bool) {
	if !m.IsValid() {
		return
	}
	s := m.t.shape
	fields := s.fields
	var fds protoreflect.FieldDescriptors
	for k := range s.touchedWords() {
		for t := s.touchedBits(m.words(), k); t != 0; {
			i := k*64 + bits.TrailingZeros64(t)
			t &= t - 1
			r := &fields[i]
			if !m.has(r, i) {
				continue
			}
			if fds == nil {
				fds = m.t.desc.Fields()
			}
			if !f(fds.Get(i), m.value(r)) {
				return
			}
		}
	}
	for i := 0; i < len(m.exts()); i++ {
		x := m.exts()[i]
		if extensionSet(x.fd, x.v) && !f(x.fd, x.v) {
			return
		}
		// f may have cleared x, and the next one moved to i.
		if xs := m.exts(); i >= len(xs) || xs[i].num != x.num {
			i--
		}
	}
}

// extensionSet reports whether v, the value of the extension fd, counts
// as populated: a non-empty list, or any other value.
func extensionSet(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
	if fd.IsList() {
		return v.List().Len() > 0
	}
	if fd.IsMap() {
		return v.Map().Len() > 0
	}
	return true
}

// value returns the stored value of f, which is set in m.
func (m *Message) value(f *field) protoreflect.Value {
	switch f.class {
	case classScalar:
		return fromWord(f.kind, m.words()[f.slot])
	case classString:
		return protoreflect.ValueOfString(m.strs()[f.slot])
	case classBytes:
		return protoreflect.ValueOfBytes(m.bytesAt(f.slot))
	case classMessage:
		return protoreflect.ValueOfMessage(m.msgAt(f.slot))
	case classList:
		return protoreflect.ValueOfList(m.lists()[f.slot])
	default:
		return protoreflect.ValueOfMap(m.maps()[f.slot])
	}
}

// Has reports whether fd is populated. It panics if fd is not a field or
// an extension of m's type.
func (m *Message) Has(fd protoreflect.FieldDescriptor) bool {
	f := m.field(fd)
	if f == nil {
		x, ok := m.ext(fd.Number())
		return ok && x.fd == fd && extensionSet(fd, x.v)
	}
	return m.IsValid() && m.has(f, fd.Index())
}

// Clear clears fd, so that Has reports false for it. It panics if fd is
// not a field or an extension of m's type. On a read-only message, which
// has nothing set, it does nothing, as dynamicpb's does.
func (m *Message) Clear(fd protoreflect.FieldDescriptor) {
	f := m.field(fd)
	if f == nil {
		m.clearExt(fd.Number())
		return
	}
	if !m.IsValid() || m.shared() {
		return
	}
	i := fd.Index()
	switch {
	case f.oneof >= 0:
		if m.words()[f.oneof] != uint64(i)+1 {
			return
		}
		m.words()[f.oneof] = 0
	case f.bit >= 0:
		m.words()[f.bit>>6] &^= 1 << (f.bit & 63)
	}
	m.clearSlot(f)
}

// Get returns the value of fd: its value if populated; otherwise its
// default for a scalar, and a read-only empty message, list or map for a
// composite field. It panics if fd is not a field or an extension of m's
// type.
func (m *Message) Get(fd protoreflect.FieldDescriptor) protoreflect.Value {
	f := m.field(fd)
	if f == nil {
		if x, ok := m.ext(fd.Number()); ok && x.fd == fd {
			return x.v
		}
		return fd.(protoreflect.ExtensionTypeDescriptor).Type().Zero()
	}
	if m.IsValid() {
		i := fd.Index()
		switch f.class {
		case classScalar:
			if f.bit < 0 && f.oneof < 0 || m.has(f, i) {
				return fromWord(f.kind, m.words()[f.slot])
			}
		case classString:
			if f.bit < 0 && f.oneof < 0 || m.has(f, i) {
				return protoreflect.ValueOfString(m.strs()[f.slot])
			}
		case classBytes:
			if f.bit < 0 && f.oneof < 0 || m.has(f, i) {
				return protoreflect.ValueOfBytes(m.bytesAt(f.slot))
			}
		default:
			if m.has(f, i) {
				return m.value(f)
			}
		}
	}
	switch f.class {
	case classMessage:
		return protoreflect.ValueOfMessage(zeroMessage(fd.Message(), f.childShape(fd)))
	case classList:
		return protoreflect.ValueOfList(readOnlyList(fd, f.kind))
	case classMap:
		return protoreflect.ValueOfMap(&dmap{fd: fd})
	case classBytes:
		return protoreflect.ValueOfBytes(append([]byte(nil), fd.Default().Bytes()...))
	default:
		return fd.Default()
	}
}

// Set stores v in fd. It panics if fd is not a field or an extension of
// m's type, if v is not a valid value of fd's type (for a message field,
// a *Message of the field's message type; for a list or a map, one that
// NewField or Mutable returned for fd), or if m is read-only. Setting a
// member of a oneof clears the member set before.
func (m *Message) Set(fd protoreflect.FieldDescriptor, v protoreflect.Value) {
	f := m.field(fd)
	if !m.IsValid() {
		m.readOnly(fd.FullName())
	}
	if f == nil {
		m.setExtension(fd, v)
		return
	}
	m.own()
	i := fd.Index()
	switch f.class {
	case classScalar:
		if !v.IsValid() {
			invalidValue(fd)
		}
		w, ok := toWord(f.kind, v)
		if !ok {
			wrongType(fd, v)
		}
		m.claim(f, i)
		m.words()[f.slot] = w
	case classString:
		if !v.IsValid() || !isString(v) {
			wrongType(fd, v)
		}
		m.claim(f, i)
		m.strs()[f.slot] = v.String()
	case classBytes:
		if !v.IsValid() {
			invalidValue(fd)
		}
		b := v.Bytes()
		m.claim(f, i)
		m.setBytesAt(f.slot, b)
	case classMessage:
		x := checkMessage(fd, v)
		m.claim(f, i)
		m.setMsgAt(f.slot, x)
	case classList:
		l, ok := listOf(v)
		if !ok || l.fd != fd || !l.IsValid() {
			wrongType(fd, v)
		}
		m.touch(i)
		m.lists()[f.slot] = l
	default:
		mp, ok := mapOf(v)
		if !ok || mp.fd != fd || !mp.IsValid() {
			wrongType(fd, v)
		}
		m.touch(i)
		m.maps()[f.slot] = mp
	}
}

// setExtension stores v in the extension fd.
func (m *Message) setExtension(fd protoreflect.FieldDescriptor, v protoreflect.Value) {
	xt := fd.(protoreflect.ExtensionTypeDescriptor).Type()
	valid := xt.IsValidValue(v)
	if valid {
		switch {
		case fd.IsList():
			valid = v.List().IsValid()
		case fd.IsMap():
			valid = v.Map().IsValid()
		case fd.Message() != nil:
			valid = v.Message().IsValid()
		}
	}
	if !valid {
		wrongType(fd, v)
	}
	m.setExt(extension{num: fd.Number(), fd: fd, v: v})
}

// Mutable returns a mutable reference to fd, a message, list or map
// field, storing a new empty value first if fd is not populated (a list
// or map stored empty stays stored). It panics if fd is not a field or
// an extension of m's type, if fd is a scalar field, or if m is
// read-only.
func (m *Message) Mutable(fd protoreflect.FieldDescriptor) protoreflect.Value {
	f := m.field(fd)
	if !fd.IsMap() && !fd.IsList() && fd.Message() == nil {
		panic(errorf("%v: getting mutable reference to non-composite type", fd.FullName()))
	}
	if !m.IsValid() {
		m.readOnly(fd.FullName())
	}
	if f == nil {
		num := fd.Number()
		if x, ok := m.ext(num); ok && x.fd == fd {
			return x.v
		}
		v := fd.(protoreflect.ExtensionTypeDescriptor).Type().New()
		m.setExt(extension{num: num, fd: fd, v: v})
		return v
	}
	m.own()
	switch f.class {
	case classMessage:
		i := fd.Index()
		if !m.has(f, i) {
			m.claim(f, i)
			m.setMsgAt(f.slot, newMessage(fd.Message(), f.childShape(fd)))
		}
		return protoreflect.ValueOfMessage(m.msgAt(f.slot))
	case classList:
		if m.lists()[f.slot] == nil {
			m.touch(fd.Index())
			m.lists()[f.slot] = newList(fd, f.kind)
		}
		return protoreflect.ValueOfList(m.lists()[f.slot])
	default:
		if m.maps()[f.slot] == nil {
			m.touch(fd.Index())
			m.maps()[f.slot] = newMap(fd)
		}
		return protoreflect.ValueOfMap(m.maps()[f.slot])
	}
}

// NewField returns a new value assignable to fd: a new empty message,
// list or map for a composite field, the default value of a scalar one.
// It panics if fd is not a field or an extension of m's type.
func (m *Message) NewField(fd protoreflect.FieldDescriptor) protoreflect.Value {
	f := m.field(fd)
	if f == nil {
		return fd.(protoreflect.ExtensionTypeDescriptor).Type().New()
	}
	switch f.class {
	case classMessage:
		return protoreflect.ValueOfMessage(newMessage(fd.Message(), f.childShape(fd)))
	case classList:
		return protoreflect.ValueOfList(newList(fd, f.kind))
	case classMap:
		return protoreflect.ValueOfMap(newMap(fd))
	default:
		return fd.Default()
	}
}

// WhichOneof returns the populated field of od, or nil if none is. It
// panics if od is not a oneof of m's type.
func (m *Message) WhichOneof(od protoreflect.OneofDescriptor) protoreflect.FieldDescriptor {
	if od.Parent() != m.t.desc {
		ods := m.t.desc.Oneofs()
		if i := od.Index(); i < 0 || i >= ods.Len() || ods.Get(i) != od {
			panic(errorf("%v: oneof descriptor does not belong to this message", od.FullName()))
		}
	}
	w := m.t.shape.oneofs[od.Index()]
	if w < 0 {
		// A synthetic oneof: its one member.
		fds := od.Fields()
		for i := range fds.Len() {
			if fd := fds.Get(i); m.Has(fd) {
				return fd
			}
		}
		return nil
	}
	if !m.IsValid() || m.words()[w] == 0 {
		return nil
	}
	return m.t.desc.Fields().Get(int(m.words()[w] - 1))
}

// GetUnknown returns the raw unknown fields.
func (m *Message) GetUnknown() protoreflect.RawFields {
	if r := m.rareOf(); r != nil {
		return r.unknown
	}
	return nil
}

// SetUnknown stores the raw unknown fields. It panics if m is read-only.
func (m *Message) SetUnknown(raw protoreflect.RawFields) {
	if !m.IsValid() {
		m.readOnly(m.t.desc.FullName())
	}
	if m.rareOf() == nil && raw == nil {
		return
	}
	m.ownRare().unknown = raw
}

// own gives m, valid, a block of its own before a write if it shares
// its shape's zero block, as a message a decode found empty does.
func (m *Message) own() {
	if m.shared() {
		m.block = m.t.shape.slots.New()
	}
}

// shared reports whether m shares its shape's zero block: it has no
// field set, and writes to none before own.
func (m *Message) shared() bool { return m.block == m.t.shape.zero }

// IsValid reports whether m is a message that can be set: false for a
// read-only empty message.
func (m *Message) IsValid() bool { return !m.block.IsNil() }

// messageType is the protoreflect.MessageType of a descriptor's dynamic
// messages. It holds the descriptor's shape where the cache holds it,
// the one shape of the descriptor while it lives, so that New and Zero
// look nothing up; otherwise shape is nil and they look it up, as the
// types of one descriptor must be equal (typeOf).
type messageType struct {
	desc  protoreflect.MessageDescriptor
	shape *shape
}

// typeOf returns the message type of md, whose shape is s.
func typeOf(md protoreflect.MessageDescriptor, s *shape) messageType {
	if !s.cached {
		s = nil
	}
	return messageType{md, s}
}

// NewMessageType returns the message type of md, whose messages are
// *Message values. Types of the same descriptor are equal:
// NewMessageType(md) == NewMessageType(md).
func NewMessageType(md protoreflect.MessageDescriptor) protoreflect.MessageType {
	return typeOf(md, shapeOf(md))
}

// storage returns mt's shape: the one it holds, or its descriptor's,
// looked up.
func (mt messageType) storage() *shape {
	if mt.shape != nil {
		return mt.shape
	}
	return shapeOf(mt.desc)
}

func (mt messageType) New() protoreflect.Message                  { return newMessage(mt.desc, mt.storage()) }
func (mt messageType) Zero() protoreflect.Message                 { return zeroMessage(mt.desc, mt.storage()) }
func (mt messageType) Descriptor() protoreflect.MessageDescriptor { return mt.desc }

func (mt messageType) Enum(i int) protoreflect.EnumType {
	if ed := mt.desc.Fields().Get(i).Enum(); ed != nil {
		return dynamicpb.NewEnumType(ed)
	}
	return nil
}

func (mt messageType) Message(i int) protoreflect.MessageType {
	if md := mt.desc.Fields().Get(i).Message(); md != nil {
		return NewMessageType(md)
	}
	return nil
}
