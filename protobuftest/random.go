package protobuftest

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

// RandOptions bounds what Fill generates. The zero value gives nested
// messages three levels deep, lists and maps of up to four elements, every
// required field set, and no unknown fields or extensions.
type RandOptions struct {
	// MaxDepth is the nesting depth for message fields (default 3 when 0).
	// Below it, message fields are set only when they are required.
	MaxDepth int
	// MaxList is the maximum length of repeated fields and maps (default 4
	// when 0).
	MaxList int
	// Unknown appends random but well-formed unknown fields (varint,
	// fixed32, fixed64, bytes and group records) whose numbers are neither
	// declared in the message nor in its extension ranges.
	Unknown bool
	// NoMaps leaves map fields empty.
	NoMaps bool
	// Partial may leave required fields unset. By default every required
	// field is set, so the messages marshal without AllowPartial.
	Partial bool
	// Extensions lists the extension types that may be set on the messages
	// they extend (matched by ContainingMessage().FullName()). Their order
	// does not matter: they are used in ascending field number.
	Extensions []protoreflect.ExtensionType
}

const (
	defaultMaxDepth = 3
	defaultMaxList  = 4
	// requiredSlack bounds how far below MaxDepth required message fields
	// are still followed, so that a schema whose required fields form a
	// cycle (which no finite message can satisfy) stops.
	requiredSlack = 32
)

// Fill sets random fields of m, which must be empty and mutable, from seed.
//
// The same seed, options and descriptor shape give the same content whether
// m is a generated message or a dynamicpb one, so twins can be built
// independently: every random draw depends only on the walk over the
// descriptors (fields in declaration order, extensions in ascending number),
// never on Range order, Go map iteration or pointer values.
//
// The values cover every kind, with edge values (zero, ±1, the limits of
// each integer kind, -0.0, NaN, ±Inf, the smallest denormal, the largest
// finite float), empty, non-ASCII and long strings (all valid UTF-8), nil
// and empty bytes, declared and undeclared enum numbers, lists of zero or
// more elements, maps with default keys and default values, oneofs unset or
// set (sometimes to a zero value), nested messages and groups, extensions
// from opts.Extensions, and unknown fields when opts.Unknown is set.
func Fill(m protoreflect.Message, seed uint64, opts RandOptions) {
	if !m.IsValid() {
		panic("protobuftest.Fill: message is not valid (nil or read-only)")
	}
	if opts.MaxDepth <= 0 {
		opts.MaxDepth = defaultMaxDepth
	}
	if opts.MaxList <= 0 {
		opts.MaxList = defaultMaxList
	}
	f := &filler{
		r:    rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		opts: opts,
		exts: extensionsByMessage(opts.Extensions),
	}
	f.message(m, 0)
}

// NewPair creates a message of gen and one of dyn and fills both from the
// same seed and options, with opts.Extensions set to genExts and dynExts
// respectively. When gen and dyn describe the same schema the two messages
// hold the same content.
func NewPair(gen, dyn protoreflect.MessageType, genExts, dynExts []protoreflect.ExtensionType, seed uint64, opts RandOptions) (g, d proto.Message) {
	gm := gen.New()
	opts.Extensions = genExts
	Fill(gm, seed, opts)
	dm := dyn.New()
	opts.Extensions = dynExts
	Fill(dm, seed, opts)
	return gm.Interface(), dm.Interface()
}

// extensionsByMessage groups xts by the full name of the message they
// extend, each group sorted by field number. Of two types with the same
// number for the same message the first one listed is kept.
func extensionsByMessage(xts []protoreflect.ExtensionType) map[protoreflect.FullName][]protoreflect.ExtensionType {
	if len(xts) == 0 {
		return nil
	}
	byMsg := make(map[protoreflect.FullName][]protoreflect.ExtensionType)
	for _, xt := range xts {
		if xt == nil {
			continue
		}
		xd := xt.TypeDescriptor()
		name := xd.ContainingMessage().FullName()
		dup := false
		for _, have := range byMsg[name] {
			if have.TypeDescriptor().Number() == xd.Number() {
				dup = true
				break
			}
		}
		if !dup {
			byMsg[name] = append(byMsg[name], xt)
		}
	}
	for _, list := range byMsg {
		slices.SortStableFunc(list, func(a, b protoreflect.ExtensionType) int {
			return cmp.Compare(a.TypeDescriptor().Number(), b.TypeDescriptor().Number())
		})
	}
	return byMsg
}

