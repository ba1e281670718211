// Package wire holds the protobuf wire helpers shared by the size pass and the
// write pass. Every helper comes as a twin: AppendX(b, ...) appends the
// encoding to b and SizeX(...) reports exactly how many bytes AppendX appends.
// Tests hold each pair to that promise.
//
// Values arrive as protoreflect.Value and are read with the typed accessors
// (Int, Uint, Float, Bool, String, Bytes, Enum), never Interface, so that
// nothing here allocates.
package wire

import (
	"math"
	"math/bits"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// MaxSize is the largest encoding protobuf allows: 2 GiB - 1 bytes.
const MaxSize = math.MaxInt32

// AppendVarint appends v as a base-128 varint.
func AppendVarint(b []byte, v uint64) []byte {
	if v < 0x80 {
		return append(b, byte(v))
	}
	return protowire.AppendVarint(b, v)
}

// SizeVarint reports the length of v as a base-128 varint.
func SizeVarint(v uint64) int {
	if v < 0x80 {
		return 1
	}
	return protowire.SizeVarint(v)
}

// PutVarint writes v as a base-128 varint at b[k:], into the capacity of
// b, which must have room for SizeVarint(v) bytes there, and returns the
// offset after it.
func PutVarint(b []byte, k int, v uint64) int {
	for v >= 0x80 {
		b[k] = byte(v) | 0x80
		v >>= 7
		k++
	}
	b[k] = byte(v)
	return k + 1
}

// AppendTag appends the key of field num with wire type typ.
func AppendTag(b []byte, num protowire.Number, typ protowire.Type) []byte {
	return AppendVarint(b, protowire.EncodeTag(num, typ))
}

// SizeTag reports the length of the key of field num.
func SizeTag(num protowire.Number) int {
	return SizeVarint(protowire.EncodeTag(num, 0))
}

// WireType reports the wire type that a singular value of kind k uses.
func WireType(k protoreflect.Kind) protowire.Type {
	switch k {
	case protoreflect.BoolKind, protoreflect.EnumKind,
		protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Uint32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Uint64Kind:
		return protowire.VarintType
	case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind, protoreflect.FloatKind:
		return protowire.Fixed32Type
	case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind, protoreflect.DoubleKind:
		return protowire.Fixed64Type
	case protoreflect.GroupKind:
		return protowire.StartGroupType
	default: // string, bytes, message
		return protowire.BytesType
	}
}

// FixedWidth reports the encoded width of every value of kind k, or 0 when
// the width depends on the value.
func FixedWidth(k protoreflect.Kind) int {
	switch k {
	case protoreflect.BoolKind:
		return 1
	case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind, protoreflect.FloatKind:
		return 4
	case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind, protoreflect.DoubleKind:
		return 8
	}
	return 0
}

// AppendKey appends a field's precomputed key (tag) bytes; the common
// one-byte key is appended without a call to copy.
func AppendKey(b, tag []byte) []byte {
	if len(tag) == 1 {
		return append(b, tag[0])
	}
	return append(b, tag...)
}

// AppendScalar appends v, a value of scalar kind k (not a message or group),
// without its key. Strings and bytes get their length prefix. It writes
// what AppendWord writes for the value's word (the tests hold the two to
// each other), with one switch on the kind, for the walk over protoreflect
// values, where composing Word and AppendWord costs two more calls per
// value.
func AppendScalar(b []byte, k protoreflect.Kind, v protoreflect.Value) []byte {
	switch k {
	case protoreflect.BoolKind:
		if v.Bool() {
			return append(b, 1)
		}
		return append(b, 0)
	case protoreflect.EnumKind:
		return AppendVarint(b, uint64(int64(v.Enum())))
	case protoreflect.Int32Kind:
		return AppendVarint(b, uint64(int64(int32(v.Int()))))
	case protoreflect.Int64Kind:
		return AppendVarint(b, uint64(v.Int()))
	case protoreflect.Sint32Kind:
		return AppendVarint(b, protowire.EncodeZigZag(int64(int32(v.Int()))))
	case protoreflect.Sint64Kind:
		return AppendVarint(b, protowire.EncodeZigZag(v.Int()))
	case protoreflect.Uint32Kind:
		return AppendVarint(b, uint64(uint32(v.Uint())))
	case protoreflect.Uint64Kind:
		return AppendVarint(b, v.Uint())
	case protoreflect.Fixed32Kind:
		return protowire.AppendFixed32(b, uint32(v.Uint()))
	case protoreflect.Sfixed32Kind:
		return protowire.AppendFixed32(b, uint32(int32(v.Int())))
	case protoreflect.FloatKind:
		return protowire.AppendFixed32(b, math.Float32bits(float32(v.Float())))
	case protoreflect.Fixed64Kind:
		return protowire.AppendFixed64(b, v.Uint())
	case protoreflect.Sfixed64Kind:
		return protowire.AppendFixed64(b, uint64(v.Int()))
	case protoreflect.DoubleKind:
		return protowire.AppendFixed64(b, math.Float64bits(v.Float()))
	case protoreflect.StringKind:
		s := v.String()
		b = AppendVarint(b, uint64(len(s)))
		return append(b, s...)
	case protoreflect.BytesKind:
		s := v.Bytes()
		b = AppendVarint(b, uint64(len(s)))
		return append(b, s...)
	}
	return b
}

// AppendPacked appends the elements of l, a list of scalars of kind k, as
// a packed record's body: AppendScalar for each, with the kind switched
// on once for the whole list.
func AppendPacked(b []byte, k protoreflect.Kind, l protoreflect.List) []byte {
	n := l.Len()
	switch k {
	case protoreflect.Int32Kind:
		for i := range n {
			b = AppendVarint(b, uint64(int64(int32(l.Get(i).Int()))))
		}
	case protoreflect.Int64Kind:
		for i := range n {
			b = AppendVarint(b, uint64(l.Get(i).Int()))
		}
	case protoreflect.Sint32Kind:
		for i := range n {
			b = AppendVarint(b, protowire.EncodeZigZag(int64(int32(l.Get(i).Int()))))
		}
	case protoreflect.Sint64Kind:
		for i := range n {
			b = AppendVarint(b, protowire.EncodeZigZag(l.Get(i).Int()))
		}
	case protoreflect.Uint32Kind:
		for i := range n {
			b = AppendVarint(b, uint64(uint32(l.Get(i).Uint())))
		}
	case protoreflect.Uint64Kind:
		for i := range n {
			b = AppendVarint(b, l.Get(i).Uint())
		}
	case protoreflect.EnumKind:
		for i := range n {
			b = AppendVarint(b, uint64(int64(l.Get(i).Enum())))
		}
	default:
		for i := range n {
			b = AppendScalar(b, k, l.Get(i))
		}
	}
	return b
}

// SizePackedList returns the size of the elements of l, a list of scalars
// of kind k, as a packed record's body (what AppendPacked appends), and
// false when it exceeds limit. Every element takes a byte at least, so a
// list longer than the limit fails before any element is read, and the
// sum is checked as it grows: the work is bounded by the limit, not by
// the list's length.
func SizePackedList(k protoreflect.Kind, l protoreflect.List, limit int) (int, bool) {
	n := l.Len()
	if w := FixedWidth(k); w > 0 {
		return MulSize(n, w, limit)
	}
	if n > limit {
		return 0, false
	}
	body := 0
	for i := range n {
		body += SizeScalar(k, l.Get(i))
		if body > limit {
			return 0, false
		}
	}
	return body, true
}

// SizeScalar reports how many bytes AppendScalar appends for v.
func SizeScalar(k protoreflect.Kind, v protoreflect.Value) int {
	switch k {
	case protoreflect.BoolKind:
		return 1
	case protoreflect.EnumKind:
		return SizeVarint(uint64(int64(v.Enum())))
	case protoreflect.Int32Kind:
		return SizeVarint(uint64(int64(int32(v.Int()))))
	case protoreflect.Int64Kind:
		return SizeVarint(uint64(v.Int()))
	case protoreflect.Sint32Kind:
		return SizeVarint(protowire.EncodeZigZag(int64(int32(v.Int()))))
	case protoreflect.Sint64Kind:
		return SizeVarint(protowire.EncodeZigZag(v.Int()))
	case protoreflect.Uint32Kind:
		return SizeVarint(uint64(uint32(v.Uint())))
	case protoreflect.Uint64Kind:
		return SizeVarint(v.Uint())
	case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind, protoreflect.FloatKind:
		return 4
	case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind, protoreflect.DoubleKind:
		return 8
	case protoreflect.StringKind:
		n := len(v.String())
		return SizeVarint(uint64(n)) + n
	case protoreflect.BytesKind:
		n := len(v.Bytes())
		return SizeVarint(uint64(n)) + n
	}
	return 0
}

// Is32 is set where int has 32 bits.
const Is32 = bits.UintSize == 32

// Fits reports whether x more bytes keep a count of n bytes within limit
// where int has 32 bits, n and x each at most limit plus a key and a
// length prefix: the direct encoders add a size that may be large (a
// string's, a nested message's) only after asking, so that no sum wraps.
// Where int has 64 bits it reports true: their sums cannot wrap before
// each message's total is checked against the limit.
func Fits(n, x, limit int) bool { return !Is32 || x <= limit-n }

// AddSize returns a+b and whether the sum stays within limit. Both operands
// must be non-negative and limit at most MaxSize; then the sum cannot
// overflow an int on any platform Go supports with 64-bit or 32-bit ints,
// because the operands are checked before they are added.
func AddSize(a, b, limit int) (int, bool) {
	if a < 0 || b < 0 || a > limit || b > limit-a {
		return 0, false
	}
	return a + b, true
}

// MulSize returns n*w and whether the product stays within limit, for a
// non-negative count n and width w.
func MulSize(n, w, limit int) (int, bool) {
	if n < 0 || w < 0 {
		return 0, false
	}
	if w == 0 || n == 0 {
		return 0, true
	}
	if n > limit/w {
		return 0, false
	}
	return n * w, true
}

// Grow returns b with room for n more bytes, as the encoders grow their
// output. A new array is sized like
// proto.Marshal sizes its output: exactly when that more than doubles the
// capacity, else by doubling (small buffers) or by a quarter (large ones).
func Grow(b []byte, n int) []byte {
	need := len(b) + n
	if need <= cap(b) {
		return b
	}
	c := cap(b)
	switch {
	case need > 2*c:
		c = need
	case c < 1024:
		c *= 2
	default:
		for c < need {
			c += c / 4
		}
	}
	nb := make([]byte, len(b), c)
	copy(nb, b)
	return nb
}
