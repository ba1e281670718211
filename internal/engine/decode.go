package engine

import (
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"sync/atomic"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/runtime/protoiface"

	"github.com/protolayout/protolayout/internal/layout"
	"github.com/protolayout/protolayout/internal/slots"
	"github.com/protolayout/protolayout/internal/utf8x"
	"github.com/protolayout/protolayout/internal/wire"
)

// The decoder parses the wire format straight into a Message's storage.
// It follows proto.Unmarshal on a dynamicpb message, the reflection
// path, rule for rule: a known field whose wire type is not the one its
// kind takes (nor, for a packable list, the packed one) is kept as an
// unknown field; scalars take the last value read, messages merge, a
// oneof member read clears the member set before; map entries may lack
// their key or value (the default stands in) and replace the entry of
// their key; enum numbers are stored as read, closed enums included;
// strings are validated where the field asks for UTF-8; extensions are
// found through the resolver within the message's extension ranges;
// every message, group and map entry counts against the recursion
// limit, as it does on the reflection path.

// decMode says how the decoder stores the values of a field.
type decMode uint8

const (
	modeScalar decMode = iota
	modeString
	modeBytes
	modeMessage
	modeGroup
	modeList
	modeMap
)

// decField is what the decoder needs of one field: its storage (copied
// from the shape's record) and its wire format.
type decField struct {
	mode decMode
	// op is how message decodes a record of the field's own wire type
	// inline, or opOther for the records field decodes.
	op   decOp
	kind protoreflect.Kind
	// wire is the wire type of one value (start group for groups, bytes
	// for map entries); a packable list also takes the bytes type.
	wire     protowire.Type
	packable bool
	// elem is the op of one element of a packable list: how packed
	// decodes its words.
	elem decOp
	// converts is set when a packable list's elements, as its element
	// type keeps them, are not the values read: elem's word makes them.
	converts bool
	utf8     bool
	// marks is set when the field has a bit by position or a presence
	// bit apart from its touched bit: mark sets them too.
	marks bool
	// index is the field's index in its descriptor's Fields.
	index int32
	// id tells the list fields of all tables apart in an arena's cache
	// of list types: the list fields of one table have consecutive ids.
	id               uint32
	slot, bit, oneof int32
	// touchWord and touchMask are the field's touched bit in a message's
	// words, posWord and posMask its bit by position, bitWord and
	// bitMask its presence bit: set computes none of them. A field
	// without a bit by position or a presence bit has its touched bit in
	// their place, which mark skips.
	touchWord, posWord, bitWord int32
	touchMask, posMask, bitMask uint64
	rec                         *field
	lf                          *layout.Field
	// value is the shape of a map field's message values, linked on
	// first use.
	value atomic.Pointer[shape]
}

// decOp says how message decodes a record of a field whose wire type is
// the field's: inline, by the value's kind, or through field.
type decOp uint8

const (
	opOther  decOp = iota // lists of scalars or bytes, maps, groups: other decodes them
	opVarint              // a varint kept as read (int64, uint64)
	opInt32               // a varint cut to an int32 (int32, enum)
	opUint32
	opBool
	opZigzag32
	opZigzag64
	opFixed32
	opSfixed32
	opFixed64
	opString
	opBytes
	opMessage
	opListString  // a string of a list
	opListMessage // a length-delimited message of a list
)

// decodeTable is the decoder's table of one shape: a record per field
// by position in the layout's Fields, found by number through the
// layout's index.
type decodeTable struct {
	fields []decField
	dense  []uint32
	// tags maps a tag (number and wire type) of a field numbered below
	// tagNumbers to the field's position plus one when the wire type is
	// the field's own (df.wire, or bytes for a packable list), or 0:
	// message's dispatch in one load.
	tags   []uint16
	layout *layout.Layout
	// shape is the table's shape, whose slots lay out its messages'
	// blocks; messageSet is set for a MessageSet type (layout's).
	shape      *shape
	messageSet bool
	// required lists the descriptor indexes of the required fields, in
	// declaration order.
	required []int32
	// check is set when a message of this type can miss a required
	// field: some type reachable from it has required fields or
	// extension ranges.
	check bool
	// checkFields has a bit per descriptor index (as the touched bits)
	// for the message, list of messages and map of messages fields whose
	// message type can miss a required field: the only ones
	// checkInitialized looks into.
	checkFields []uint64
	// made is how many messages of this type the last call that made
	// any made, and hint what the last call into this type used of the
	// arena's other chunks: the sizes of the next call's first chunks
	// (decode_arena.go).
	made atomic.Int32
	hint arenaHint
	// id tells the tables apart in an arena's index of its chunks.
	id uint32
}

// tableIDs hands out the tables' ids, fieldIDs their fields'.
var tableIDs, fieldIDs atomic.Uint32

// decodeTable returns s's table, building it on first use.
func (s *shape) decodeTable() *decodeTable {
	if t := s.dec.Load(); t != nil {
		return t
	}
	t := buildDecodeTable(s)
	if !s.dec.CompareAndSwap(nil, t) {
		return s.dec.Load()
	}
	return t
}

func buildDecodeTable(s *shape) *decodeTable {
	l := s.layout
	t := &decodeTable{fields: make([]decField, len(l.Fields)), dense: l.NumberIndex(), layout: l, shape: s, messageSet: l.MessageSet, id: tableIDs.Add(1)}
	for p := range l.Fields {
		lf := &l.Fields[p]
		rec := &s.fields[lf.Index]
		df := &t.fields[p]
		df.kind = lf.Kind
		df.wire = lf.WireType
		df.utf8 = lf.ValidateUTF8
		df.index = int32(lf.Index)
		df.slot, df.bit, df.oneof = rec.slot, rec.bit, rec.oneof
		df.touchWord, df.touchMask = s.touched+int32(lf.Index>>6), 1<<(lf.Index&63)
		if s.oneofOnly {
			// No touched bits: a mask of none (on the first case's word).
			df.touchWord, df.touchMask = s.touched, 0
		}
		df.posWord, df.posMask = df.touchWord, df.touchMask
		df.bitWord, df.bitMask = df.touchWord, df.touchMask
		if s.posTouched >= 0 {
			df.posWord, df.posMask = s.posTouched+int32(p>>6), 1<<(p&63)
		}
		if rec.bit >= 0 {
			df.bitWord, df.bitMask = rec.bit>>6, 1<<(rec.bit&63)
		}
		df.marks = df.posWord != df.touchWord || df.bitWord != df.touchWord
		df.rec = rec
		df.lf = lf
		switch lf.Op {
		case wire.OpMap:
			df.mode = modeMap
			df.wire = protowire.BytesType
		case wire.OpList, wire.OpPacked:
			df.mode = modeList
			df.packable = lf.Elem.IsScalar()
			if df.packable {
				df.elem = scalarOp(lf.Kind)
				df.converts = !df.elem.keeps(wire.WidthOf(lf.Kind))
			}
			switch lf.Kind {
			case protoreflect.StringKind:
				df.op = opListString
			case protoreflect.MessageKind:
				df.op = opListMessage
			}
		case wire.OpGroup:
			df.mode = modeGroup
		case wire.OpMessage:
			df.mode, df.op = modeMessage, opMessage
		case wire.OpString:
			df.mode, df.op = modeString, opString
		case wire.OpBytes:
			df.mode, df.op = modeBytes, opBytes
		default:
			df.mode, df.op = modeScalar, scalarOp(lf.Kind)
		}
		if lf.Required {
			t.required = append(t.required, int32(lf.Index))
		}
	}
	slices.Sort(t.required)
	if len(l.Fields) < math.MaxUint16 {
		t.tags = make([]uint16, min(len(t.dense), tagNumbers)<<3)
		for n := range len(t.tags) >> 3 {
			if p := t.dense[n]; p > 0 {
				df := &t.fields[p-1]
				t.tags[n<<3|int(df.wire)] = uint16(p)
				if df.packable {
					// A packed run, which other decodes.
					t.tags[n<<3|int(protowire.BytesType)] = uint16(p)
				}
			}
		}
	}
	// The list fields' ids, consecutive.
	var lists uint32
	for p := range l.Fields {
		if l.Fields[p].List {
			lists++
		}
	}
	id := fieldIDs.Add(lists) - lists
	for p := range l.Fields {
		if l.Fields[p].List {
			t.fields[p].id = id
			id++
		}
	}
	t.check = mayBeUninitialized(l)
	if t.check {
		t.checkFields = make([]uint64, (len(l.Fields)+63)/64)
		for p := range l.Fields {
			lf := &l.Fields[p]
			child := lf.Message()
			if lf.Map {
				child = lf.MapValue.Message()
			}
			if child != nil && mayBeUninitialized(child) {
				t.checkFields[lf.Index>>6] |= 1 << (lf.Index & 63)
			}
		}
	}
	return t
}

