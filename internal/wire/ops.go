package wire

import (
	"encoding/binary"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// DefaultMaxDepth is the default nesting limit of every pass that follows
// nested messages, the decoder's too: proto.Unmarshal's default recursion
// limit (10,000), so that whatever is written under it decodes under
// proto.Unmarshal's defaults.
const DefaultMaxDepth = protowire.DefaultRecursionLimit

// MaxStackDepth is the deepest level an encoder follows by recursion on
// the goroutine stack, whatever the depth limit: deeper messages (rare,
// and every message that contains itself) are left to the checked walk,
// whose frames are on the heap, so that an encoding never needs more
// than a few tens of kilobytes of stack.
const MaxStackDepth = 100

// CycleLevel is where the encoders look for a message that contains
// itself: a message entered past level CycleLevel is compared with the
// message of its path at level CycleLevel (or, when that level is a map
// entry, with the entry's value), then, past twice as deep, with the one
// at level 2*CycleLevel-1, and so on, ancestors at levels a power of two
// apart (internal/cursor's walker). Ordinary trees pay nothing above it,
// and a message that contains itself is found by the time the path is
// three times as deep as where it starts repeating or as its period,
// whichever is larger, and at least CycleLevel. The recursive encoders
// follow at most MaxStackDepth levels, which is below 2*CycleLevel: they
// compare with the message at CycleLevel only.
const CycleLevel = 65

// An Op is how the field program writes a field, or one of its values:
// the one classification of a field's kind and cardinality that the
// encoders, the Writer and the decoder share (internal/layout compiles
// it into every field record).
//
// The scalar ops write a word: a scalar value in the uint64 that Word
// makes of it (and WireWord of its wire form), so that one size and one
// append rule serve every storage.
type Op uint8

const (
	OpVarint   Op = iota // int32, int64, uint32, uint64, enum, bool: the word as a varint
	OpZigzag32           // sint32: the word's low 32 bits, zigzag-encoded
	OpZigzag64           // sint64: the word, zigzag-encoded
	OpFixed32            // fixed32, sfixed32, float: the word's low 32 bits
	OpFixed64            // fixed64, sfixed64, double: the word
	OpString             // a length-prefixed string
	OpBytes              // a length-prefixed byte string
	OpMessage            // a length-prefixed message
	OpGroup              // a message between a start-group and an end-group key
	OpList               // a repeated field written value by value
	OpPacked             // a repeated scalar field written as one packed record
	OpMap                // a map field, one entry message per key
)

// IsScalar reports whether op writes a word (OpVarint to OpFixed64), the
// values that a repeated field may pack.
func (op Op) IsScalar() bool { return op <= OpFixed64 }

// ValueOp returns the op of one value of kind k (never OpList, OpPacked
// or OpMap).
func ValueOp(k protoreflect.Kind) Op {
	switch k {
	case protoreflect.Sint32Kind:
		return OpZigzag32
	case protoreflect.Sint64Kind:
		return OpZigzag64
	case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind, protoreflect.FloatKind:
		return OpFixed32
	case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind, protoreflect.DoubleKind:
		return OpFixed64
	case protoreflect.StringKind:
		return OpString
	case protoreflect.BytesKind:
		return OpBytes
	case protoreflect.MessageKind:
		return OpMessage
	case protoreflect.GroupKind:
		return OpGroup
	default:
		return OpVarint
	}
}

// Packable reports whether a repeated field of kind k may be written
// packed (and so be read packed, whatever it declares).
func Packable(k protoreflect.Kind) bool { return ValueOp(k).IsScalar() }

// Word returns the word of v, a value of scalar kind k: what the scalar
// ops write. Signed integers and enums are sign-extended to 64 bits, bools
// are 0 or 1, floats are their IEEE bits (float32 in the low 32 bits).
func Word(k protoreflect.Kind, v protoreflect.Value) uint64 {
	switch k {
	case protoreflect.BoolKind:
		if v.Bool() {
			return 1
		}
		return 0
	case protoreflect.EnumKind:
		return uint64(int64(v.Enum()))
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return uint64(int64(int32(v.Int())))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return uint64(v.Int())
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return uint64(uint32(v.Uint()))
	case protoreflect.FloatKind:
		return uint64(math.Float32bits(float32(v.Float())))
	case protoreflect.DoubleKind:
		return math.Float64bits(v.Float())
	default:
		return v.Uint()
	}
}

// WireWord returns the word (as Word makes it) of a value of scalar kind
// k read from the wire as x: a varint's value, or a fixed32 or fixed64
// record's bits. Values out of their kind's range are cut to it as
// proto.Unmarshal cuts them (an int32 takes the low 32 bits of its
// varint).
func WireWord(k protoreflect.Kind, x uint64) uint64 {
	switch k {
	case protoreflect.Int32Kind, protoreflect.EnumKind:
		return uint64(int64(int32(x)))
	case protoreflect.Sint32Kind:
		return uint64(int64(int32(protowire.DecodeZigZag(x & math.MaxUint32))))
	case protoreflect.Sint64Kind:
		return uint64(protowire.DecodeZigZag(x))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.FloatKind:
		return uint64(uint32(x))
	case protoreflect.Sfixed32Kind:
		return uint64(int64(int32(uint32(x))))
	case protoreflect.BoolKind:
		if x != 0 {
			return 1
		}
		return 0
	default:
		return x
	}
}

// SizeWord returns the size of the word w written by the scalar op op,
// without a key.
func SizeWord(op Op, w uint64) int {
	switch op {
	case OpVarint:
		return protowire.SizeVarint(w)
	case OpZigzag32:
		return protowire.SizeVarint(protowire.EncodeZigZag(int64(int32(w))))
	case OpZigzag64:
		return protowire.SizeVarint(protowire.EncodeZigZag(int64(w)))
	case OpFixed32:
		return 4
	default:
		return 8
	}
}

// AppendWord appends the word w as the scalar op op writes it, without a
// key: SizeWord(op, w) bytes.
func AppendWord(b []byte, op Op, w uint64) []byte {
	switch op {
	case OpVarint:
		return AppendVarint(b, w)
	case OpZigzag32:
		return AppendVarint(b, protowire.EncodeZigZag(int64(int32(w))))
	case OpZigzag64:
		return AppendVarint(b, protowire.EncodeZigZag(int64(w)))
	case OpFixed32:
		return protowire.AppendFixed32(b, uint32(w))
	default:
		return protowire.AppendFixed64(b, w)
	}
}

// PutWord writes the word w as AppendWord appends it, SizeWord(op, w)
// bytes, at b[k:], into the capacity of b, and returns the offset after
// them: for writers that make room once and then store without growing.
// b must have room at k for SizeWord(op, w) bytes, and for eight under
// OpFixed32: its value is stored with one store of the word's eight
// bytes, the last four past the returned offset. w must be a word as Word makes it: a
// sint32's is sign-extended (AppendWord cuts it to 32 bits first, which
// then changes nothing; PutWord does not, to stay within the inlining
// budget of the fast paths that call it).
func PutWord(b []byte, k int, op Op, w uint64) int {
	if op < OpFixed32 {
		if op != OpVarint { // OpZigzag32, OpZigzag64
			w = w<<1 ^ uint64(int64(w)>>63)
		}
		return PutVarint(b, k, w)
	}
	binary.LittleEndian.PutUint64(b[k:k+8], w)
	if op == OpFixed32 {
		return k + 4
	}
	return k + 8
}

// Scalars is how a list of scalars keeps its elements: as words, or, for
// a kind of 32 bits, as the low 32 bits of each word, in an int32 where
// the kind's word is sign-extended (WidthOf). Either way uint64(x) of an
// element x is its word.
type Scalars interface{ ~int32 | ~uint32 | ~uint64 }

// Integers is how a list of integers of any storage keeps its elements:
// Scalars, or int64s as generated messages keep int64, sint64 and
// sfixed64 values. uint64(x) of an element x is its word.
type Integers interface{ Scalars | ~int64 }

// A Width is the element type of a list of scalars of a kind (Scalars).
type Width uint8

const (
	Wide       Width = iota // uint64: the words of 64-bit kinds
	Signed32                // int32: int32, sint32, sfixed32 and enums, whose words are sign-extended
	Unsigned32              // uint32: uint32, fixed32, float and bool
)

// WidthOf returns the element type of a list of scalars of kind k.
func WidthOf(k protoreflect.Kind) Width {
	switch k {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind, protoreflect.EnumKind:
		return Signed32
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.FloatKind, protoreflect.BoolKind:
		return Unsigned32
	}
	return Wide
}

// PackedSize returns the size of the body of a packed record of the
// elements xs, written by the scalar op op.
func PackedSize[T Integers](op Op, xs []T) int {
	switch op {
	case OpFixed32:
		return 4 * len(xs)
	case OpFixed64:
		return 8 * len(xs)
	}
	n := 0
	for _, x := range xs {
		n += SizeWord(op, uint64(x))
	}
	return n
}

// AppendPackedWords appends the body of a packed record of the elements
// xs written by the scalar op op: PackedSize(op, xs) bytes.
func AppendPackedWords[T Integers](b []byte, op Op, xs []T) []byte {
	for _, x := range xs {
		b = AppendWord(b, op, uint64(x))
	}
	return b
}

// A KeyOrder is how deterministic encoding sorts a map's entries by key,
// as proto.MarshalOptions{Deterministic: true} does: false before true,
// integers by value, strings bytewise. Every encoder and the Writer sort
// or check map keys by it.
type KeyOrder uint8

const (
	OrderUnsigned KeyOrder = iota // unsigned integers and bools, by word
	OrderSigned                   // signed integers, by word as int64
	OrderString                   // strings, bytewise
)

// KeyOrderOf returns the order of map keys of kind k.
func KeyOrderOf(k protoreflect.Kind) KeyOrder {
	switch k {
	case protoreflect.StringKind:
		return OrderString
	case protoreflect.Int32Kind, protoreflect.Int64Kind, protoreflect.Sint32Kind,
		protoreflect.Sint64Kind, protoreflect.Sfixed32Kind, protoreflect.Sfixed64Kind:
		return OrderSigned
	}
	return OrderUnsigned
}

// Rank returns a number whose unsigned order is the key order of the
// word w (as Word makes it) of an integer or bool key.
func (o KeyOrder) Rank(w uint64) uint64 {
	if o == OrderSigned {
		return w ^ 1<<63
	}
	return w
}
