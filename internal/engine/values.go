package engine

import (
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/protolayout/protolayout/internal/fault"
	"github.com/protolayout/protolayout/internal/layout"
	"github.com/protolayout/protolayout/internal/utf8x"
	"github.com/protolayout/protolayout/internal/wire"
)

// The encoding of values, for every storage. The passes over dynamic's
// storage (marshal.go), over generated messages (gen_encode.go,
// gen_append.go), over extension values (ext_value.go) and over map
// entries (map_entry.go) each read a value from where their storage keeps
// it, test its presence there, and hand it here: what a string, bytes or
// scalar value and a list of them become on the wire, when a string's
// UTF-8 is checked, and how a length is held to the size limit are
// written once, in this file, with the check that closes a nested
// message's frame (closeFrame). The recursion into nested messages is
// each storage's own, with the depth, cycle and size rules of
// fault.Levels and fault.Trail.

// invalidText reports whether s is not valid UTF-8: the test of every
// string value, and every map's string key or value, whose field asks
// for valid UTF-8 (layout.Rec.UTF8, layout.RecMore.KeyUTF8), in a call
// that checks (enc.utf8 in the size pass, enc.recheck in a write pass
// that must check again). Where a call per string costs too much, its
// test is written out in place, as utf8x.ShortASCII inlines only there:
// in the storages' main loops, sizeText, sizeTexts and a map entry's
// check.
func invalidText[T ~string | ~[]byte](s T) bool {
	return !utf8x.ShortASCII(s) && !utf8x.ValidText(s)
}

// sizeText returns the size of s, a value of the string field of record
// r and layout record lf, with its key, n bytes into the message: a
// fault (fault.InvalidUTF8, naming lf after those n bytes) where the call
// checks UTF-8 and s is invalid, and false where s would take the
// message past the size limit.
func (e *enc) sizeText(r *layout.Rec, lf *layout.Field, s string, n int) (int, bool) {
	// invalidText, inline: ShortASCII within one call, not two.
	if r.UTF8 && e.utf8 && !utf8x.ShortASCII(s) && !utf8x.ValidString(s) {
		return 0, e.trail.Fail(fault.InvalidUTF8, lf, n)
	}
	return int(r.TagLen) + protowire.SizeBytes(len(s)), wire.Fits(n, len(s), e.maxSize)
}

// sizeBlob returns the size of a value of k bytes of the field of record
// r, with its key, n bytes into the message, and false where it would
// take the message past the size limit.
func (e *enc) sizeBlob(r *layout.Rec, k, n int) (int, bool) {
	return int(r.TagLen) + protowire.SizeBytes(k), wire.Fits(n, k, e.maxSize)
}

// sizeTexts returns the size of xs, the values of a repeated string
// field of record r and layout record lf, each with its key (see
// sizeText).
func (e *enc) sizeTexts(r *layout.Rec, lf *layout.Field, xs []string) (int, bool) {
	check := r.UTF8 && e.utf8
	n := 0
	for _, x := range xs {
		// invalidText, inline.
		if check && !utf8x.ShortASCII(x) && !utf8x.ValidString(x) {
			return 0, e.trail.Fail(fault.InvalidUTF8, lf, n)
		}
		if !wire.Fits(n, len(x), e.maxSize) {
			return 0, false
		}
		n += int(r.TagLen) + protowire.SizeBytes(len(x))
	}
	return n, true
}

// sizeBlobs returns the size of xs, the values of a repeated bytes field
// of record r, each with its key (see sizeBlob).
func (e *enc) sizeBlobs(r *layout.Rec, xs [][]byte) (int, bool) {
	n := 0
	for _, x := range xs {
		if !wire.Fits(n, len(x), e.maxSize) {
			return 0, false
		}
		n += int(r.TagLen) + protowire.SizeBytes(len(x))
	}
	return n, true
}

// appendString appends s with its length prefix, without a key.
func appendString(b []byte, s string) []byte {
	return append(wire.AppendVarint(b, uint64(len(s))), s...)
}

// appendText appends s, a value of the string or bytes field of record
// r, with its key and length: the bytes sizeText and sizeBlob counted.
func appendText[T ~string | ~[]byte](b []byte, r *layout.Rec, s T) []byte {
	b = wire.AppendVarint(r.AppendKey(b), uint64(len(s)))
	return append(b, s...)
}

// appendTexts appends xs, the values of a repeated string or bytes field
// of record r, each with its key; false if check (a write pass that
// checks again, enc.recheck) finds a string invalid.
func appendTexts[T ~string | ~[]byte](b []byte, r *layout.Rec, xs []T, check bool) ([]byte, bool) {
	check = check && r.UTF8
	for _, x := range xs {
		if check && invalidText(x) {
			return b, false
		}
		b = wire.AppendVarint(r.AppendKey(b), uint64(len(x)))
		b = append(b, x...)
	}
	return b, true
}

// A message value is framed by its key and, written by wire.OpMessage,
// the length the size pass counted for it (each pass appends those two
// itself, which a call would not inline), and then closeFrame.

// closeFrame ends the message value whose body was appended to b from
// start, of the field whose record's rest is x: false if
// the body is not the n bytes counted for it, as when the message
// changed between the passes (bytes that disagree with their length
// prefix are never returned); a group's end key after it.
func closeFrame(b []byte, x *layout.RecMore, op wire.Op, start, n int) ([]byte, bool) {
	if len(b)-start != n {
		return b, false
	}
	if op == wire.OpGroup {
		b = append(b, x.EndTag...)
	}
	return b, true
}

// sizeUnpacked returns the size of xs, the elements of an unpacked list
// of scalars of the field of record r, each with its key.
func sizeUnpacked[T wire.Integers](r *layout.Rec, xs []T) int {
	return len(xs)*int(r.TagLen) + wire.PackedSize(r.Elem, xs)
}

// appendUnpacked appends xs, the elements of an unpacked list of scalars
// of the field of record r, each with its key.
func appendUnpacked[T wire.Integers](b []byte, r *layout.Rec, xs []T) []byte {
	for _, x := range xs {
		b = wire.AppendWord(r.AppendKey(b), r.Elem, uint64(x))
	}
	return b
}

// sizePacked returns the size of the packed record of xs, the elements
// of a list of scalars of the field of record r, with its key.
func sizePacked[T wire.Integers](r *layout.Rec, xs []T) int {
	return int(r.TagLen) + protowire.SizeBytes(wire.PackedSize(r.Elem, xs))
}

// appendPacked appends the packed record of xs, the elements of a list
// of scalars of the field of record r, with its key, the packed key tag
// (layout.RecMore.PackedTag).
func appendPacked[T wire.Integers](b []byte, r *layout.Rec, tag []byte, xs []T) []byte {
	b = append(b, tag...)
	b = wire.AppendVarint(b, uint64(wire.PackedSize(r.Elem, xs)))
	return wire.AppendPackedWords(b, r.Elem, xs)
}
