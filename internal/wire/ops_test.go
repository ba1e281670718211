package wire

import (
	"cmp"
	"math"
	"slices"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// scalarKinds are the kinds whose values the scalar ops write, with
// values at the edges of each kind's range.
var scalarKinds = []struct {
	kind protoreflect.Kind
	vals []protoreflect.Value
}{
	{protoreflect.BoolKind, []protoreflect.Value{protoreflect.ValueOfBool(false), protoreflect.ValueOfBool(true)}},
	{protoreflect.EnumKind, []protoreflect.Value{protoreflect.ValueOfEnum(0), protoreflect.ValueOfEnum(-1), protoreflect.ValueOfEnum(math.MaxInt32), protoreflect.ValueOfEnum(math.MinInt32)}},
	{protoreflect.Int32Kind, int32s()},
	{protoreflect.Sint32Kind, int32s()},
	{protoreflect.Sfixed32Kind, int32s()},
	{protoreflect.Int64Kind, int64s()},
	{protoreflect.Sint64Kind, int64s()},
	{protoreflect.Sfixed64Kind, int64s()},
	{protoreflect.Uint32Kind, uint32s()},
	{protoreflect.Fixed32Kind, uint32s()},
	{protoreflect.Uint64Kind, uint64s()},
	{protoreflect.Fixed64Kind, uint64s()},
	{protoreflect.FloatKind, []protoreflect.Value{protoreflect.ValueOfFloat32(0), protoreflect.ValueOfFloat32(float32(math.Copysign(0, -1))), protoreflect.ValueOfFloat32(-1.5), protoreflect.ValueOfFloat32(float32(math.Inf(1)))}},
	{protoreflect.DoubleKind, []protoreflect.Value{protoreflect.ValueOfFloat64(0), protoreflect.ValueOfFloat64(math.Copysign(0, -1)), protoreflect.ValueOfFloat64(-1.5), protoreflect.ValueOfFloat64(math.NaN())}},
}

func int32s() []protoreflect.Value {
	var vs []protoreflect.Value
	for _, x := range []int32{0, 1, -1, 63, -64, 64, math.MaxInt32, math.MinInt32} {
		vs = append(vs, protoreflect.ValueOfInt32(x))
	}
	return vs
}

func int64s() []protoreflect.Value {
	var vs []protoreflect.Value
	for _, x := range []int64{0, 1, -1, math.MaxInt32 + 1, math.MinInt32 - 1, math.MaxInt64, math.MinInt64} {
		vs = append(vs, protoreflect.ValueOfInt64(x))
	}
	return vs
}

func uint32s() []protoreflect.Value {
	var vs []protoreflect.Value
	for _, x := range []uint32{0, 1, 127, 128, math.MaxUint32} {
		vs = append(vs, protoreflect.ValueOfUint32(x))
	}
	return vs
}

func uint64s() []protoreflect.Value {
	var vs []protoreflect.Value
	for _, x := range []uint64{0, 1, 127, 128, math.MaxUint32 + 1, math.MaxUint64} {
		vs = append(vs, protoreflect.ValueOfUint64(x))
	}
	return vs
}

// TestWordOps holds the word rules to protowire's encoding of each kind:
// AppendWord writes what protowire writes for the value, PutWord stores
// the same bytes, SizeWord counts them, and WireWord gives back the word from the value read off the wire.
func TestWordOps(t *testing.T) {
	for _, k := range scalarKinds {
		op := ValueOp(k.kind)
		if !op.IsScalar() || !Packable(k.kind) {
			t.Fatalf("%v: op %d is not scalar", k.kind, op)
		}
		for _, v := range k.vals {
			w := Word(k.kind, v)
			got := AppendWord([]byte{0xee}, op, w)[1:]
			if want := reference(k.kind, v); string(got) != string(want) {
				t.Errorf("%v %v: AppendWord % x, want % x", k.kind, v, got, want)
			}
			if SizeWord(op, w) != len(got) {
				t.Errorf("%v %v: SizeWord %d, appended %d", k.kind, v, SizeWord(op, w), len(got))
			}
			// PutWord stores the same bytes into capacity, after a
			// prefix it leaves alone.
			buf := slices.Repeat([]byte{0xee}, 16)
			if end := PutWord(buf, 3, op, w); end != 3+len(got) || string(buf[3:end]) != string(got) ||
				string(buf[:3]) != "\xee\xee\xee" {
				t.Errorf("%v %v: PutWord % x (to %d), want % x", k.kind, v, buf, end, got)
			}
			var x uint64
			switch WireType(k.kind) {
			case protowire.VarintType:
				x, _ = protowire.ConsumeVarint(got)
			case protowire.Fixed32Type:
				x32, _ := protowire.ConsumeFixed32(got)
				x = uint64(x32)
			default:
				x, _ = protowire.ConsumeFixed64(got)
			}
			if back := WireWord(k.kind, x); back != w {
				t.Errorf("%v %v: WireWord %#x, want the word %#x", k.kind, v, back, w)
			}
		}
		words := make([]uint64, len(k.vals))
		var body []byte
		for i, v := range k.vals {
			words[i] = Word(k.kind, v)
			body = append(body, reference(k.kind, v)...)
		}
		if got := AppendPackedWords(nil, op, words); string(got) != string(body) {
			t.Errorf("%v: AppendPackedWords % x, want % x", k.kind, got, body)
		}
		if PackedSize(op, words) != len(body) {
			t.Errorf("%v: PackedSize %d, want %d", k.kind, PackedSize(op, words), len(body))
		}
	}
	for _, k := range []protoreflect.Kind{protoreflect.StringKind, protoreflect.BytesKind, protoreflect.MessageKind, protoreflect.GroupKind} {
		if ValueOp(k).IsScalar() || Packable(k) {
			t.Errorf("%v: counted as a scalar", k)
		}
	}
}

// TestWireWordCuts checks that a varint too wide for a 32-bit kind is cut
// as proto.Unmarshal cuts it.
func TestWireWordCuts(t *testing.T) {
	const wide = 0x1_0000_0005
	if w := WireWord(protoreflect.Int32Kind, wide); w != 5 {
		t.Errorf("int32: %#x, want 5", w)
	}
	if w := WireWord(protoreflect.Uint32Kind, wide); w != 5 {
		t.Errorf("uint32: %#x, want 5", w)
	}
	if w := WireWord(protoreflect.BoolKind, 0x100); w != 1 {
		t.Errorf("bool: %#x, want 1", w)
	}
	if w := WireWord(protoreflect.Sint32Kind, 0x1_0000_0001); w != math.MaxUint64 {
		t.Errorf("sint32: %#x, want -1", w)
	}
}

// reference is protowire's encoding of v, a value of scalar kind k.
func reference(k protoreflect.Kind, v protoreflect.Value) []byte {
	switch k {
	case protoreflect.BoolKind:
		return protowire.AppendVarint(nil, protowire.EncodeBool(v.Bool()))
	case protoreflect.EnumKind:
		return protowire.AppendVarint(nil, uint64(v.Enum()))
	case protoreflect.Int32Kind, protoreflect.Int64Kind:
		return protowire.AppendVarint(nil, uint64(v.Int()))
	case protoreflect.Sint32Kind, protoreflect.Sint64Kind:
		return protowire.AppendVarint(nil, protowire.EncodeZigZag(v.Int()))
	case protoreflect.Uint32Kind, protoreflect.Uint64Kind:
		return protowire.AppendVarint(nil, v.Uint())
	case protoreflect.Fixed32Kind:
		return protowire.AppendFixed32(nil, uint32(v.Uint()))
	case protoreflect.Sfixed32Kind:
		return protowire.AppendFixed32(nil, uint32(v.Int()))
	case protoreflect.FloatKind:
		return protowire.AppendFixed32(nil, math.Float32bits(float32(v.Float())))
	case protoreflect.Fixed64Kind:
		return protowire.AppendFixed64(nil, v.Uint())
	case protoreflect.Sfixed64Kind:
		return protowire.AppendFixed64(nil, uint64(v.Int()))
	default:
		return protowire.AppendFixed64(nil, math.Float64bits(v.Float()))
	}
}

// TestKeyOrder checks that ranking the words of map keys orders them as
// their values order: false before true, integers by value.
func TestKeyOrder(t *testing.T) {
	for _, k := range scalarKinds {
		if k.kind == protoreflect.EnumKind || k.kind == protoreflect.FloatKind || k.kind == protoreflect.DoubleKind {
			continue // not map key kinds
		}
		o := KeyOrderOf(k.kind)
		byRank := slices.Clone(k.vals)
		slices.SortFunc(byRank, func(a, b protoreflect.Value) int {
			return cmp.Compare(o.Rank(Word(k.kind, a)), o.Rank(Word(k.kind, b)))
		})
		byValue := slices.Clone(k.vals)
		slices.SortFunc(byValue, func(a, b protoreflect.Value) int {
			switch k.kind {
			case protoreflect.BoolKind:
				return cmp.Compare(protowire.EncodeBool(a.Bool()), protowire.EncodeBool(b.Bool()))
			case protoreflect.Uint32Kind, protoreflect.Uint64Kind, protoreflect.Fixed32Kind, protoreflect.Fixed64Kind:
				return cmp.Compare(a.Uint(), b.Uint())
			}
			return cmp.Compare(a.Int(), b.Int())
		})
		for i := range byRank {
			if !byRank[i].Equal(byValue[i]) {
				t.Errorf("%v: ranked %v, want %v", k.kind, byRank, byValue)
				break
			}
		}
	}
	if KeyOrderOf(protoreflect.StringKind) != OrderString {
		t.Error("string keys are not ordered as strings")
	}
}

// TestValueTwinsFollowWords holds AppendScalar, SizeScalar and
// AppendPacked, which switch on the kind once for the walk over
// protoreflect values, to the word rules: every value is written as its
// op writes its word.
func TestValueTwinsFollowWords(t *testing.T) {
	for _, k := range scalarKinds {
		op := ValueOp(k.kind)
		var list []protoreflect.Value
		var want []byte
		for _, v := range k.vals {
			w := AppendWord(nil, op, Word(k.kind, v))
			if got := AppendScalar(nil, k.kind, v); string(got) != string(w) {
				t.Errorf("%v %v: AppendScalar % x, AppendWord % x", k.kind, v, got, w)
			}
			if got := SizeScalar(k.kind, v); got != len(w) {
				t.Errorf("%v %v: SizeScalar %d, AppendWord wrote %d", k.kind, v, got, len(w))
			}
			list = append(list, v)
			want = append(want, w...)
		}
		if got := AppendPacked(nil, k.kind, valueList(list)); string(got) != string(want) {
			t.Errorf("%v: AppendPacked % x, want % x", k.kind, got, want)
		}
		if n, ok := SizePackedList(k.kind, valueList(list), MaxSize); !ok || n != len(want) {
			t.Errorf("%v: SizePackedList %d %v, want %d", k.kind, n, ok, len(want))
		}
		if _, ok := SizePackedList(k.kind, valueList(list), len(want)-1); ok {
			t.Errorf("%v: SizePackedList within a limit one byte short", k.kind)
		}
	}
}

// valueList is a read-only protoreflect.List of values.
type valueList []protoreflect.Value

func (l valueList) Len() int                          { return len(l) }
func (l valueList) Get(i int) protoreflect.Value      { return l[i] }
func (l valueList) Set(int, protoreflect.Value)       { panic("read-only") }
func (l valueList) Append(protoreflect.Value)         { panic("read-only") }
func (l valueList) AppendMutable() protoreflect.Value { panic("read-only") }
func (l valueList) Truncate(int)                      { panic("read-only") }
func (l valueList) NewElement() protoreflect.Value    { panic("read-only") }
func (l valueList) IsValid() bool                     { return true }

// TestWidthKeepsWords holds WidthOf to the word rule: the element type it
// gives a kind keeps every word of the kind, uint64 of the element giving
// the word back, and packed sizes and bytes over elements of that type are
// those over the words.
func TestWidthKeepsWords(t *testing.T) {
	for _, c := range scalarKinds {
		op := ValueOp(c.kind)
		var words []uint64
		for _, v := range c.vals {
			words = append(words, Word(c.kind, v))
		}
		var size int
		var packed []byte
		switch WidthOf(c.kind) {
		case Signed32:
			size, packed = keptAs[int32](t, c.kind, op, words)
		case Unsigned32:
			size, packed = keptAs[uint32](t, c.kind, op, words)
		default:
			if k := c.kind; k != protoreflect.Int64Kind && k != protoreflect.Sint64Kind && k != protoreflect.Sfixed64Kind &&
				k != protoreflect.Uint64Kind && k != protoreflect.Fixed64Kind && k != protoreflect.DoubleKind {
				t.Errorf("%v: kept as words", k)
			}
			size, packed = PackedSize(op, words), AppendPackedWords(nil, op, words)
		}
		var want []byte
		for _, v := range c.vals {
			want = append(want, reference(c.kind, v)...)
		}
		if size != len(want) || string(packed) != string(want) {
			t.Errorf("%v: packed %d bytes %x; want %d bytes %x", c.kind, size, packed, len(want), want)
		}
	}
}

// keptAs keeps words of kind k as elements of type T, checks that each
// gives its word back, and returns their packed size and bytes under op.
func keptAs[T Scalars](t *testing.T, k protoreflect.Kind, op Op, words []uint64) (int, []byte) {
	t.Helper()
	xs := make([]T, len(words))
	for i, w := range words {
		if xs[i] = T(w); uint64(xs[i]) != w {
			t.Errorf("%v: word %#x kept as %T %d", k, w, xs[i], xs[i])
		}
	}
	return PackedSize(op, xs), AppendPackedWords(nil, op, xs)
}