type filler struct {
	r    *rand.Rand
	opts RandOptions
	exts map[protoreflect.FullName][]protoreflect.ExtensionType
}

// chance reports true with probability num/den.
func (f *filler) chance(num, den int) bool { return f.r.IntN(den) < num }

// message fills m, which sits depth levels below the top message.
func (f *filler) message(m protoreflect.Message, depth int) {
	f.fill(m, depth, true)
}

// required sets only the required fields of m (unless opts.Partial), so
// that a message chosen to be empty still marshals without AllowPartial.
func (f *filler) required(m protoreflect.Message, depth int) {
	f.fill(m, depth, false)
}

// fill fills m, which sits depth levels below the top message. Below
// MaxDepth, or when full is false, only required fields are set (which may
// need further messages).
func (f *filler) fill(m protoreflect.Message, depth int, full bool) {
	requiredOnly := !full || depth > f.opts.MaxDepth
	if requiredOnly && (f.opts.Partial || depth > f.opts.MaxDepth+requiredSlack) {
		return
	}
	md := m.Descriptor()
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if requiredOnly {
			if fd.Cardinality() == protoreflect.Required && !f.opts.Partial {
				f.singular(m, fd, depth)
			}
			continue
		}
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			// A real oneof is handled once, at its first member.
			if od.Fields().Get(0).Number() == fd.Number() {
				f.oneof(m, od, depth)
			}
			continue
		}
		switch {
		case fd.IsMap():
			f.mapField(m, fd, depth)
		case fd.IsList():
			f.listField(m, fd, depth)
		default:
			f.singular(m, fd, depth)
		}
	}
	if requiredOnly {
		return
	}
	for _, xt := range f.exts[md.FullName()] {
		f.extension(m, xt, depth)
	}
	if f.opts.Unknown && f.chance(1, 3) && !isMessageSet(md) {
		f.unknown(m)
	}
}

// maybeEmpty fills m fully when full is true, and otherwise leaves it as
// empty as its required fields allow.
func (f *filler) maybeEmpty(m protoreflect.Message, depth int, full bool) {
	if full {
		f.message(m, depth)
	} else {
		f.required(m, depth)
	}
}

// singular fills a non-repeated field that is not in a real oneof.
func (f *filler) singular(m protoreflect.Message, fd protoreflect.FieldDescriptor, depth int) {
	required := fd.Cardinality() == protoreflect.Required && !f.opts.Partial
	if isMessageKind(fd) {
		if !required {
			if depth >= f.opts.MaxDepth || !f.chance(1, 2) {
				return
			}
		}
		v := m.NewField(fd)
		f.maybeEmpty(v.Message(), depth+1, required || !f.chance(1, 6))
		m.Set(fd, v)
		return
	}
	if !required {
		if fd.HasPresence() {
			if !f.chance(1, 2) {
				return
			}
		} else if !f.chance(3, 5) {
			return
		}
	}
	v := f.scalar(fd)
	if fd.Kind() == protoreflect.BytesKind && fd.HasPresence() && v.Bytes() == nil {
		v = protoreflect.ValueOfBytes([]byte{})
	}
	m.Set(fd, v)
}

// oneof leaves od unset, or sets one member to its zero value or to a
// random value.
func (f *filler) oneof(m protoreflect.Message, od protoreflect.OneofDescriptor, depth int) {
	if f.chance(1, 4) {
		return
	}
	members := od.Fields()
	fd := members.Get(f.r.IntN(members.Len()))
	zero := f.chance(1, 3)
	if isMessageKind(fd) {
		v := m.NewField(fd)
		f.maybeEmpty(v.Message(), depth+1, !zero)
		m.Set(fd, v)
		return
	}
	if zero {
		m.Set(fd, f.zero(fd))
		return
	}
	m.Set(fd, f.scalar(fd))
}

