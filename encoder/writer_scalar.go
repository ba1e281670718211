package encoder

import (
	"encoding/binary"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/layout"
	"github.com/protolayout/protolayout/internal/wire"
)

// Int32 writes v to field num, an int32, sint32, sfixed32, int64, sint64
// or sfixed64 field (one element, for a repeated field).
func (w *Writer) Int32(num protowire.Number, v int32) {
	if fr, wf := w.next(num, maskSigned); wf != nil {
		if v == 0 && fr.skipFast(wf) {
			w.check()
			return
		}
		if w.fits(0) {
			w.putFast(fr, wf, uint64(int64(v)))
			w.check()
			return
		}
	}
	w.signed(num, int64(v))
	w.check()
}

// Int64 writes v to field num, a signed integer field of any width (int32,
// sint32, sfixed32, int64, sint64, sfixed64); a 32-bit field fails with
// ErrOutOfRange when v does not fit.
func (w *Writer) Int64(num protowire.Number, v int64) {
	if fr, wf := w.next(num, maskSigned); wf != nil {
		if v == 0 && fr.skipFast(wf) {
			w.check()
			return
		}
		if (wf.Flags&wf32 == 0 || v == int64(int32(v))) && w.fits(0) {
			w.putFast(fr, wf, uint64(v))
			w.check()
			return
		}
	}
	w.signed(num, v)
	w.check()
}

// signed is the general path of Int32 and Int64.
func (w *Writer) signed(num protowire.Number, v int64) {
	t, ok := w.prepare(num, maskSigned)
	if !ok {
		return
	}
	x, ok := signedWord(t.f.Kind, v)
	if !ok {
		w.fail(ErrOutOfRange, t.f, "value "+itoa(v)+" does not fit "+t.f.Kind.String())
		return
	}
	w.put(t, x)
}

// Uint32 writes v to field num, a uint32, fixed32, uint64 or fixed64
// field.
func (w *Writer) Uint32(num protowire.Number, v uint32) {
	if fr, wf := w.next(num, maskUnsigned); wf != nil {
		if v == 0 && fr.skipFast(wf) {
			w.check()
			return
		}
		if w.fits(0) {
			w.putFast(fr, wf, uint64(v))
			w.check()
			return
		}
	}
	w.unsigned(num, uint64(v))
	w.check()
}

// Uint64 writes v to field num, an unsigned integer field of any width; a
// 32-bit field fails with ErrOutOfRange when v does not fit.
func (w *Writer) Uint64(num protowire.Number, v uint64) {
	if fr, wf := w.next(num, maskUnsigned); wf != nil {
		if v == 0 && fr.skipFast(wf) {
			w.check()
			return
		}
		if (wf.Flags&wf32 == 0 || v <= math.MaxUint32) && w.fits(0) {
			w.putFast(fr, wf, v)
			w.check()
			return
		}
	}
	w.unsigned(num, v)
	w.check()
}

// unsigned is the general path of Uint32 and Uint64.
func (w *Writer) unsigned(num protowire.Number, v uint64) {
	t, ok := w.prepare(num, maskUnsigned)
	if !ok {
		return
	}
	x, ok := unsignedWord(t.f.Kind, v)
	if !ok {
		w.fail(ErrOutOfRange, t.f, "value "+utoa(v)+" does not fit "+t.f.Kind.String())
		return
	}
	w.put(t, x)
}

// Float32 writes v to field num, a float or double field.
func (w *Writer) Float32(num protowire.Number, v float32) {
	if fr, wf := w.next(num, maskFloat); wf != nil {
		if x, _ := float32Word(wf.Kind, v); w.fits(0) {
			w.putFast(fr, wf, x)
			w.check()
			return
		}
	}
	t, ok := w.prepare(num, maskFloat)
	if !ok {
		w.check()
		return
	}
	x, _ := float32Word(t.f.Kind, v)
	w.put(t, x)
	w.check()
}

// Float64 writes v to field num, a double or float field. For a float
// field v is rounded to float32; a finite v beyond float32's range fails
// with ErrOutOfRange.
func (w *Writer) Float64(num protowire.Number, v float64) {
	if fr, wf := w.next(num, maskFloat); wf != nil && w.fits(0) {
		if wf.Kind == protoreflect.DoubleKind {
			w.putFast(fr, wf, math.Float64bits(v))
			w.check()
			return
		}
		if x, ok := float64Word(protoreflect.FloatKind, v); ok {
			w.putFast(fr, wf, x)
			w.check()
			return
		}
	}
	w.float64Slow(num, v)
	w.check()
}

// float64Slow is the general path of Float64.
func (w *Writer) float64Slow(num protowire.Number, v float64) {
	t, ok := w.prepare(num, maskFloat)
	if !ok {
		return
	}
	x, ok := float64Word(t.f.Kind, v)
	if !ok {
		w.fail(ErrOutOfRange, t.f, "float64 beyond float32's range")
		return
	}
	w.put(t, x)
}

// Bool writes v to field num, a bool field.
func (w *Writer) Bool(num protowire.Number, v bool) {
	if fr, wf := w.next(num, maskBool); wf != nil {
		if !v && fr.skipFast(wf) {
			w.check()
			return
		}
		if x, _ := boolWord(wf.Kind, v); w.fits(0) {
			w.putFast(fr, wf, x)
			w.check()
			return
		}
	}
	t, ok := w.prepare(num, maskBool)
	if !ok {
		w.check()
		return
	}
	x, _ := boolWord(t.f.Kind, v)
	w.put(t, x)
	w.check()
}