// tagNumbers bounds the field numbers a decodeTable's tags covers: those
// whose tags take one or two bytes, up to 4 KiB of table.
const tagNumbers = 256

// scalarOp returns the op of a singular scalar field of kind k.
func scalarOp(k protoreflect.Kind) decOp {
	switch k {
	case protoreflect.Int64Kind, protoreflect.Uint64Kind:
		return opVarint
	case protoreflect.Int32Kind, protoreflect.EnumKind:
		return opInt32
	case protoreflect.Uint32Kind:
		return opUint32
	case protoreflect.BoolKind:
		return opBool
	case protoreflect.Sint32Kind:
		return opZigzag32
	case protoreflect.Sint64Kind:
		return opZigzag64
	case protoreflect.Fixed32Kind, protoreflect.FloatKind:
		return opFixed32
	case protoreflect.Sfixed32Kind:
		return opSfixed32
	default:
		return opFixed64
	}
}

// word returns the word (wire.WireWord) of x, a value of a field of
// scalar op op as read from the wire: an int32's sign extended, a
// uint32's cut, a bool's 0 or 1, a zigzag's decoded.
func (op decOp) word(x uint64) uint64 {
	switch op {
	case opInt32, opSfixed32:
		return uint64(int64(int32(x)))
	case opUint32:
		return uint64(uint32(x))
	case opBool:
		if x != 0 {
			return 1
		}
		return 0
	case opZigzag32:
		return uint64(int64(int32(protowire.DecodeZigZag(x & math.MaxUint32))))
	case opZigzag64:
		return uint64(protowire.DecodeZigZag(x))
	}
	return x
}

// mayBeUninitialized reports whether l, or a message type reachable from
// its fields, has required fields or extension ranges (whose extensions
// may have required fields).
func mayBeUninitialized(l *layout.Layout) bool {
	return reaches(l, func(l *layout.Layout) bool { return l.Required || l.Extendable })
}

// reaches reports whether pred holds for l or for a message type
// reachable from its fields (map values included).
func reaches(l *layout.Layout, pred func(*layout.Layout) bool) bool {
	seen := make(map[*layout.Layout]bool)
	var visit func(l *layout.Layout) bool
	visit = func(l *layout.Layout) bool {
		if l == nil || seen[l] {
			return false
		}
		seen[l] = true
		if pred(l) {
			return true
		}
		for i := range l.Fields {
			lf := &l.Fields[i]
			child := lf.Message()
			if lf.Map {
				child = lf.MapValue.Message()
			}
			if visit(child) {
				return true
			}
		}
		return false
	}
	return visit(l)
}

// lookupSparse returns the record of the field numbered num, or nil, for
// the records that message's inline lookup leaves to other.
func (t *decodeTable) lookupSparse(num protowire.Number) *decField {
	if p := t.layout.PositionOfNumber(num); p >= 0 {
		return &t.fields[p]
	}
	return nil
}

// consumeBytes is protowire.ConsumeBytes with shortcuts for the common
// cases, a length of one byte or two.
func consumeBytes(b []byte) ([]byte, int) {
	if len(b) > 1 {
		if n := uint(b[0]); n < 0x80 {
			if n < uint(len(b)) {
				return b[1 : n+1 : n+1], int(n + 1)
			}
		} else if c := uint(b[1]); c < 0x80 {
			if n = n&0x7f | c<<7; n <= uint(len(b)-2) {
				return b[2 : n+2 : n+2], int(n + 2)
			}
		}
	}
	return protowire.ConsumeBytes(b)
}

// shortBytes returns the length-delimited value at b[j:] and its length
// with its prefix when the prefix is one byte and the value fits in b,
// or 0 for consumeBytes to read: the common case, inlined.
func shortBytes(b []byte, j int) ([]byte, int) {
	if uint(j) < uint(len(b)) {
		if n := int(b[j]); n < 0x80 && n < len(b)-j {
			return b[j+1 : j+1+n : j+1+n], n + 1
		}
	}
	return nil, 0
}

// decodeError is an error of the decoder; errors.Is(err, proto.Error)
// holds for it, as for proto.Unmarshal's errors.
type decodeError struct{ s string }

func (e *decodeError) Error() string        { return "proto: " + e.s }
func (e *decodeError) Is(target error) bool { return target == proto.Error }

var (
	errDecode         error = &decodeError{"cannot parse invalid wire-format data"}
	errRecursionDepth error = &decodeError{"exceeded maximum recursion depth"}
	// errUnknown says that a known field's record is to be kept as an
	// unknown field; it never leaves the package.
	errUnknown error = &decodeError{"internal error: unknown field"}
)

func errInvalidUTF8(name protoreflect.FullName) error {
	return &decodeError{"field " + string(name) + " contains invalid UTF-8"}
}

func errRequiredNotSet(name protoreflect.FullName) error {
	return &decodeError{"required field " + string(name) + " not set"}
}

