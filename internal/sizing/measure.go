package sizing

import (
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/layout"
	"github.com/protolayout/protolayout/internal/utf8x"
	"github.com/protolayout/protolayout/internal/wire"
)

// Validation and size arithmetic. The size of one value is a sum of small
// numbers and the length of something in memory, which cannot overflow an
// int; every sum of sizes (a part's body, a packed record's elements, a
// part with its key) is checked against the size limit, at most
// 2 GiB - 1, so none can overflow either. A content unit, which the
// identity memo counts, is a field, an element, or one byte of a string,
// bytes or unknown value.
//
// checksUTF8, delimitedSize, scalarSize and wrapped inline (see
// internal/inlinetest): Size's Value case, the commonest, is made of the
// first three with no call of its own, and closing a part makes no call
// for wrapped.

// checksUTF8 reports whether the values of string field f are to be valid
// UTF-8: with validate, those of a field whose schema requires it. The
// check itself, utf8x.ValidString, is left to the caller's condition,
// where the compiler branches on its result directly.
func checksUTF8(f *layout.Field, validate bool) bool {
	return validate && f.ValidateUTF8
}

// delimitedSize returns the size of a string or bytes value of l bytes of
// field f: key, length and bytes. It counts for 1 + l content units.
func delimitedSize(f *layout.Field, l int) int {
	return len(f.Tag) + wire.SizeVarint(uint64(l)) + l
}

// scalarSize returns the size of value v, key included, of field f, which
// is neither a string nor a bytes field; v counts for one content unit.
func scalarSize(f *layout.Field, v protoreflect.Value) int {
	if f.FixedWidth > 0 {
		return len(f.Tag) + f.FixedWidth
	}
	return len(f.Tag) + wire.SizeScalar(f.Kind, v)
}

// sizeValue returns the size of value v of field f, key included, and the
// content units it counts for; with validate, it reports false when v is a
// string that f requires to be valid UTF-8 and it is not. It is what the
// Value case of Size does, out of line, for the keys and values of whole
// maps: it does not inline, and calling it there costs 2% more
// instructions on small messages and 0.7% on OTLP.
func sizeValue(f *layout.Field, v protoreflect.Value, validate bool) (n, units int, ok bool) {
	switch f.Kind {
	case protoreflect.StringKind:
		str := v.String()
		if checksUTF8(f, validate) && !utf8x.ValidString(str) {
			return 0, 0, false
		}
		return delimitedSize(f, len(str)), 1 + len(str), true
	case protoreflect.BytesKind:
		l := len(v.Bytes())
		return delimitedSize(f, l), 1 + l, true
	}
	return scalarSize(f, v), 1, true
}

// packedRecordSize returns the size of the packed record of field f whose
// elements take body bytes: key, length and elements.
func packedRecordSize(f *layout.Field, body int) int {
	return len(f.PackedTag) + wire.SizeVarint(uint64(body)) + body
}

// wrapped returns the size of a part with body size n written through field
// f: the key and length prefix, or the start and end keys of a group; it
// reports false when that exceeds limit. n, a body size, is from 0 to
// limit, so the one comparison is the check wire.AddSize would make; with
// AddSize, wrapped would not inline.
func wrapped(f *layout.Field, n, limit int) (int, bool) {
	k := len(f.Tag) + len(f.EndTag) // EndTag is nil unless Group
	if !f.Group {
		k = len(f.Tag) + wire.SizeVarint(uint64(n))
	}
	if n > limit-k {
		return 0, false
	}
	return n + k, true
}