// Enum writes enum number v to field num, an enum field. Numbers the enum
// does not declare are written as they are, as proto.Marshal writes them.
// A plain integer converts with protoreflect.EnumNumber(v), an int32, at
// no cost (an untyped constant needs no conversion); the integer methods
// (Int32 and the like) fail on an enum field with ErrKindMismatch, whose
// message says to use Enum.
func (w *Writer) Enum(num protowire.Number, v protoreflect.EnumNumber) {
	if fr, wf := w.next(num, maskEnum); wf != nil {
		if v == 0 && fr.skipFast(wf) {
			w.check()
			return
		}
		if w.fits(0) {
			w.putFast(fr, wf, uint64(int64(v)))
			w.check()
			return
		}
	}
	t, ok := w.prepare(num, maskEnum)
	if !ok {
		w.check()
		return
	}
	w.put(t, uint64(int64(v)))
	w.check()
}

// EnumName writes the value called name (such as "STATUS_CODE_OK") to
// field num, an enum field; a name the enum does not declare fails with
// ErrUnknownEnumName.
func (w *Writer) EnumName(num protowire.Number, name string) {
	t, ok := w.prepare(num, maskEnum)
	if !ok {
		w.check()
		return
	}
	n, ok := t.f.Enum.ByName(name)
	if !ok {
		w.fail(ErrUnknownEnumName, t.f, "enum "+string(t.f.Enum.FullName)+" has no value "+quote(name))
		w.check()
		return
	}
	w.put(t, uint64(int64(n)))
	w.check()
}

// putFast writes scalar word x (wire.Word) to field wf accepted by next,
// once fits(0) holds, as the field's value op writes it (wire.PutWord). It
// skips a zero x of an implicit-presence field: the integer, bool and enum
// methods take theirs before (skipFast), but a float's zero is known only
// once converted (+0.0, or a value that rounds to it in a float field).
// Callers call it last, so that nothing is live across the call.
func (w *Writer) putFast(fr *wframe, wf *wslot, x uint64) {
	fr.commitFast(wf)
	if x == 0 && wf.Flags&wfImplicit != 0 {
		return
	}
	b := w.buf
	k := len(b)
	b = b[:cap(b)]
	k = wire.PutWord(b, putTag(b, k, wf), wf.Op, x)
	w.buf = w.buf[:k] // a reslice of itself: only the length is stored
}

// implicitZero reports whether a zero value of f in frame fr is skipped.
func implicitZero(fr *wframe, f *layout.Field) bool {
	return !f.Explicit && !f.List && !fr.entry
}

// put writes scalar word x (wire.Word, already checked) to target t.
func (w *Writer) put(t target, x uint64) {
	fr := &w.frames[len(w.frames)-1]
	f := t.f
	var defKey []byte
	if fr.entry {
		var ok bool
		if defKey, ok = entryPre(w, fr, t, keyOrd(f.Kind, x), ""); !ok {
			return
		}
	}
	add := w.closeDelta(fr, t) + len(defKey)
	skip := x == 0 && implicitZero(fr, f)
	packed := profileOf(fr.tab).packs(f)
	if !skip {
		if packed {
			if !t.same || fr.pack < 0 {
				add += len(f.PackedTag) + 1
			}
		} else {
			add += len(f.Tag)
		}
		// The value's own size (SizeWord's) matters only near the size
		// limit, no value taking more than a varint's longest.
		if w.over(add + binary.MaxVarintLen64) {
			add += wire.SizeWord(f.Elem, x)
		}
	}
	if w.over(add) {
		w.fail(ErrSizeExceeded, f, "")
		return
	}
	if fr.entry {
		entryPost(w, fr, t, defKey, keyOrd(f.Kind, x), "")
	}
	w.commit(fr, t)
	if f.List {
		fr.count++
	}
	if skip {
		return
	}
	if packed {
		if fr.pack < 0 {
			w.buf = append(w.buf, f.PackedTag...)
			l := learnFor(fr, t)
			fr.packWidth = w.reserve(l)
			fr.pack, fr.packLearn = len(w.buf), l
			w.setFast(nil)
		}
	} else {
		w.buf = append(w.buf, f.Tag...)
	}
	w.buf = wire.AppendWord(w.buf, f.Elem, x)
}

// The word (wire.Word) of a Go value for a field of kind k, and whether
// the value fits the kind.

func signedWord[T int32 | int64](k protoreflect.Kind, v T) (uint64, bool) {
	n := int64(v)
	return uint64(n), !is32(k) || n == int64(int32(n))
}

func unsignedWord[T uint32 | uint64](k protoreflect.Kind, v T) (uint64, bool) {
	return uint64(v), !is32(k) || uint64(v) <= math.MaxUint32
}

func float32Word(k protoreflect.Kind, v float32) (uint64, bool) {
	if k == protoreflect.FloatKind {
		return uint64(math.Float32bits(v)), true
	}
	return math.Float64bits(float64(v)), true
}

func float64Word(k protoreflect.Kind, v float64) (uint64, bool) {
	if k == protoreflect.FloatKind {
		f := float32(v)
		return uint64(math.Float32bits(f)), !math.IsInf(float64(f), 0) || math.IsInf(v, 0)
	}
	return math.Float64bits(v), true
}

func boolWord(_ protoreflect.Kind, v bool) (uint64, bool) {
	if v {
		return 1, true
	}
	return 0, true
}

func enumWord(_ protoreflect.Kind, v protoreflect.EnumNumber) (uint64, bool) {
	return uint64(int64(v)), true
}