// decodeOptions are the options of one Unmarshal call, and the arena
// its new values come from.
type decodeOptions struct {
	arena
	// limit is the most bytes the arena may count in used (see
	// UnmarshalOptions.MaxMemory): the decoder fails with ErrMemoryLimit
	// once a record takes it past it.
	limit   int64
	discard bool
	// unchecked is set once the call stores what may lack a required
	// field: an extension, or a MessageSet's items (a message of a type
	// with required fields sets the arena's required).
	unchecked bool
	resolver  interface {
		FindExtensionByName(field protoreflect.FullName) (protoreflect.ExtensionType, error)
		FindExtensionByNumber(message protoreflect.FullName, field protoreflect.FieldNumber) (protoreflect.ExtensionType, error)
	}
}

// unmarshal is the Unmarshal method of a Message's protoiface.Methods.
func unmarshal(in protoiface.UnmarshalInput) (protoiface.UnmarshalOutput, error) {
	var out protoiface.UnmarshalOutput
	m, ok := in.Message.(*Message)
	if !ok {
		return out, &decodeError{"dynamic: Unmarshal of a message that is not a *dynamic.Message"}
	}
	// Set field by field: a composite literal of this large a struct is
	// built aside and copied.
	var d decodeOptions
	o := &d
	o.discard, o.resolver, o.limit = in.Flags&protoiface.UnmarshalDiscardUnknown != 0, in.Resolver, math.MaxInt64
	if o.resolver == nil {
		o.resolver = protoregistry.GlobalTypes
	}
	fresh := in.Flags&protoiface.UnmarshalCheckRequired != 0 && m.empty()
	err := o.top(in.Buf, m, in.Depth)
	o.release()
	if err != nil {
		return out, err
	}
	if in.Flags&protoiface.UnmarshalCheckRequired != 0 {
		// A message that was empty holds only what the call decoded,
		// which lacks no required field if it made no message of a type
		// with required fields and stored no extension.
		if fresh && !o.required && !o.unchecked && len(m.t.shape.decodeTable().required) == 0 || m.checkInitialized() == nil {
			out.Flags |= protoiface.UnmarshalInitialized
		}
	}
	return out, nil
}

// empty reports whether m, valid, has no field stored (by its touched
// bits) and no extension.
func (m *Message) empty() bool {
	if !m.IsValid() || len(m.exts()) > 0 {
		return false
	}
	s := m.t.shape
	for k := range s.touchedWords() {
		if s.touchedBits(m.words(), k) != 0 {
			return false
		}
	}
	return true
}

// top decodes b into m, merging, as message does, with the arena's first
// chunks sized by what the last call into m's type used, and records
// what this one used for the next; an input shorter than hintMinInput
// neither takes nor leaves hints.
func (o *decodeOptions) top(b []byte, m *Message, depth int) error {
	if len(b) < hintMinInput {
		return o.message(b, m, depth)
	}
	h := &m.t.shape.decodeTable().hint
	o.plan(h, min(o.limit/4, hintRoomPerByte*int64(len(b))))
	if err := o.message(b, m, depth); err != nil {
		return err
	}
	o.record(h)
	return nil
}

// hintMinInput is the shortest input that takes and leaves hints: below
// it the room they may use (hintRoomPerByte per byte, under 2 KiB) saves
// less than planning and recording them costs (about a tenth of the
// decode of a message of a dozen scalars).
const hintMinInput = 128

// hintRoomPerByte is the bytes of chunks per byte of input that the
// arena's hints may size ahead of need (see arena), within a quarter of
// the call's memory limit.
const hintRoomPerByte = 16

// message decodes b into m, merging, with depth the recursion budget
// left before m.
func (o *decodeOptions) message(b []byte, m *Message, depth int) error {
	if !m.IsValid() {
		if depth <= 0 {
			return errRecursionDepth
		}
		if len(b) == 0 {
			return nil
		}
		m.readOnly(m.t.desc.FullName())
	}
	if len(b) > 0 {
		m.own()
	}
	t := m.t.shape.dec.Load()
	if t == nil {
		t = m.t.shape.decodeTable()
	}
	return o.fields(b, m, t, depth)
}

// fields is message on m, valid, whose table t is: the callers that
// made m, or know its field's table, skip message's lookups.
func (o *decodeOptions) fields(b []byte, m *Message, t *decodeTable, depth int) error {
	if depth--; depth < 0 {
		return errRecursionDepth
	}
	if t.messageSet {
		o.unchecked = true
		return o.messageSet(b, m, depth)
	}
	words := slots.Part[uint64](m.block, &t.shape.slots, int(classScalar))
	// i is where the next record starts in b; each case below reads a
	// record's value from b[j:] and moves i past it, or returns.
	for i := 0; i < len(b); {
		var tag uint64
		j := i
		if c := b[j]; c < 0x80 {
			tag, j = uint64(c), j+1
		} else if j+1 < len(b) && b[j+1] < 0x80 {
			tag, j = uint64(c&0x7f)|uint64(b[j+1])<<7, j+2
		} else {
			v, n := protowire.ConsumeVarint(b[j:])
			if n < 0 {
				return errDecode
			}
			tag, j = v, j+n
		}
		// The field's record when the wire type is the field's own: by
		// the tags, else by the dense index (whose numbers are all
		// valid); other finds any other.
		var df *decField
		if tag < uint64(len(t.tags)) {
			if p := t.tags[tag]; p > 0 {
				df = &t.fields[p-1]
			}
		} else if tag>>3 < uint64(len(t.dense)) {
			if p := t.dense[tag>>3]; p > 0 && protowire.Type(tag&7) == t.fields[p-1].wire {
				df = &t.fields[p-1]
			}
		}
		if df == nil {
			k, err := o.other(t, nil, tag, b[i:], j-i, m, words, depth)
			if err != nil {
				return err
			}
			i += k
		} else {
			switch df.op {
			case opVarint, opInt32, opUint32, opBool, opZigzag32, opZigzag64:
				var v uint64
				if j < len(b) && b[j] < 0x80 {
					v, j = uint64(b[j]), j+1
				} else {
					x, k := protowire.ConsumeVarint(b[j:])
					if k < 0 {
						return errDecode
					}
					v, j = x, j+k
				}
				v = df.op.word(v)
				if df.oneof >= 0 {
					if words[df.oneof] == 0 {
						words[df.oneof] = uint64(df.index) + 1
					} else {
						m.setCase(df, words)
					}
				}
				df.mark(words)
				words[df.slot] = v
				i = j
				continue
			case opFixed32, opSfixed32:
				if len(b)-j < 4 {
					return errDecode
				}
				v := df.op.word(uint64(binary.LittleEndian.Uint32(b[j:])))
				if df.oneof >= 0 {
					if words[df.oneof] == 0 {
						words[df.oneof] = uint64(df.index) + 1
					} else {
						m.setCase(df, words)
					}
				}
				df.mark(words)
				words[df.slot] = v
				i = j + 4
				continue
			case opFixed64:
				if len(b)-j < 8 {
					return errDecode
				}
				if df.oneof >= 0 {
					if words[df.oneof] == 0 {
						words[df.oneof] = uint64(df.index) + 1
					} else {
						m.setCase(df, words)
					}
				}
				df.mark(words)
				words[df.slot] = binary.LittleEndian.Uint64(b[j:])
				i = j + 8
				continue
			case opString:
				v, k := shortBytes(b, j)
				if k == 0 {
					v, k = consumeBytes(b[j:])
				}
				if k < 0 {
					return errDecode
				}
				if df.utf8 && !utf8x.Valid(v) {
					return errInvalidUTF8(df.lf.FullName)
				}
				if df.oneof >= 0 {
					if words[df.oneof] == 0 {
						words[df.oneof] = uint64(df.index) + 1
					} else {
						m.setCase(df, words)
					}
				}
				df.mark(words)
				*m.strSlot(df.slot) = o.string(v)
				i = j + k
			case opBytes:
				v, k := shortBytes(b, j)
				if k == 0 {
					v, k = consumeBytes(b[j:])
				}
				if k < 0 {
					return errDecode
				}
				if df.oneof >= 0 {
					if words[df.oneof] == 0 {
						words[df.oneof] = uint64(df.index) + 1
					} else {
						m.setCase(df, words)
					}
				}
				df.mark(words)
				m.setBytesAt(df.slot, o.copyBytes(v))
				i = j + k
			case opMessage:
				v, k := shortBytes(b, j)
				if k == 0 {
					v, k = consumeBytes(b[j:])
				}
				if k < 0 {
					return errDecode
				}
				if df.oneof >= 0 {
					if words[df.oneof] == 0 {
						words[df.oneof] = uint64(df.index) + 1
					} else {
						m.setCase(df, words)
					}
				}
				df.mark(words)
				p := m.msgSlot(df.slot)
				if sub := *p; sub != nil {
					if err := o.message(v, sub, depth); err != nil {
						return err
					}
				} else {
					sub, ct := o.newChild(m.t.desc, df, len(v) == 0)
					*p = sub
					if err := o.fields(v, sub, ct, depth); err != nil {
						return err
					}
				}
				i = j + k
			case opListString:
				v, k := shortBytes(b, j)
				if k == 0 {
					v, k = consumeBytes(b[j:])
				}
				if k < 0 {
					return errDecode
				}
				if df.utf8 && !utf8x.Valid(v) {
					return errInvalidUTF8(df.lf.FullName)
				}
				o.appendString(df, v, b[j+k:], m)
				i = j + k
			case opListMessage:
				k, err := o.appendMessages(df, b, i, j, m, depth)
				if err != nil {
					return err
				}
				i = k
			default:
				var k int
				var err error
				switch {
				case !df.packable:
					k, err = o.other(t, df, tag, b[i:], j-i, m, words, depth)
				case protowire.Type(tag&7) == protowire.BytesType:
					k, err = o.packedTo(o.listOf(df, m), df, b[j:])
					k += j - i
				default:
					// An element of a list of scalars, unpacked: the
					// tags hold only the element's own wire type.
					k, err = o.unpacked(df, b, i, j, m)
					k -= i
				}
				if err != nil {
					return err
				}
				i += k
			}
		}
		if o.used > o.limit {
			return ErrMemoryLimit
		}
	}
	return nil
}

