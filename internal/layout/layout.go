// Package layout compiles a protobuf message descriptor into an immutable
// Layout: the fields in the order proto.Marshal emits them, each with
// everything the encoder needs precomputed (wire type, encoded key, presence,
// packing, UTF-8 rule, required flag, group encoding, map key and value
// layouts, child layout).
//
// Layouts are built once per descriptor and cached by descriptor identity:
// two loads of the same schema give two descriptors with the same full name,
// and each gets its own Layout. Everything here is safe for concurrent use.
//
// # Lifetime
//
// A layout holds no reference to its descriptor, nor to anything of the
// schema (names are copied), so that the cache can hold descriptors weakly
// (internal/weakcache): an entry is released once the program has dropped
// the descriptor, and every message of its type, and the garbage collector
// has found it unreachable. Nothing has to be evicted by hand; a proxy that
// reloads its schemas keeps only the layouts of the schemas it still holds.
// A layout in use by a call stays valid for that call, since the caller's
// message keeps its descriptor alive; a released layout needed again (its
// descriptor was dropped and a new one allocated) is built again.
//
// What that costs: a lookup (Of, Extension) is a lock-free map load plus a
// weak pointer check, about 20 ns where a plain map load is about 10; a
// build registers a weak pointer and a cleanup per descriptor.
//
// Because a layout cannot reach back to its descriptor, child layouts are
// linked when a layout is built: Of builds the layout of md and of every
// message type reachable from its fields that has none yet (recursive
// schemas close on the layouts being built), under one lock, and publishes
// them together, so that a lookup never sees a layout whose children are
// missing. Concurrent first calls for one type build it once.
//
// The package is for the cursor, sizing and encoder packages of this module;
// it encodes nothing itself.
package layout

import (
	"cmp"
	"encoding/binary"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/protolayout/protolayout/internal/weakcache"
	"github.com/protolayout/protolayout/internal/wire"
)

// Layout is the compiled form of one message descriptor. It is immutable
// once built and shared by every goroutine.
type Layout struct {
	// FullName is the message's full name.
	FullName protoreflect.FullName

	// MapEntry reports whether the message is a map field's entry.
	MapEntry bool

	// Fields holds every field of the message in emission order, the order
	// proto.Marshal writes them: fields outside real oneofs by ascending
	// number (proto3 optional fields count as outside), then the members
	// of each real oneof, oneofs in declaration order and members by
	// ascending number. Extensions are not listed; see Extension.
	//
	// The order lives here and only here, so that a second order (strict
	// field-number order, for example) can later be offered as a second
	// index slice over the same records.
	Fields []Field

	// Regular is the number of leading entries of Fields that are not
	// members of a real oneof.
	Regular int

	// InNumberOrder reports whether Fields is in strictly ascending field
	// number (no oneof member numbered below a field after it), so that
	// emission order is canonical order (cursor.Options.Canonical) for a
	// message without extensions.
	InNumberOrder bool

	// NumberOrder lists the positions in Fields in ascending field
	// number: canonical order (cursor.Options.Canonical) of the fields,
	// oneof members among them. It is 0, 1, 2, ... when InNumberOrder.
	NumberOrder []int32

	// Oneofs lists the real (non-synthetic) oneofs in declaration order.
	Oneofs []Oneof

	// Extendable reports whether the message declares extension ranges;
	// FirstExtension is the lowest number they start at (0 if none).
	Extendable     bool
	FirstExtension protowire.Number

	// MessageSet reports whether the message uses the legacy MessageSet
	// wire format, which this module does not encode.
	MessageSet bool

	// Required reports whether any field of this message itself is
	// required (proto2 required or editions LEGACY_REQUIRED).
	Required bool

	// RequiredFields lists the positions in Fields of the required
	// fields, ascending. It is also the order in which the checked walk
	// looks for a missing one, so that of several missing fields it
	// names the first listed here (each storage tests presence its own
	// way; an absent message fails on the first: Absent): at the field's
	// position in emission order (after the fields before it, which may
	// fail first), or, under Canonical and in an absent message, when
	// the message is entered, before anything in it.
	RequiredFields []int32

	// position maps a field's declaration index to its position in Fields.
	position []int32

	// byNumber maps a field number below its length to the field's
	// position in Fields plus one (0: no such field); numberMap maps the
	// larger numbers to their positions. byNumber covers the numbers up
	// to denseLimit, as far as the largest of them a field has (see
	// NumberIndex).
	byNumber  []uint32
	numberMap map[protowire.Number]int32

	// writer is the value Writer's table of the layout (WriterTable),
	// built by package encoder on first use and released with the
	// layout.
	writer atomic.Pointer[WriterTable]

	// id is the identity of the descriptor the layout was built from,
	// kept without keeping the descriptor (see IsOf).
	id weakcache.ID
}