// listField sets a repeated field to 0..MaxList elements.
func (f *filler) listField(m protoreflect.Message, fd protoreflect.FieldDescriptor, depth int) {
	if isMessageKind(fd) && depth >= f.opts.MaxDepth {
		return
	}
	if !f.chance(3, 5) {
		return
	}
	n := f.r.IntN(f.opts.MaxList + 1)
	if n == 0 {
		return
	}
	v := m.NewField(fd)
	f.fillList(v.List(), fd, n, depth)
	m.Set(fd, v)
}

// fillList appends n random elements for fd to l.
func (f *filler) fillList(l protoreflect.List, fd protoreflect.FieldDescriptor, n, depth int) {
	for range n {
		if isMessageKind(fd) {
			e := l.NewElement()
			f.maybeEmpty(e.Message(), depth+1, !f.chance(1, 6))
			l.Append(e)
			continue
		}
		l.Append(f.scalar(fd))
	}
}

// mapField sets a map field to 0..MaxList entries, with default keys and
// default values among them.
func (f *filler) mapField(m protoreflect.Message, fd protoreflect.FieldDescriptor, depth int) {
	if f.opts.NoMaps {
		return
	}
	kd, vd := fd.MapKey(), fd.MapValue()
	if isMessageKind(vd) && depth >= f.opts.MaxDepth {
		return
	}
	if !f.chance(3, 5) {
		return
	}
	n := f.r.IntN(f.opts.MaxList + 1)
	if n == 0 {
		return
	}
	v := m.NewField(fd)
	mp := v.Map()
	for range n {
		var k protoreflect.Value
		if f.chance(1, 4) {
			k = f.zero(kd)
		} else {
			k = f.scalar(kd)
		}
		var val protoreflect.Value
		switch {
		case isMessageKind(vd):
			val = mp.NewValue()
			f.maybeEmpty(val.Message(), depth+1, !f.chance(1, 5))
		case f.chance(1, 4):
			val = f.zero(vd)
		default:
			val = f.scalar(vd)
		}
		mp.Set(k.MapKey(), val)
	}
	m.Set(fd, v)
}

// extension may set the extension xt on m.
func (f *filler) extension(m protoreflect.Message, xt protoreflect.ExtensionType, depth int) {
	xd := xt.TypeDescriptor()
	if !m.Descriptor().ExtensionRanges().Has(xd.Number()) {
		return
	}
	if isMessageKind(xd) && depth >= f.opts.MaxDepth {
		return
	}
	if !f.chance(1, 2) {
		return
	}
	v := m.NewField(xd)
	switch {
	case xd.IsList():
		f.fillList(v.List(), xd, 1+f.r.IntN(f.opts.MaxList), depth)
	case isMessageKind(xd):
		f.maybeEmpty(v.Message(), depth+1, !f.chance(1, 6))
	default:
		v = f.scalar(xd)
		if xd.Kind() == protoreflect.BytesKind && v.Bytes() == nil {
			v = protoreflect.ValueOfBytes([]byte{})
		}
	}
	m.Set(xd, v)
}

// unknown appends 1..3 well-formed unknown records to m.
func (f *filler) unknown(m protoreflect.Message) {
	md := m.Descriptor()
	b := append([]byte(nil), m.GetUnknown()...)
	for range 1 + f.r.IntN(3) {
		num := f.unknownNumber(md)
		if num == 0 {
			continue
		}
		if f.chance(1, 5) {
			b = protowire.AppendTag(b, num, protowire.StartGroupType)
			for range f.r.IntN(3) {
				b = f.unknownRecord(b, protowire.Number(1+f.r.IntN(100)))
			}
			b = protowire.AppendTag(b, num, protowire.EndGroupType)
			continue
		}
		b = f.unknownRecord(b, num)
	}
	if len(b) > 0 {
		m.SetUnknown(b)
	}
}

// unknownRecord appends one varint, fixed32, fixed64 or bytes record.
func (f *filler) unknownRecord(b []byte, num protowire.Number) []byte {
	switch f.r.IntN(4) {
	case 0:
		b = protowire.AppendTag(b, num, protowire.VarintType)
		b = protowire.AppendVarint(b, f.r.Uint64()>>f.r.IntN(64))
	case 1:
		b = protowire.AppendTag(b, num, protowire.Fixed32Type)
		b = protowire.AppendFixed32(b, f.r.Uint32())
	case 2:
		b = protowire.AppendTag(b, num, protowire.Fixed64Type)
		b = protowire.AppendFixed64(b, f.r.Uint64())
	default:
		b = protowire.AppendTag(b, num, protowire.BytesType)
		b = protowire.AppendBytes(b, f.bytes())
	}
	return b
}