// other decodes the record that starts b, whose tag (n bytes long) has
// been read, and whose field's record is df if message's lookup found
// it: a record of a list of scalars, a map or a group, one of another
// wire type than its field's, an extension or an unknown field. It
// returns the length of the record.
func (o *decodeOptions) other(t *decodeTable, df *decField, tag uint64, b []byte, n int, m *Message, words []uint64, depth int) (int, error) {
	num, wt := protowire.Number(tag>>3), protowire.Type(tag&7)
	if tag>>3 > uint64(protowire.MaxValidNumber) || num < protowire.MinValidNumber {
		return 0, errDecode
	}
	rest := b[n:]
	if df == nil {
		df = t.lookupSparse(num)
	}
	var vn int
	err := errUnknown
	if df != nil {
		vn, err = o.field(df, rest, wt, m, words, depth)
	} else if t.layout.Extendable && m.t.desc.ExtensionRanges().Has(num) {
		vn, err = o.extension(rest, num, wt, m, depth)
	}
	if err != nil {
		if err != errUnknown {
			return 0, err
		}
		vn = protowire.ConsumeFieldValue(num, wt, rest)
		if vn < 0 {
			return 0, errDecode
		}
		if !o.discard {
			o.used += int64(n + vn)
			m.appendUnknown(b[:n+vn])
		}
	}
	return n + vn, nil
}

// messageSet decodes b into m, a message of a MessageSet type, as
// proto.Unmarshal does on the reflection path (which supports the
// format only in a build with the protolegacy tag): through a view of m
// that offers no fast path.
func (o *decodeOptions) messageSet(b []byte, m *Message, depth int) error {
	_, err := proto.UnmarshalOptions{
		Merge:          true,
		AllowPartial:   true,
		DiscardUnknown: o.discard,
		Resolver:       o.resolver,
		RecursionLimit: depth + 1,
	}.UnmarshalState(protoiface.UnmarshalInput{Message: slowMessage{m}, Buf: b})
	return err
}

// slowMessage is a Message without fast paths, so that the proto package
// works on it through reflection.
type slowMessage struct{ *Message }

func (slowMessage) ProtoMethods() *protoiface.Methods { return nil }

// ProtoReflect returns s itself, so that the proto package, handed s as a
// proto.Message, sees no fast paths either.
func (s slowMessage) ProtoReflect() protoreflect.Message { return s }

// field decodes one record of the field df, whose tag has been read and
// whose value starts b, into m. It returns the length of the value, or
// errUnknown if the record's wire type does not fit the field.
//
// words are m's words, which the caller looks up once per message.
func (o *decodeOptions) field(df *decField, b []byte, wt protowire.Type, m *Message, words []uint64, depth int) (int, error) {
	switch df.mode {
	case modeScalar:
		if wt != df.wire {
			return 0, errUnknown
		}
		w, n := scalar(df.kind, wt, b)
		if n < 0 {
			return 0, errDecode
		}
		m.set(df, words)
		words[df.slot] = w
		return n, nil
	case modeString:
		if wt != protowire.BytesType {
			return 0, errUnknown
		}
		v, n := consumeBytes(b)
		if n < 0 {
			return 0, errDecode
		}
		if df.utf8 && !utf8x.Valid(v) {
			return 0, errInvalidUTF8(df.lf.FullName)
		}
		m.set(df, words)
		*m.strSlot(df.slot) = o.string(v)
		return n, nil
	case modeBytes:
		if wt != protowire.BytesType {
			return 0, errUnknown
		}
		v, n := consumeBytes(b)
		if n < 0 {
			return 0, errDecode
		}
		m.set(df, words)
		m.setBytesAt(df.slot, o.copyBytes(v))
		return n, nil
	case modeMessage, modeGroup:
		var v []byte
		var n int
		if df.mode == modeMessage {
			if wt != protowire.BytesType {
				return 0, errUnknown
			}
			v, n = consumeBytes(b)
		} else {
			if wt != protowire.StartGroupType {
				return 0, errUnknown
			}
			v, n = protowire.ConsumeGroup(df.lf.Number, b)
		}
		if n < 0 {
			return 0, errDecode
		}
		m.set(df, words)
		p := m.msgSlot(df.slot)
		if sub := *p; sub != nil {
			return n, o.message(v, sub, depth)
		}
		sub, ct := o.newChild(m.t.desc, df, len(v) == 0)
		*p = sub
		return n, o.fields(v, sub, ct, depth)
	case modeList:
		return o.list(df, b, wt, m, depth)
	default:
		return o.mapEntry(df, b, wt, m, depth)
	}
}