// Absent returns the field the walk names in an absent message of l
// (nil, or invalid), which has no field set: the first of
// RequiredFields, or nil when l has none.
func (l *Layout) Absent() *Field {
	if len(l.RequiredFields) == 0 {
		return nil
	}
	return &l.Fields[l.RequiredFields[0]]
}

// IsOf reports whether md is the descriptor l was built from, by identity
// alone: it is meant for a child layout reached from the layout of a live
// message (Field.Message), whose descriptor is alive because the parent's
// descriptor refers to it, so that a live descriptor at the same address
// is that descriptor. For any other layout, compare with Of.
func (l *Layout) IsOf(md protoreflect.MessageDescriptor) bool {
	return weakcache.IDOf(md) == l.id
}

// maxDenseNumber is the largest field number always indexed densely;
// a message of more than maxDenseNumber/4 fields has its numbers up to
// four times its field count indexed densely (see denseLimit).
const maxDenseNumber = 1024

// denseLimit returns the largest field number indexed densely in a
// message of n fields.
func denseLimit(n int) protowire.Number {
	return protowire.Number(max(maxDenseNumber, 4*n))
}

// Oneof describes one real oneof of a message.
type Oneof struct {
	// Name is the oneof's name.
	Name protoreflect.Name
	// Index is the oneof's index in its message descriptor's Oneofs.
	Index int
	// First and End delimit the oneof's members in Layout.Fields.
	First, End int
}

// Field is the compiled form of one field. What encoding reads of every
// value (kind, flags, tag, fixed width, map entry fields) comes first, in
// 64 bytes, so that it spans one or two cache lines, not three; the rest
// follows.
type Field struct {
	// Kind is the field's kind; for a map field it is MessageKind.
	Kind protoreflect.Kind
	// WireType is the wire type of one value of the field (the start-group
	// type for groups); a packed list is written as one BytesType record.
	WireType protowire.Type

	// List is set for repeated fields other than maps.
	List bool
	// Map is set for map fields.
	Map bool
	// Packed is set for repeated scalar fields written as one packed record.
	Packed bool
	// Explicit is set when the field tracks presence (proto2 optional,
	// proto3 optional, editions EXPLICIT, messages, oneof members,
	// extensions). Implicit-presence fields skip their zero value.
	Explicit bool
	// ValidateUTF8 is set for string fields whose values must be valid
	// UTF-8 (proto3, or editions with utf8_validation = VERIFY).
	ValidateUTF8 bool
	// Required is set for proto2 required and editions LEGACY_REQUIRED
	// fields.
	Required bool
	// Group is set for group-encoded (proto2 group, editions DELIMITED)
	// message fields.
	Group bool
	// Extension is set for extension fields.
	Extension bool

	// Number is the field number.
	Number protowire.Number
	// FixedWidth is the encoded width of every value when it does not
	// depend on the value, else 0.
	FixedWidth int
	// Tag is the encoded key of one value (for groups, the start key).
	Tag []byte
	// MapKey and MapValue describe a map field's entry fields.
	MapKey, MapValue *Field

	// Op is the field's operation in the field program: how the field is
	// written (a scalar op, OpString, OpBytes, OpMessage or OpGroup for a
	// singular field; OpList, OpPacked or OpMap for the others).
	Op wire.Op
	// Elem is the op of one value: Op for a singular field, the
	// elements' op for a list, the values' op for a map.
	Elem wire.Op
	// KeyOrder is how deterministic encoding sorts a map field's
	// entries; OrderUnsigned for other fields.
	KeyOrder wire.KeyOrder
	// Presence is how the field's set-ness is told.
	Presence Presence
	// TagWord holds Tag's bytes, little-endian, in its low len(Tag)
	// bytes, for writers that store a key with one store.
	TagWord uint64

	// Name and FullName are the field's names.
	Name     protoreflect.Name
	FullName protoreflect.FullName
	// Index is the field's index in its message descriptor's Fields, or
	// -1 for an extension.
	Index int
	// EnumDefault is the default value of an enum field.
	EnumDefault protoreflect.EnumNumber
	// Enum describes the values of an enum field; nil for other kinds.
	Enum *Enum
	// Oneof is the index in Layout.Oneofs of the real oneof holding the
	// field, or -1.
	Oneof int
	// EndTag is the encoded end-group key; it is nil unless Group.
	EndTag []byte
	// PackedTag is the encoded key of a packed record of the field: set
	// for every repeated field of a packable kind, packed or not (the
	// Signing profile packs them all); nil for any other field. Packed
	// says whether the field's own records are packed.
	PackedTag []byte

	// child is the layout of the field's message type; entry, of a map
	// field's entry message. Both are set when the layout is built.
	child, entry *Layout

	// writerExt is the value Writer's record of an extension
	// (WriterExt), built by package encoder on first use and released
	// with the extension's record.
	writerExt atomic.Pointer[WriterExt]
}