// unknownNumber draws a field number that is not declared in md, not in
// its extension ranges and not in the reserved 19000-19999 range. It
// returns 0 when a few draws all fail.
func (f *filler) unknownNumber(md protoreflect.MessageDescriptor) protowire.Number {
	for range 8 {
		var n protowire.Number
		switch f.r.IntN(3) {
		case 0:
			n = protowire.Number(1 + f.r.IntN(64))
		case 1:
			n = protowire.Number(1 + f.r.IntN(30000))
		default:
			n = protowire.Number(1 + f.r.IntN(int(protowire.MaxValidNumber)))
		}
		if n >= protowire.FirstReservedNumber && n <= protowire.LastReservedNumber {
			continue
		}
		if md.Fields().ByNumber(n) != nil || md.ExtensionRanges().Has(n) {
			continue
		}
		return n
	}
	return 0
}

// zero returns the zero value of a scalar field's kind (nil or empty bytes
// at random).
func (f *filler) zero(fd protoreflect.FieldDescriptor) protoreflect.Value {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(false)
	case protoreflect.EnumKind:
		return protoreflect.ValueOfEnum(0)
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(0)
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(0)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(0)
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(0)
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(0)
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(0)
	case protoreflect.StringKind:
		return protoreflect.ValueOfString("")
	case protoreflect.BytesKind:
		if f.chance(1, 2) {
			return protoreflect.ValueOfBytes(nil)
		}
		return protoreflect.ValueOfBytes([]byte{})
	}
	panic("protobuftest: no zero value for kind " + fd.Kind().String())
}

// Edge values per kind. Zero is listed first in each.
var (
	edgeInt32 = []int32{0, 1, -1, math.MinInt32, math.MaxInt32, 63, 64, 127, 128, -64, -65, 16383, 16384}
	edgeInt64 = []int64{0, 1, -1, math.MinInt64, math.MaxInt64, math.MinInt32, math.MaxInt32,
		math.MaxUint32, 127, 128, -65, 1 << 35, 1 << 56}
	edgeUint32 = []uint32{0, 1, math.MaxUint32, 127, 128, 16383, 16384, 1 << 31}
	edgeUint64 = []uint64{0, 1, math.MaxUint64, math.MaxInt64, 1 << 63, 127, 128, math.MaxUint32, 1 << 56}
	edgeDouble = []float64{0, math.Copysign(0, -1), 1, -1, math.NaN(), math.Inf(1), math.Inf(-1),
		math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, math.MaxFloat64, -math.MaxFloat64,
		math.Float64frombits(0xfff8000000000000), 0.1, 1e-300}
	edgeFloat = []float32{0, float32(math.Copysign(0, -1)), 1, -1, float32(math.NaN()),
		float32(math.Inf(1)), float32(math.Inf(-1)), math.SmallestNonzeroFloat32,
		-math.SmallestNonzeroFloat32, math.MaxFloat32, -math.MaxFloat32,
		math.Float32frombits(0xffc00000), 0.1}
	edgeString = []string{"", "a", "é", "日本", "😀", "hello, world", "\x00", "a\u00e9\u65e5\U0001F600z",
		strings.Repeat("x", 127), strings.Repeat("y", 128), strings.Repeat("é", 150)}
	// randomRunes are the character classes random strings draw from.
	randomRunes = [][2]rune{{'a', 'z'}, {' ', '~'}, {0xa0, 0x24f}, {0x3040, 0x30ff}, {0x4e00, 0x4fff}, {0x1f600, 0x1f64f}}
)