// emptyBuf gives decoded empty bytes a non-nil value, as proto.Unmarshal
// gives them.
var emptyBuf [0]byte

// set marks df as set in m, whose words are words: its presence bit or
// its oneof's case (after clearing the member set before), and its
// touched bits.
func (m *Message) set(df *decField, words []uint64) {
	if df.oneof >= 0 {
		m.setCase(df, words)
	}
	df.mark(words)
}

// mark sets df's touched bits and its presence bit in words, a
// message's words (the part of set that message inlines).
func (df *decField) mark(words []uint64) {
	words[df.touchWord] |= df.touchMask
	if df.marks {
		// Either may be the touched bit again.
		words[df.posWord] |= df.posMask
		words[df.bitWord] |= df.bitMask
	}
}

// setCase makes df the case of its oneof in m, whose words are words,
// clearing the member set before.
func (m *Message) setCase(df *decField, words []uint64) {
	if c := words[df.oneof]; c != uint64(df.index)+1 {
		if c != 0 {
			m.clearSlot(&m.t.shape.fields[c-1])
		}
		words[df.oneof] = uint64(df.index) + 1
	}
}

// scalar decodes one value of kind k, of wire type wt (the one k takes),
// from b into its word (wire.WireWord). It returns the value's length, or
// a negative number if b does not hold one.
func scalar(k protoreflect.Kind, wt protowire.Type, b []byte) (uint64, int) {
	switch wt {
	case protowire.VarintType:
		if len(b) > 0 && b[0] < 0x80 {
			return wire.WireWord(k, uint64(b[0])), 1
		}
		v, n := protowire.ConsumeVarint(b)
		if n < 0 {
			return 0, n
		}
		return wire.WireWord(k, v), n
	case protowire.Fixed32Type:
		v, n := protowire.ConsumeFixed32(b)
		return wire.WireWord(k, uint64(v)), n
	default:
		return protowire.ConsumeFixed64(b)
	}
}

// list decodes one record of the repeated field df: one element, or a
// packed run of them.
func (o *decodeOptions) list(df *decField, b []byte, wt protowire.Type, m *Message, depth int) (int, error) {
	if wt != df.wire && !(df.packable && wt == protowire.BytesType) {
		return 0, errUnknown
	}
	switch df.kind {
	case protoreflect.StringKind:
		v, n := consumeBytes(b)
		if n < 0 {
			return 0, errDecode
		}
		if df.utf8 && !utf8x.Valid(v) {
			return 0, errInvalidUTF8(df.lf.FullName)
		}
		o.appendString(df, v, b[n:], m)
		return n, nil
	case protoreflect.MessageKind, protoreflect.GroupKind:
		var v []byte
		var n int
		if wt == protowire.BytesType {
			v, n = consumeBytes(b)
		} else {
			v, n = protowire.ConsumeGroup(df.lf.Number, b)
		}
		if n < 0 {
			return 0, errDecode
		}
		return n, o.appendMessage(df, v, b[n:], wt, m, depth)
	}
	l := o.listOf(df, m)
	if df.kind == protoreflect.BytesKind {
		v, n := consumeBytes(b)
		if n < 0 {
			return 0, errDecode
		}
		bs := l.bytes()
		if len(bs) == cap(bs) {
			bs = reserve(&o.lbytes, bs, b[n:], df.lf.Number, 4, bytesLimit)
			o.used += int64(cap(bs)) * bytesBytes
		}
		l.setBytes(append(bs, o.copyBytes(v)))
		return n, nil
	}
	if wt != protowire.BytesType {
		w, n := scalar(df.kind, wt, b)
		if n < 0 {
			return 0, errDecode
		}
		switch l.width {
		case wire.Signed32:
			l.setInt32s(appendScalar(o, l.int32s(), w))
		case wire.Unsigned32:
			l.setUint32s(appendScalar(o, l.uint32s(), w))
		default:
			l.setWords(appendScalar(o, l.words(), w))
		}
		return n, nil
	}
	return o.packedTo(l, df, b)
}

// appendScalar appends the word w to xs, the elements of a list of
// scalars.
func appendScalar[T wire.Scalars](o *decodeOptions, xs []T, w uint64) []T {
	if len(xs) == cap(xs) {
		xs = growScalars(&o.arena, xs)
		o.used += int64(cap(xs)) * scalarBytes[T]()
	}
	return append(xs, T(w))
}

// unpacked decodes the unpacked element of the list of scalars df whose
// tag is b[i:j] into m's list, and then each record that follows it with
// the same tag bytes (of a tag one or two bytes long), as message would
// one by one. It returns where the last record decoded ends in b.
func (o *decodeOptions) unpacked(df *decField, b []byte, i, j int, m *Message) (int, error) {
	l := o.listOf(df, m)
	var err error
	switch l.width {
	case wire.Signed32:
		var xs []int32
		xs, j, err = unpackedInto(o, df, b, i, j, l.int32s())
		l.setInt32s(xs)
	case wire.Unsigned32:
		var xs []uint32
		xs, j, err = unpackedInto(o, df, b, i, j, l.uint32s())
		l.setUint32s(xs)
	default:
		var xs []uint64
		xs, j, err = unpackedInto(o, df, b, i, j, l.words())
		l.setWords(xs)
	}
	return j, err
}

// unpackedInto is unpacked into xs, the list's elements: it returns them
// (those decoded before a fault too), and where the run ends or the
// fault.
func unpackedInto[T wire.Scalars](o *decodeOptions, df *decField, b []byte, i, j int, xs []T) ([]T, int, error) {
	run := runOf(b, i, j)
	op := df.elem
	for {
		var x uint64
		switch df.wire {
		case protowire.VarintType:
			if j < len(b) && b[j] < 0x80 {
				x, j = uint64(b[j]), j+1
			} else {
				v, k := protowire.ConsumeVarint(b[j:])
				if k < 0 {
					return xs, 0, errDecode
				}
				x, j = v, j+k
			}
		case protowire.Fixed32Type:
			if len(b)-j < 4 {
				return xs, 0, errDecode
			}
			x, j = uint64(binary.LittleEndian.Uint32(b[j:])), j+4
		default:
			if len(b)-j < 8 {
				return xs, 0, errDecode
			}
			x, j = binary.LittleEndian.Uint64(b[j:]), j+8
		}
		if len(xs) == cap(xs) {
			xs = growScalars(&o.arena, xs)
			if o.used += int64(cap(xs)) * scalarBytes[T](); o.used > o.limit {
				return xs, 0, ErrMemoryLimit
			}
		}
		xs = append(xs, T(op.word(x)))
		if k := run.next(b, j); k > 0 {
			j = k
		} else {
			break
		}
	}
	return xs, j, nil
}