// Presence is how a field's set-ness is told: the one rule every storage
// applies (IsSet for protoreflect values; each storage reads its own
// flags).
type Presence uint8

const (
	// PresenceImplicit: a scalar, string or bytes field without presence
	// (proto3 without optional, editions IMPLICIT), set when its value is
	// not zero (among floats only +0.0 is zero), so a zero value is never
	// written.
	PresenceImplicit Presence = iota
	// PresenceFlag: a scalar, string or bytes field with explicit
	// presence outside real oneofs (proto2 optional, proto3 optional,
	// editions EXPLICIT, extensions), set when its storage's flag says
	// so, zero values included.
	PresenceFlag
	// PresenceOneof: a member of a real oneof, set when the oneof's case
	// names it, whatever its value.
	PresenceOneof
	// PresenceMessage: a singular message or group field, set when it
	// holds a message.
	PresenceMessage
	// PresenceNonEmpty: a list or map, set when not empty.
	PresenceNonEmpty
)

// Enum describes an enum type's values, for looking them up by name.
type Enum struct {
	// FullName is the enum's full name.
	FullName protoreflect.FullName
	byName   map[string]protoreflect.EnumNumber
}

// ByName returns the number of the value named name, if the enum has one.
func (e *Enum) ByName(name string) (protoreflect.EnumNumber, bool) {
	n, ok := e.byName[name]
	return n, ok
}

// IsMessage reports whether values of the field are messages (including
// groups and map values of message type).
func (f *Field) IsMessage() bool {
	return f.Kind == protoreflect.MessageKind || f.Kind == protoreflect.GroupKind
}

// SigningPacks reports whether the Signing profile (ADR-027) writes the
// field packed though it does not declare so: a repeated field of a
// packable kind that is not packed.
func (f *Field) SigningPacks() bool {
	return f.List && !f.Packed && f.PackedTag != nil
}

// Message returns the layout of the field's message type. It returns nil
// for fields that do not hold messages and for map fields (use
// MapValue.Message, or Entry).
func (f *Field) Message() *Layout { return f.child }

// Entry returns the layout of a map field's entry message, or nil for
// other fields.
func (f *Field) Entry() *Layout { return f.entry }

// Lookup returns the field record for fd, a field of this message, or nil if
// fd does not belong to the layout's message.
func (l *Layout) Lookup(fd protoreflect.FieldDescriptor) *Field {
	if p := l.Position(fd); p >= 0 {
		return &l.Fields[p]
	}
	return nil
}

// Position returns the position in Fields of fd, a field of this message,
// or -1 if fd does not belong to the layout's message.
func (l *Layout) Position(fd protoreflect.FieldDescriptor) int {
	i := fd.Index()
	if i < 0 || i >= len(l.position) {
		return -1
	}
	p := int(l.position[i])
	if l.Fields[p].Number != fd.Number() {
		return -1
	}
	return p
}

// ByNumber returns the field record with number n, or nil if the message
// declares no such field (extensions included: see Extension).
func (l *Layout) ByNumber(n protowire.Number) *Field {
	if p := l.PositionOfNumber(n); p >= 0 {
		return &l.Fields[p]
	}
	return nil
}

// PositionOfNumber returns the position in Fields of the field numbered n,
// or -1 if the message declares no such field.
func (l *Layout) PositionOfNumber(n protowire.Number) int {
	if uint64(n) < uint64(len(l.byNumber)) {
		return int(l.byNumber[n]) - 1
	}
	if p, ok := l.numberMap[n]; ok {
		return int(p)
	}
	return -1
}

