package layout

import (
	"github.com/protolayout/protolayout/internal/wire"
	"google.golang.org/protobuf/encoding/protowire"
)

// MaxTagLen is the length of the longest key: a varint of field number
// 2^29-1 and a wire type.
const MaxTagLen = 5

// Rec is the part of a field's program that the direct encoders (the
// engine's generated back-end, package dynamic's direct encoder) copy
// into their own field records, beside where their storage keeps the
// value: compact, since their loops read it for every field.
type Rec struct {
	// Op and Elem are the field's op and the op of one value (Field.Op,
	// Field.Elem).
	Op, Elem wire.Op
	// UTF8 asks for the string values (a map's values) to be checked.
	UTF8 bool
	// Tag holds the field's key, TagLen bytes of it.
	TagLen uint8
	Tag    [MaxTagLen]byte
	// EndLen is the length of a group's end key (Field.EndTag).
	EndLen uint8
}

// Key returns the field's key.
func (r *Rec) Key() []byte { return r.Tag[:r.TagLen] }

// AppendKey appends the field's key to b; the common one-byte key
// without a call to copy.
func (r *Rec) AppendKey(b []byte) []byte {
	if r.TagLen == 1 {
		return append(b, r.Tag[0])
	}
	return append(b, r.Key()...)
}

// RecMore is the part of a field's record that only groups, packed
// fields and maps use.
type RecMore struct {
	// Key is a map key's op, KeyOrder the keys' order; KeyUTF8 asks for
	// string keys to be checked; KeyTag and ValueTag are the entry's
	// one-byte keys.
	Key              wire.Op
	KeyOrder         wire.KeyOrder
	KeyUTF8          bool
	KeyTag, ValueTag byte
	// EndTag is a group's end key; PackedTag a packed record's key.
	EndTag, PackedTag []byte
}

// Rec returns f's record and, for a map, a packed field or a field of
// groups, the rest of it (nil for other fields).
func (f *Field) Rec() (Rec, *RecMore) {
	if len(f.Tag) > MaxTagLen {
		// Field numbers are below 2^29: descriptors are checked.
		panic("layout: a key longer than a field number allows")
	}
	r := Rec{Op: f.Op, Elem: f.Elem, UTF8: f.ValidateUTF8, TagLen: uint8(len(f.Tag))}
	copy(r.Tag[:], f.Tag)
	var m *RecMore
	switch f.Op {
	case wire.OpMap:
		r.UTF8 = f.MapValue.ValidateUTF8
		m = &RecMore{
			Key:      f.MapKey.Op,
			KeyOrder: f.KeyOrder,
			KeyUTF8:  f.MapKey.ValidateUTF8,
			KeyTag:   f.MapKey.Tag[0],
			ValueTag: f.MapValue.Tag[0],
		}
	case wire.OpPacked:
		m = &RecMore{PackedTag: f.PackedTag}
	}
	if f.Elem == wire.OpGroup {
		m = &RecMore{EndTag: f.EndTag}
		r.EndLen = uint8(len(f.EndTag))
	}
	return r, m
}

// Wrap returns the size of one of the field's nested messages of n
// bytes without its key: with its length prefix, or for a group with its
// end key.
func (r *Rec) Wrap(n int) int {
	if r.Elem == wire.OpGroup {
		return n + int(r.EndLen)
	}
	return protowire.SizeBytes(n)
}