// packedTo decodes a packed run of the list of scalars df, whose value
// starts b, into l, the list. It returns the length of the value.
func (o *decodeOptions) packedTo(l *list, df *decField, b []byte) (int, error) {
	switch l.width {
	case wire.Signed32:
		return packedInto[int32](o, l, df, b)
	case wire.Unsigned32:
		return packedInto[uint32](o, l, df, b)
	}
	return packedInto[uint64](o, l, df, b)
}

// packedInto is packedTo for a list of elements of type T.
func packedInto[T wire.Scalars](o *decodeOptions, l *list, df *decField, b []byte) (int, error) {
	v, n := shortBytes(b, 0)
	if n == 0 {
		if v, n = consumeBytes(b); n < 0 {
			return 0, errDecode
		}
	}
	xs := slots.Get[T](&l.elems)
	var count int
	switch df.wire {
	case protowire.Fixed32Type:
		count = len(v) / 4
	case protowire.Fixed64Type:
		count = len(v) / 8
	default:
		var short bool
		if count, short = countShort(b, n-len(v), len(v)); !short {
			count = countVarints(v)
		}
	}
	if cap(xs)-len(xs) < count {
		// Counted, and held to the limit, before the array is taken.
		o.used += int64(len(xs)+count) * scalarBytes[T]()
		if o.used > o.limit {
			return 0, ErrMemoryLimit
		}
		if len(xs) == 0 {
			xs = slots.Elems[T](o.takeWords(wordsFor[T](count)))[:0]
		} else {
			xs = slices.Grow(xs, count)
		}
	}
	// The values, by the element's op, without a call for each, and
	// without the op where T keeps the value read.
	op, convert := df.elem, df.converts
	switch df.wire {
	case protowire.Fixed32Type:
		for ; len(v) >= 4; v = v[4:] {
			x := uint64(binary.LittleEndian.Uint32(v))
			if convert {
				x = op.word(x)
			}
			xs = append(xs, T(x))
		}
	case protowire.Fixed64Type:
		for ; len(v) >= 8; v = v[8:] {
			xs = append(xs, T(binary.LittleEndian.Uint64(v)))
		}
	default:
		// Stored by index into the room counted above: count is the
		// number of varints that end in v, all of one byte when it is
		// v's length, and a varint that does not end stops the loop.
		at, out := len(xs), xs[len(xs):len(xs)+count]
		e, p := 0, 0
		if count == len(v) {
			out = out[:len(v)]
			if convert {
				for i, c := range v {
					out[i] = T(op.word(uint64(c)))
				}
			} else {
				for i, c := range v {
					out[i] = T(c)
				}
			}
			e, p = count, count
		}
		for p < len(v) && e < len(out) {
			x, k := uint64(v[p]), 1
			if x >= 0x80 {
				if x, k = protowire.ConsumeVarint(v[p:]); k < 0 {
					break
				}
			}
			if convert {
				x = op.word(x)
			}
			out[e] = T(x)
			e++
			p += k
		}
		xs = xs[:at+e]
		v = v[p:]
	}
	slots.Set(&l.elems, xs)
	if len(v) > 0 {
		return 0, errDecode
	}
	return n, nil
}

// keeps reports whether the word op makes of a value x, kept in a list
// of element width w, is the value x kept there, for every x: the
// packed loops then store the value as read.
func (op decOp) keeps(w wire.Width) bool {
	switch op {
	case opBool, opZigzag32, opZigzag64:
		return false
	case opInt32, opSfixed32, opUint32:
		return w != wire.Wide
	}
	return true
}

// listOf returns m's list of the repeated field df, storing a new one
// first if m has none.
func (o *decodeOptions) listOf(df *decField, m *Message) *list {
	p := m.listSlot(df.slot)
	l := *p
	if l == nil {
		l = o.newList(m.t.desc, df)
		*p = l
		df.mark(m.words())
	} else if o.reuse != nil && o.reuse.merge {
		o.reuse.grown(l)
	}
	return l
}

// appendString appends v, a value of the list of strings df (checked
// for UTF-8 as df asks), to m's list; rest is the input after v's
// record.
func (o *decodeOptions) appendString(df *decField, v, rest []byte, m *Message) {
	l := o.listOf(df, m)
	strs := slots.Get[string](&l.elems)
	if len(strs) == cap(strs) {
		strs = reserve(&o.lstrs, strs, rest, df.lf.Number, 8, strsLimit)
		o.used += int64(cap(strs)) * strBytes
	}
	l.setStrs(append(strs, o.string(v)))
}

// appendMessage decodes v into a new message that it appends to m's
// list of messages df; rest is the input after v's record, whose wire
// type is wt.
func (o *decodeOptions) appendMessage(df *decField, v, rest []byte, wt protowire.Type, m *Message, depth int) error {
	l := o.listOf(df, m)
	sub, ct := o.newChild(m.t.desc, df, len(v) == 0)
	if err := o.fields(v, sub, ct, depth); err != nil {
		return err
	}
	msgs := slots.Get[*Message](&l.elems)
	if len(msgs) == cap(msgs) {
		if wt == protowire.BytesType {
			msgs = o.reserveMsgs(msgs, rest, df.lf.Number)
		} else {
			msgs = grow(&o.lmsgs, msgs, 8, msgPtrLimit)
		}
		o.used += int64(cap(msgs)) * ptrBytes
	}
	l.setMsgs(append(msgs, sub))
	return nil
}

// appendMessages decodes the length-delimited record of the list of
// messages df whose tag is b[i:j] into a new message that it appends to
// m's list, and then each record that follows it with the same tag bytes
// (of a tag one or two bytes long), as message would one by one: the
// list, its array and the chunk of its messages are found once for the
// run. It returns where the last record
// decoded ends in b.
func (o *decodeOptions) appendMessages(df *decField, b []byte, i, j int, m *Message, depth int) (int, error) {
	l := o.listOf(df, m)
	s := df.rec.child.Load()
	if s == nil {
		s = df.rec.childShape(m.t.desc.Fields().Get(int(df.index)))
	}
	ct := s.dec.Load()
	if ct == nil {
		ct = s.decodeTable()
	}
	c := o.indexed(s, ct)
	if c == nil {
		c = o.find(s)
	}
	if c.t == nil {
		o.typeOf(c, m.t.desc.Fields().Get(int(df.index)).Message())
	}
	size := messageBytes + int64(s.slots.Bytes())
	msgs := slots.Get[*Message](&l.elems)
	// The tag's bytes: a run continues past a tag of one or two bytes
	// (fields numbered below 2048) written alike.
	run := runOf(b, i, j)
	for {
		v, k := shortBytes(b, j)
		if k == 0 {
			v, k = consumeBytes(b[j:])
		}
		if k < 0 {
			l.setMsgs(msgs)
			return 0, errDecode
		}
		j += k
		// Where the next record of the run starts, if one does: found
		// before v is decoded, so that the run's tag is not kept across
		// the call.
		next := run.next(b, j)
		// newChild's cut, from the run's chunk.
		var sub *Message
		switch {
		case len(v) == 0:
			sub = o.emptyOf(c)
		case o.reuse != nil:
			o.used += size
			c.n++
			sub = o.reuse.cut(c)
		default:
			o.used += size
			c.n++
			if c.c.Spent() {
				slots.RefillHeaded[Message](&c.c, &s.slots, 2, chunkBytes, chunkBytes)
			}
			var blk slots.Block
			sub, blk = slots.CutHeaded[Message](&c.c, &s.slots)
			sub.t, sub.block = c.t, blk
		}
		if err := o.fields(v, sub, ct, depth); err != nil {
			l.setMsgs(msgs)
			return 0, err
		}
		if len(msgs) == cap(msgs) {
			msgs = o.reserveMsgs(msgs, b[j:], df.lf.Number)
			o.used += int64(cap(msgs)) * ptrBytes
		}
		msgs = append(msgs, sub)
		if o.used > o.limit {
			l.setMsgs(msgs)
			return 0, ErrMemoryLimit
		}
		if next == 0 {
			break
		}
		j = next
	}
	l.setMsgs(msgs)
	return j, nil
}