// NumberIndex returns the dense part of the index by field number that
// PositionOfNumber reads, for a caller that keeps per-position records of
// its own and finds them with one load: for a number n below the length
// of the slice, element n is the position in Fields of the field numbered
// n plus one, or 0 when the message declares no field n. Numbers at or
// beyond the length are found by PositionOfNumber alone. The slice is the
// layout's own, shared by every caller: read it, never write it.
func (l *Layout) NumberIndex() []uint32 { return l.byNumber }

// IsSet reports whether v, the value stored for field f, counts as set, as
// protoreflect's Has would: a non-empty list or map; any value of a field
// with presence; a non-zero value of an implicit-presence field, where
// only +0.0 is zero among floats.
func (f *Field) IsSet(v protoreflect.Value) bool {
	switch f.Presence {
	case PresenceNonEmpty:
		if f.Map {
			return v.Map().Len() > 0
		}
		return v.List().Len() > 0
	case PresenceImplicit:
		if f.Op.IsScalar() {
			return wire.Word(f.Kind, v) != 0
		}
		if f.Op == wire.OpString {
			return v.String() != ""
		}
		return len(v.Bytes()) > 0
	}
	return true
}

// ByName returns the field record named name (the field's short name), or
// nil if the message declares no such field.
func (l *Layout) ByName(name protoreflect.Name) *Field {
	for i := range l.Fields {
		if l.Fields[i].Name == name {
			return &l.Fields[i]
		}
	}
	return nil
}

var (
	cache      weakcache.Cache[*Layout] // by message descriptor
	extensions weakcache.Cache[*Field]  // by extension descriptor
	builds     atomic.Int64
	// buildMu serializes builds, so that a type reachable from two
	// concurrent first calls is built once.
	buildMu sync.Mutex
)

