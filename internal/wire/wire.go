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
// without its key. Strings and bytes get their length prefix; the other
// kinds are written as their op writes their word (AppendWord).
func AppendScalar(b []byte, k protoreflect.Kind, v protoreflect.Value) []byte {
	switch k {
	case protoreflect.StringKind:
		s := v.String()
		b = AppendVarint(b, uint64(len(s)))
		return append(b, s...)
	case protoreflect.BytesKind:
		s := v.Bytes()
		b = AppendVarint(b, uint64(len(s)))
		return append(b, s...)
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return b
	}
	return AppendWord(b, ValueOp(k), Word(k, v))
}

// AppendPacked appends the elements of l, a list of scalars of kind k, as
// a packed record's body: AppendScalar for each, with the op found once
// for the whole list.
func AppendPacked(b []byte, k protoreflect.Kind, l protoreflect.List) []byte {
	op := ValueOp(k)
	for i, n := 0, l.Len(); i < n; i++ {
		b = AppendWord(b, op, Word(k, l.Get(i)))
	}
	return b
}

// SizeScalar reports how many bytes AppendScalar appends for v.
func SizeScalar(k protoreflect.Kind, v protoreflect.Value) int {
	switch k {
	case protoreflect.StringKind:
		n := len(v.String())
		return SizeVarint(uint64(n)) + n
	case protoreflect.BytesKind:
		n := len(v.Bytes())
		return SizeVarint(uint64(n)) + n
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return 0
	}
	return SizeWord(ValueOp(k), Word(k, v))
}

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