// runTag is the tag of a run of records of one field, as written: its
// length n and its bytes, for a tag one or two bytes long (fields
// numbered below 2048); a run ends at a tag written otherwise.
type runTag struct {
	n      int
	t0, t1 byte
}

// runOf returns the run tag of the record whose tag is b[i:j].
func runOf(b []byte, i, j int) runTag {
	r := runTag{n: j - i, t0: b[i]}
	if r.n == 2 {
		r.t1 = b[i+1]
	}
	return r
}

// next returns where the value of the record at b[j:] starts if its tag
// is the run's and a value byte follows it, or 0.
func (r runTag) next(b []byte, j int) int {
	if k := j + r.n; k < len(b) && b[j] == r.t0 && (r.n == 1 || r.n == 2 && b[j+1] == r.t1) {
		return k
	}
	return 0
}

// countShort returns how many varints end in b[s:s+n], a range of
// fewer than eight bytes followed by enough of b to read eight at once
// (the bytes after the range are masked off), and true; or false for
// countVarints to count the range.
func countShort(b []byte, s, n int) (int, bool) {
	if n >= 8 || len(b)-s < 8 {
		return 0, false
	}
	w := binary.LittleEndian.Uint64(b[s:]) & (1<<(8*n) - 1)
	return n - bits.OnesCount64(w&0x8080808080808080), true
}

// countVarints returns how many varints end in b: the bytes without the
// continuation bit, eight at a time.
func countVarints(b []byte) int {
	n := 0
	for ; len(b) >= 8; b = b[8:] {
		n += 8 - bits.OnesCount64(binary.LittleEndian.Uint64(b)&0x8080808080808080)
	}
	for _, c := range b {
		if c < 0x80 {
			n++
		}
	}
	return n
}

// mapEntry decodes one entry of the map field df.
func (o *decodeOptions) mapEntry(df *decField, b []byte, wt protowire.Type, m *Message, depth int) (int, error) {
	// The entry counts against the recursion limit (before its wire type
	// is checked), as on the reflection path.
	if depth--; depth < 0 {
		return 0, errRecursionDepth
	}
	if wt != protowire.BytesType {
		return 0, errUnknown
	}
	rest := b
	b, n := consumeBytes(b)
	if n < 0 {
		return 0, errDecode
	}
	rest = rest[n:]
	o.used += entryBytes
	mp := m.maps()[df.slot]
	if mp == nil {
		o.used += mapBytes
		// Room for this entry and those of the field that follow it one
		// after the other, as encoders write a map, within what the
		// memory limit leaves for their entries.
		size := 1 + countRun(rest, df.lf.Number)
		if left := (o.limit - o.used) / entryBytes; int64(size) > left {
			size = int(max(left, 0))
		}
		mp = newMapSized(m.t.desc.Fields().Get(int(df.index)), size)
		m.maps()[df.slot] = mp
		m.touch(int(df.index))
	}
	kf, vf := df.lf.MapKey, df.lf.MapValue
	var (
		kw   uint64
		ks   string
		val  protoreflect.Value
		have bool
		// vs is the shape of a message value, vmd its descriptor; sub is
		// the value, made at its first record (with the zero block if
		// that record is empty) or after the entry if it has none.
		vs  *shape
		vmd protoreflect.MessageDescriptor
		sub *Message
	)
	if vf.IsMessage() {
		vmd, vs = mp.vd.Message(), df.value.Load()
		if vs == nil {
			vs = shapeOf(vmd)
			df.value.Store(vs)
		}
	}
	for len(b) > 0 {
		num, ewt, k := protowire.ConsumeTag(b)
		if k < 0 || num > protowire.MaxValidNumber {
			return 0, errDecode
		}
		b = b[k:]
		k = -1
		switch {
		case num == 1 && ewt == kf.WireType:
			if kf.Kind == protoreflect.StringKind {
				var v []byte
				v, k = consumeBytes(b)
				if k >= 0 {
					if kf.ValidateUTF8 && !utf8x.Valid(v) {
						return 0, errInvalidUTF8(kf.FullName)
					}
					ks = o.string(v)
				}
			} else {
				kw, k = scalar(kf.Kind, ewt, b)
			}
			if k < 0 {
				return 0, errDecode
			}
		case num == 2 && ewt == vf.WireType:
			var err error
			if vs != nil {
				var v []byte
				if ewt == protowire.BytesType {
					v, k = consumeBytes(b)
				} else {
					v, k = protowire.ConsumeGroup(2, b)
				}
				if k < 0 {
					return 0, errDecode
				}
				if sub == nil {
					sub = o.newMessage(vmd, vs, len(v) == 0)
				}
				err = o.message(v, sub, depth)
			} else {
				val, k, err = o.singular(vf.Kind, ewt, b, vf.ValidateUTF8, vf.FullName)
			}
			if err != nil {
				return 0, err
			}
			have = true
		}
		if k < 0 {
			// Another field, or the key or value with another wire type:
			// skipped.
			k = protowire.ConsumeFieldValue(num, ewt, b)
			if k < 0 {
				return 0, errDecode
			}
		}
		b = b[k:]
	}
	switch {
	case vs != nil:
		if sub == nil {
			sub = o.newMessage(vmd, vs, true)
		}
		val = protoreflect.ValueOfMessage(sub)
	case !have:
		val = mp.vd.Default()
	}
	if mp.strs != nil {
		mp.strs[ks] = val
	} else {
		mp.words[kw] = val
	}
	return n, nil
}