// Of returns the layout of md, building it (and the layouts of the
// message types reachable from it that have none) on first use.
// Concurrent first calls build it once and return the same layout.
func Of(md protoreflect.MessageDescriptor) *Layout {
	if l, ok := cache.Load(md); ok {
		return l
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	var b builder
	l := b.of(md)
	b.finish()
	return l
}

// Builds reports how many layouts have been built since the process
// started. Tests use it.
func Builds() int64 { return builds.Load() }

// Cached reports how many layouts the cache holds, counting those whose
// descriptors are unreachable but whose entries the collector has not
// released yet. Tests use it.
func Cached() int { return cache.Len() }

// Extension returns the field record of the extension xd. xd may be an
// extension type descriptor; records are cached by the underlying
// extension descriptor.
func Extension(xd protoreflect.FieldDescriptor) *Field {
	key := xd
	if t, ok := xd.(protoreflect.ExtensionTypeDescriptor); ok {
		key = t.Descriptor()
	}
	if f, ok := extensions.Load(key); ok {
		return f
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	if f, ok := extensions.Load(key); ok {
		return f
	}
	var b builder
	f := new(Field)
	b.initField(f, key, -1, -1)
	b.finish()
	f, _ = extensions.LoadOrStore(key, f)
	return f
}

// builder builds the layouts of one call to Of (or Extension): the layout
// asked for and those of the message types it reaches that are not
// cached yet. It holds buildMu.
type builder struct {
	built   []built
	pending map[protoreflect.MessageDescriptor]*Layout // the layouts in built
	enums   map[protoreflect.EnumDescriptor]*Enum
}

type built struct {
	md protoreflect.MessageDescriptor
	l  *Layout
}

// of returns the layout of md: cached, being built by this builder, or
// built now. Its children are linked by the time finish returns.
func (b *builder) of(md protoreflect.MessageDescriptor) *Layout {
	if l, ok := cache.Load(md); ok {
		return l
	}
	if l := b.pending[md]; l != nil {
		return l
	}
	l := new(Layout)
	b.built = append(b.built, built{md, l})
	if b.pending == nil {
		b.pending = map[protoreflect.MessageDescriptor]*Layout{}
	}
	b.pending[md] = l
	b.build(l, md)
	return l
}

// finish links the children of every layout built and publishes the
// layouts. Linking may build more layouts, which the loop then reaches.
func (b *builder) finish() {
	for i := 0; i < len(b.built); i++ {
		l, md := b.built[i].l, b.built[i].md
		fds := md.Fields()
		for j := range l.Fields {
			f := &l.Fields[j]
			b.link(f, fds.Get(f.Index))
		}
	}
	for _, x := range b.built {
		cache.LoadOrStore(x.md, x.l)
	}
}

// link sets the child layouts of field f, of descriptor fd.
func (b *builder) link(f *Field, fd protoreflect.FieldDescriptor) {
	switch {
	case f.Map:
		f.entry = b.of(fd.Message())
		if f.MapValue.IsMessage() {
			f.MapValue.child = b.of(fd.MapValue().Message())
		}
	case f.IsMessage():
		f.child = b.of(fd.Message())
	}
}

func (b *builder) build(l *Layout, md protoreflect.MessageDescriptor) {
	builds.Add(1)
	fds := md.Fields()
	*l = Layout{
		id:         weakcache.IDOf(md),
		FullName:   clone(md.FullName()),
		MapEntry:   md.IsMapEntry(),
		Fields:     make([]Field, fds.Len()),
		Extendable: md.ExtensionRanges().Len() > 0,
		MessageSet: isMessageSet(md),
		position:   make([]int32, fds.Len()),
	}
	for i := range md.ExtensionRanges().Len() {
		lo := md.ExtensionRanges().Get(i)[0]
		if i == 0 || lo < l.FirstExtension {
			l.FirstExtension = lo
		}
	}

	// Emission order (proto's legacy field order): fields outside real
	// oneofs by number, then real oneof members by oneof declaration
	// index, then by number.
	order := make([]protoreflect.FieldDescriptor, fds.Len())
	for i := range order {
		order[i] = fds.Get(i)
	}
	slices.SortFunc(order, func(a, b protoreflect.FieldDescriptor) int {
		oa, ob := realOneof(a), realOneof(b)
		switch {
		case oa == nil && ob != nil:
			return -1
		case oa != nil && ob == nil:
			return 1
		case oa != nil && ob != nil && oa.Index() != ob.Index():
			return cmp.Compare(oa.Index(), ob.Index())
		}
		return cmp.Compare(a.Number(), b.Number())
	})

	limit := denseLimit(len(order))
	maxDense, sparse := protowire.Number(0), 0
	for _, fd := range order {
		if n := fd.Number(); n <= limit {
			maxDense = max(maxDense, n)
		} else {
			sparse++
		}
	}
	l.byNumber = make([]uint32, maxDense+1)
	if sparse > 0 {
		l.numberMap = make(map[protowire.Number]int32, sparse)
	}

	oneofIndex := map[int]int{} // oneof declaration index -> index in l.Oneofs
	for i, fd := range order {
		oi := -1
		if od := realOneof(fd); od != nil {
			j, ok := oneofIndex[od.Index()]
			if !ok {
				j = len(l.Oneofs)
				oneofIndex[od.Index()] = j
				l.Oneofs = append(l.Oneofs, Oneof{Name: clone(od.Name()), Index: od.Index(), First: i})
			}
			l.Oneofs[j].End = i + 1
			oi = j
		} else {
			l.Regular = i + 1
		}
		f := &l.Fields[i]
		b.initField(f, fd, fd.Index(), oi)
		l.position[fd.Index()] = int32(i)
		if n := fd.Number(); n < protowire.Number(len(l.byNumber)) {
			l.byNumber[n] = uint32(i) + 1
		} else {
			l.numberMap[n] = int32(i)
		}
		if f.Required {
			l.Required = true
			l.RequiredFields = append(l.RequiredFields, int32(i))
		}
	}
	l.NumberOrder = make([]int32, len(l.Fields))
	for i := range l.NumberOrder {
		l.NumberOrder[i] = int32(i)
	}
	slices.SortFunc(l.NumberOrder, func(a, b int32) int { return cmp.Compare(l.Fields[a].Number, l.Fields[b].Number) })
	l.InNumberOrder = true
	for i, pos := range l.NumberOrder {
		if int(pos) != i {
			l.InNumberOrder = false
		}
	}
}

// clone copies a name, so that a layout does not keep the memory of the
// schema it was built from.
func clone[S ~string](s S) S { return S(strings.Clone(string(s))) }

// enum returns the record of enum type ed, one per build.
func (b *builder) enum(ed protoreflect.EnumDescriptor) *Enum {
	if e := b.enums[ed]; e != nil {
		return e
	}
	vals := ed.Values()
	e := &Enum{FullName: clone(ed.FullName()), byName: make(map[string]protoreflect.EnumNumber, vals.Len())}
	for i := range vals.Len() {
		v := vals.Get(i)
		e.byName[strings.Clone(string(v.Name()))] = v.Number()
	}
	if b.enums == nil {
		b.enums = map[protoreflect.EnumDescriptor]*Enum{}
	}
	b.enums[ed] = e
	return e
}

// initField fills f from fd, at declaration index index (-1 for an
// extension, whose child layout it links at once).
func (b *builder) initField(f *Field, fd protoreflect.FieldDescriptor, index, oneof int) {
	f.Name = clone(fd.Name())
	f.FullName = clone(fd.FullName())
	f.Index = index
	f.Number = fd.Number()
	f.Kind = fd.Kind()
	f.Oneof = oneof
	f.Extension = fd.IsExtension()
	f.Map = fd.IsMap()
	f.List = fd.IsList()
	f.Packed = f.List && fd.IsPacked()
	f.Explicit = fd.HasPresence()
	f.Required = fd.Cardinality() == protoreflect.Required
	f.Group = f.Kind == protoreflect.GroupKind
	f.ValidateUTF8 = f.Kind == protoreflect.StringKind && enforceUTF8(fd)
	f.WireType = wire.WireType(f.Kind)
	f.FixedWidth = wire.FixedWidth(f.Kind)
	f.Tag = wire.AppendTag(nil, f.Number, f.WireType)
	f.Elem = wire.ValueOp(f.Kind)
	switch {
	case f.Packed:
		f.Op = wire.OpPacked
	case f.List:
		f.Op = wire.OpList
	default:
		f.Op = f.Elem
	}
	if f.Group {
		f.EndTag = wire.AppendTag(nil, f.Number, protowire.EndGroupType)
	}
	if f.List && wire.Packable(f.Kind) {
		f.PackedTag = wire.AppendTag(nil, f.Number, protowire.BytesType)
	}
	if f.Kind == protoreflect.EnumKind {
		f.Enum = b.enum(fd.Enum())
		if d := fd.Default(); d.IsValid() { // not for repeated fields
			f.EnumDefault = d.Enum()
		}
	}
	switch {
	case f.List || f.Map:
		f.Presence = PresenceNonEmpty
	case f.IsMessage():
		f.Presence = PresenceMessage
	case f.Oneof >= 0:
		f.Presence = PresenceOneof
	case f.Explicit:
		f.Presence = PresenceFlag
	}
	var word [8]byte
	copy(word[:], f.Tag)
	f.TagWord = binary.LittleEndian.Uint64(word[:])
	if f.Map {
		f.Kind = protoreflect.MessageKind
		f.WireType = protowire.BytesType
		f.Tag = wire.AppendTag(nil, f.Number, protowire.BytesType)
		f.MapKey = new(Field)
		b.initField(f.MapKey, fd.MapKey(), fd.MapKey().Index(), -1)
		f.MapValue = new(Field)
		b.initField(f.MapValue, fd.MapValue(), fd.MapValue().Index(), -1)
		f.Op, f.Elem = wire.OpMap, f.MapValue.Op
		f.KeyOrder = wire.KeyOrderOf(f.MapKey.Kind)
	}
	if index < 0 {
		b.link(f, fd)
	}
}

// realOneof returns the real (non-synthetic) oneof holding fd, or nil.
func realOneof(fd protoreflect.FieldDescriptor) protoreflect.OneofDescriptor {
	if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
		return od
	}
	return nil
}

// enforceUTF8 is protobuf-go's rule for validating strings
// (internal/strs.EnforceUTF8): editions files, and every file in a build
// with the protolegacy tag (where a proto3 field may opt out through the
// legacy enforce_utf8 option), follow the descriptor's resolved UTF-8
// setting, which only field descriptors expose (extension descriptors do
// not, so editions string extensions are never validated, as in
// proto.Marshal); otherwise only proto3 files validate.
func enforceUTF8(fd protoreflect.FieldDescriptor) bool {
	if protoLegacy || fd.Syntax() == protoreflect.Editions {
		if v, ok := fd.(interface{ EnforceUTF8() bool }); ok {
			return v.EnforceUTF8()
		}
	}
	return fd.Syntax() == protoreflect.Proto3
}

func isMessageSet(md protoreflect.MessageDescriptor) bool {
	if v, ok := md.(interface{ IsMessageSet() bool }); ok {
		return v.IsMessageSet()
	}
	if opts, ok := md.Options().(*descriptorpb.MessageOptions); ok {
		return opts.GetMessageSetWireFormat()
	}
	return false
}
