package encoder

import (
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/utf8x"
	"github.com/protolayout/protolayout/internal/wire"
)

// Int32s writes the elements of vs to field num, a repeated signed integer
// field, as Int32 would one by one; a packed field (or one the Signing
// profile packs) gets one record (or extends the record open for it). An
// empty vs writes nothing.
func (w *Writer) Int32s(num protowire.Number, vs []int32) {
	putNums(w, num, maskSigned, vs, signedWord[int32])
	w.check()
}

// Int64s writes the elements of vs to field num, a repeated signed integer
// field, as Int64 would one by one.
func (w *Writer) Int64s(num protowire.Number, vs []int64) {
	putNums(w, num, maskSigned, vs, signedWord[int64])
	w.check()
}

// Uint32s writes the elements of vs to field num, a repeated unsigned
// integer field, as Uint32 would one by one.
func (w *Writer) Uint32s(num protowire.Number, vs []uint32) {
	putNums(w, num, maskUnsigned, vs, unsignedWord[uint32])
	w.check()
}

// Uint64s writes the elements of vs to field num, a repeated unsigned
// integer field, as Uint64 would one by one.
func (w *Writer) Uint64s(num protowire.Number, vs []uint64) {
	putNums(w, num, maskUnsigned, vs, unsignedWord[uint64])
	w.check()
}

// Float32s writes the elements of vs to field num, a repeated float or
// double field, as Float32 would one by one.
func (w *Writer) Float32s(num protowire.Number, vs []float32) {
	putNums(w, num, maskFloat, vs, float32Word)
	w.check()
}

// Float64s writes the elements of vs to field num, a repeated double or
// float field, as Float64 would one by one.
func (w *Writer) Float64s(num protowire.Number, vs []float64) {
	putNums(w, num, maskFloat, vs, float64Word)
	w.check()
}

// Bools writes the elements of vs to field num, a repeated bool field.
func (w *Writer) Bools(num protowire.Number, vs []bool) {
	putNums(w, num, maskBool, vs, boolWord)
	w.check()
}

// Enums writes the elements of vs to field num, a repeated enum field.
func (w *Writer) Enums(num protowire.Number, vs []protoreflect.EnumNumber) {
	putNums(w, num, maskEnum, vs, enumWord)
	w.check()
}

// putNums writes a slice of scalars: every element is checked before
// anything is written.
func putNums[T any](w *Writer, num protowire.Number, mask uint32, vs []T, conv func(protoreflect.Kind, T) (uint64, bool)) {
	t, ok := w.prepare(num, mask)
	if !ok {
		return
	}
	f := t.f
	if !f.List {
		w.fail(ErrKindMismatch, f, "a slice needs a repeated field")
		return
	}
	fr := &w.frames[len(w.frames)-1]
	body := 0
	for i, v := range vs {
		x, ok := conv(f.Kind, v)
		if !ok {
			w.fail(ErrOutOfRange, f, "element "+itoa(int64(i))+" does not fit "+f.Kind.String())
			return
		}
		body += wire.SizeWord(f.Elem, x)
	}
	add := w.closeDelta(fr, t)
	packed := profileOf(fr.tab).packs(f)
	if len(vs) > 0 {
		if packed {
			if !t.same || fr.pack < 0 {
				add += len(f.PackedTag) + 1
			}
		} else {
			add += len(vs) * len(f.Tag)
		}
		add += body
	}
	if w.over(add) {
		w.fail(ErrSizeExceeded, f, "")
		return
	}
	w.commit(fr, t)
	if len(vs) == 0 {
		return
	}
	fr.count += len(vs)
	if packed {
		if fr.pack < 0 {
			// The record's length is known: reserve it exactly.
			w.buf = append(w.buf, f.PackedTag...)
			r := wire.SizeVarint(uint64(body))
			w.buf = append(w.buf, make([]byte, r)...)
			w.addSlack(r - 1)
			fr.pack, fr.packWidth, fr.packLearn = len(w.buf), r, nil
			w.setFast(nil)
		}
		for _, v := range vs {
			x, _ := conv(f.Kind, v)
			w.buf = wire.AppendWord(w.buf, f.Elem, x)
		}
		return
	}
	for _, v := range vs {
		x, _ := conv(f.Kind, v)
		w.buf = append(w.buf, f.Tag...)
		w.buf = wire.AppendWord(w.buf, f.Elem, x)
	}
}

// Strings writes the elements of vs to field num, a repeated string or
// bytes field, as String would one by one.
func (w *Writer) Strings(num protowire.Number, vs []string) {
	t, ok := w.prepare(num, maskString)
	if !ok {
		w.check()
		return
	}
	f := t.f
	if !f.List {
		w.fail(ErrKindMismatch, f, "a slice needs a repeated field")
		w.check()
		return
	}
	fr := &w.frames[len(w.frames)-1]
	add := w.closeDelta(fr, t)
	for i, s := range vs {
		if f.ValidateUTF8 && !utf8x.ValidString(s) {
			w.fail(ErrInvalidUTF8, f, "element "+itoa(int64(i)))
			w.check()
			return
		}
		n := len(f.Tag) + wire.SizeVarint(uint64(len(s)))
		if len(s) > w.maxSize-n || add > w.maxSize-n-len(s) {
			w.fail(ErrSizeExceeded, f, "")
			w.check()
			return
		}
		add += n + len(s)
	}
	if w.over(add) {
		w.fail(ErrSizeExceeded, f, "")
		w.check()
		return
	}
	w.commit(fr, t)
	fr.count += len(vs)
	w.makeRoom(add)
	for _, s := range vs {
		w.buf = append(w.buf, f.Tag...)
		w.buf = wire.AppendVarint(w.buf, uint64(len(s)))
		w.buf = append(w.buf, s...)
	}
	w.check()
}

// closePacked ends the frame's open packed record.
func (w *Writer) closePacked(fr *wframe) {
	w.patch(fr.pack, fr.packWidth, fr.packLearn)
	fr.pack, fr.packLearn = -1, nil
}