// singular decodes one value of kind k (not a message) of wire type wt,
// the one k takes, as a protoreflect.Value, checking a string's UTF-8
// when validate is set (name names the field in the error).
func (a *arena) singular(k protoreflect.Kind, wt protowire.Type, b []byte, validate bool, name protoreflect.FullName) (protoreflect.Value, int, error) {
	switch k {
	case protoreflect.StringKind:
		v, n := consumeBytes(b)
		if n < 0 {
			return protoreflect.Value{}, 0, errDecode
		}
		if validate && !utf8x.Valid(v) {
			return protoreflect.Value{}, 0, errInvalidUTF8(name)
		}
		return protoreflect.ValueOfString(a.string(v)), n, nil
	case protoreflect.BytesKind:
		v, n := consumeBytes(b)
		if n < 0 {
			return protoreflect.Value{}, 0, errDecode
		}
		return protoreflect.ValueOfBytes(a.copyBytes(v)), n, nil
	}
	w, n := scalar(k, wt, b)
	if n < 0 {
		return protoreflect.Value{}, 0, errDecode
	}
	return fromWord(k, w), n, nil
}

// extension decodes one record of the extension numbered num, if the
// resolver knows it; otherwise it returns errUnknown.
func (o *decodeOptions) extension(b []byte, num protowire.Number, wt protowire.Type, m *Message, depth int) (int, error) {
	xt, err := o.resolver.FindExtensionByNumber(m.t.desc.FullName(), num)
	if err != nil {
		if err == protoregistry.NotFound {
			return 0, errUnknown
		}
		return 0, &decodeError{string(m.t.desc.FullName()) + ": unable to resolve extension " + strconv.Itoa(int(num)) + ": " + err.Error()}
	}
	if xt == nil {
		return 0, errUnknown
	}
	xd := xt.TypeDescriptor()
	k := xd.Kind()
	want := wire.WireType(k)
	if xd.IsList() {
		if wt != want && !(wire.Packable(k) && wt == protowire.BytesType) {
			return 0, errUnknown
		}
	} else if wt != want {
		return 0, errUnknown
	}
	o.used += entryBytes
	// The value in place, or a new one, as Mutable would give it.
	x, ok := m.ext(num)
	if !ok || x.fd != protoreflect.FieldDescriptor(xd) {
		x = extension{num: num, fd: xd}
		if xd.IsList() || xd.Message() != nil {
			x.v = xt.New()
		}
	}
	validate := k == protoreflect.StringKind && layout.Extension(xd).ValidateUTF8
	var n int
	switch {
	case k == protoreflect.MessageKind || k == protoreflect.GroupKind:
		var v []byte
		if wt == protowire.BytesType {
			v, n = consumeBytes(b)
		} else {
			v, n = protowire.ConsumeGroup(num, b)
		}
		if n < 0 {
			return 0, errDecode
		}
		sub := x.v
		if xd.IsList() {
			sub = x.v.List().NewElement()
		}
		if err := o.anyMessage(v, sub.Message(), depth); err != nil {
			return 0, err
		}
		if xd.IsList() {
			x.v.List().Append(sub)
		}
	case xd.IsList() && wt == protowire.BytesType && wire.Packable(k):
		var v []byte
		v, n = consumeBytes(b)
		if n < 0 {
			return 0, errDecode
		}
		l := x.v.List()
		for len(v) > 0 {
			e, k2, err := o.singular(k, want, v, false, "")
			if err != nil {
				return 0, err
			}
			l.Append(e)
			v = v[k2:]
		}
	default:
		var e protoreflect.Value
		e, n, err = o.singular(k, wt, b, validate, xd.FullName())
		if err != nil {
			return 0, err
		}
		if xd.IsList() {
			x.v.List().Append(e)
		} else {
			x.v = e
		}
	}
	o.unchecked = true
	m.setExt(x)
	return n, nil
}

// anyMessage decodes b into m2, which may be a message of another
// implementation (an extension's value).
func (o *decodeOptions) anyMessage(b []byte, m2 protoreflect.Message, depth int) error {
	if dm, ok := m2.(*Message); ok {
		return o.message(b, dm, depth)
	}
	if depth <= 0 {
		return errRecursionDepth
	}
	_, err := proto.UnmarshalOptions{
		Merge:          true,
		AllowPartial:   true,
		DiscardUnknown: o.discard,
		Resolver:       o.resolver,
		RecursionLimit: depth,
	}.UnmarshalState(protoiface.UnmarshalInput{Message: m2, Buf: b})
	return err
}

// checkInitializedMethod is the CheckInitialized method of a Message's
// protoiface.Methods.
func checkInitializedMethod(in protoiface.CheckInitializedInput) (protoiface.CheckInitializedOutput, error) {
	var out protoiface.CheckInitializedOutput
	m, ok := in.Message.(*Message)
	if !ok {
		return out, proto.CheckInitialized(in.Message.Interface())
	}
	return out, m.checkInitialized()
}

// checkInitialized returns an error naming a required field that is not
// set in m or in a message it holds, as proto.CheckInitialized does on
// the reflection path: m's own required fields in declaration order
// first, then its messages in Range order (fields in declaration order,
// then extensions).
func (m *Message) checkInitialized() error {
	t := m.t.shape.decodeTable()
	if !t.check {
		return nil
	}
	for _, i := range t.required {
		if !m.IsValid() || !m.has(&m.t.shape.fields[i], int(i)) {
			return errRequiredNotSet(m.t.desc.Fields().Get(int(i)).FullName())
		}
	}
	if !m.IsValid() {
		return nil
	}
	s, words := m.t.shape, m.words()
	for k, mask := range t.checkFields {
		// The fields to look into that were stored to, by index.
		for w := s.touchedBits(words, k) & mask; w != 0; w &= w - 1 {
			if err := m.checkField(k*64 + bits.TrailingZeros64(w)); err != nil {
				return err
			}
		}
	}
	for _, x := range m.exts() {
		if x.fd.Message() == nil {
			continue
		}
		if x.fd.IsList() {
			l := x.v.List()
			for i := range l.Len() {
				if err := checkMessageInitialized(l.Get(i).Message()); err != nil {
					return err
				}
			}
		} else if err := checkMessageInitialized(x.v.Message()); err != nil {
			return err
		}
	}
	return nil
}

// checkField checks the messages of the field at index i of m, a
// message field, a list of messages or a map of messages.
func (m *Message) checkField(i int) error {
	f := &m.t.shape.fields[i]
	var err error
	switch f.class {
	case classMessage:
		if sub := m.msgAt(f.slot); sub != nil && m.has(f, i) {
			err = sub.checkInitialized()
		}
	case classList:
		if l := m.lists()[f.slot]; l != nil {
			for _, sub := range l.msgs() {
				if err = sub.checkInitialized(); err != nil {
					break
				}
			}
		}
	case classMap:
		if mp := m.maps()[f.slot]; mp != nil && mp.vd.Message() != nil {
			mp.Range(func(_ protoreflect.MapKey, v protoreflect.Value) bool {
				err = checkMessageInitialized(v.Message())
				return err == nil
			})
		}
	}
	return err
}

// checkMessageInitialized checks m2, a message of any implementation.
func checkMessageInitialized(m2 protoreflect.Message) error {
	if dm, ok := m2.(*Message); ok {
		return dm.checkInitialized()
	}
	return proto.CheckInitialized(m2.Interface())
}