// scalar returns a random value for a non-message field of fd's kind.
func (f *filler) scalar(fd protoreflect.FieldDescriptor) protoreflect.Value {
	edge := f.chance(1, 2)
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(f.chance(1, 2))
	case protoreflect.EnumKind:
		return protoreflect.ValueOfEnum(f.enum(fd.Enum()))
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		if edge {
			return protoreflect.ValueOfInt32(edgeInt32[f.r.IntN(len(edgeInt32))])
		}
		return protoreflect.ValueOfInt32(int32(f.r.Uint32()) >> f.r.IntN(32))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		if edge {
			return protoreflect.ValueOfInt64(edgeInt64[f.r.IntN(len(edgeInt64))])
		}
		return protoreflect.ValueOfInt64(int64(f.r.Uint64()) >> f.r.IntN(64))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		if edge {
			return protoreflect.ValueOfUint32(edgeUint32[f.r.IntN(len(edgeUint32))])
		}
		return protoreflect.ValueOfUint32(f.r.Uint32() >> f.r.IntN(32))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		if edge {
			return protoreflect.ValueOfUint64(edgeUint64[f.r.IntN(len(edgeUint64))])
		}
		return protoreflect.ValueOfUint64(f.r.Uint64() >> f.r.IntN(64))
	case protoreflect.FloatKind:
		if edge {
			return protoreflect.ValueOfFloat32(edgeFloat[f.r.IntN(len(edgeFloat))])
		}
		return protoreflect.ValueOfFloat32(float32((f.r.Float64() - 0.5) * math.Pow(10, float64(f.r.IntN(20)-10))))
	case protoreflect.DoubleKind:
		if edge {
			return protoreflect.ValueOfFloat64(edgeDouble[f.r.IntN(len(edgeDouble))])
		}
		return protoreflect.ValueOfFloat64((f.r.Float64() - 0.5) * math.Pow(10, float64(f.r.IntN(40)-20)))
	case protoreflect.StringKind:
		if edge {
			return protoreflect.ValueOfString(edgeString[f.r.IntN(len(edgeString))])
		}
		return protoreflect.ValueOfString(f.text())
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes(f.bytes())
	}
	panic("protobuftest: no scalar value for kind " + fd.Kind().String())
}

// enum returns a declared number of ed most of the time, otherwise an
// undeclared one (or 0, which may be undeclared too).
func (f *filler) enum(ed protoreflect.EnumDescriptor) protoreflect.EnumNumber {
	values := ed.Values()
	if values.Len() > 0 && f.chance(7, 10) {
		return values.Get(f.r.IntN(values.Len())).Number()
	}
	maxNum := protoreflect.EnumNumber(0)
	for i := 0; i < values.Len(); i++ {
		maxNum = max(maxNum, values.Get(i).Number())
	}
	switch f.r.IntN(6) {
	case 0:
		return 0
	case 1:
		return -1
	case 2:
		return math.MaxInt32
	case 3:
		return math.MinInt32
	case 4:
		if maxNum < math.MaxInt32 {
			return maxNum + 1
		}
		return 12345
	default:
		return 12345
	}
}

// text returns a random valid UTF-8 string of 0..40 runes.
func (f *filler) text() string {
	n := f.r.IntN(41)
	class := randomRunes[f.r.IntN(len(randomRunes))]
	mixed := f.chance(1, 3)
	var sb strings.Builder
	for range n {
		if mixed {
			class = randomRunes[f.r.IntN(len(randomRunes))]
		}
		sb.WriteRune(class[0] + rune(f.r.IntN(int(class[1]-class[0]+1))))
	}
	return sb.String()
}

// bytes returns nil, empty, short, 127/128-byte or 300-byte random bytes.
func (f *filler) bytes() []byte {
	var n int
	switch f.r.IntN(8) {
	case 0:
		return nil
	case 1:
		return []byte{}
	case 2:
		n = 127 + f.r.IntN(2)
	case 3:
		n = 300
	default:
		n = 1 + f.r.IntN(20)
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(f.r.Uint32())
	}
	return b
}

func isMessageKind(fd protoreflect.FieldDescriptor) bool {
	k := fd.Kind()
	return k == protoreflect.MessageKind || k == protoreflect.GroupKind
}

// isMessageSet reports whether md uses the MessageSet wire format, whose
// unknown fields generated messages drop when marshaling.
func isMessageSet(md protoreflect.MessageDescriptor) bool {
	opts, ok := md.Options().(*descriptorpb.MessageOptions)
	return ok && opts.GetMessageSetWireFormat()
}
