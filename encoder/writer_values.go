package encoder

import (
	"errors"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/layout"
	"github.com/protolayout/protolayout/internal/utf8x"
	"github.com/protolayout/protolayout/internal/wire"
)

// Int32 writes v to field num, an int32, sint32, sfixed32, int64, sint64
// or sfixed64 field (one element, for a repeated field).
func (w *Writer) Int32(num protowire.Number, v int32) {
	if fr, wf := w.next(num, maskSigned); wf != nil {
		if v == 0 && fr.skipFast(wf) {
			return
		}
		if w.fits(0) {
			w.putFast(fr, wf, signedFast(wf, int64(v)))
			return
		}
	}
	w.signed(num, int64(v))
}

// Int64 writes v to field num, a signed integer field of any width (int32,
// sint32, sfixed32, int64, sint64, sfixed64); a 32-bit field fails with
// ErrOutOfRange when v does not fit.
func (w *Writer) Int64(num protowire.Number, v int64) {
	if fr, wf := w.next(num, maskSigned); wf != nil {
		if v == 0 && fr.skipFast(wf) {
			return
		}
		if (wf.flags&wf32 == 0 || v == int64(int32(v))) && w.fits(0) {
			w.putFast(fr, wf, signedFast(wf, v))
			return
		}
	}
	w.signed(num, v)
}

// Uint32 writes v to field num, a uint32, fixed32, uint64 or fixed64
// field.
func (w *Writer) Uint32(num protowire.Number, v uint32) {
	if fr, wf := w.next(num, maskUnsigned); wf != nil {
		if v == 0 && fr.skipFast(wf) {
			return
		}
		if w.fits(0) {
			w.putFast(fr, wf, uint64(v))
			return
		}
	}
	w.unsigned(num, uint64(v))
}

// Uint64 writes v to field num, an unsigned integer field of any width; a
// 32-bit field fails with ErrOutOfRange when v does not fit.
func (w *Writer) Uint64(num protowire.Number, v uint64) {
	if fr, wf := w.next(num, maskUnsigned); wf != nil {
		if v == 0 && fr.skipFast(wf) {
			return
		}
		if (wf.flags&wf32 == 0 || v <= math.MaxUint32) && w.fits(0) {
			w.putFast(fr, wf, v)
			return
		}
	}
	w.unsigned(num, v)
}

// Float32 writes v to field num, a float or double field.
func (w *Writer) Float32(num protowire.Number, v float32) {
	if fr, wf := w.next(num, maskFloat); wf != nil {
		if x, _ := float32Wire(wf.kind, v); w.fits(0) {
			w.putFast(fr, wf, x)
			return
		}
	}
	t, ok := w.prepare(num, maskFloat)
	if !ok {
		return
	}
	x, _ := float32Wire(t.f.Kind, v)
	w.put(t, x)
}

// Float64 writes v to field num, a double or float field. For a float
// field v is rounded to float32; a finite v beyond float32's range fails
// with ErrOutOfRange.
func (w *Writer) Float64(num protowire.Number, v float64) {
	if fr, wf := w.next(num, maskFloat); wf != nil && w.fits(0) {
		if wf.kind == protoreflect.DoubleKind {
			w.putFast(fr, wf, math.Float64bits(v))
			return
		}
		if x, ok := float64Wire(protoreflect.FloatKind, v); ok {
			w.putFast(fr, wf, x)
			return
		}
	}
	w.float64Slow(num, v)
}

// float64Slow is the general path of Float64.
func (w *Writer) float64Slow(num protowire.Number, v float64) {
	t, ok := w.prepare(num, maskFloat)
	if !ok {
		return
	}
	x, ok := float64Wire(t.f.Kind, v)
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
			return
		}
		if x, _ := boolWire(wf.kind, v); w.fits(0) {
			w.putFast(fr, wf, x)
			return
		}
	}
	t, ok := w.prepare(num, maskBool)
	if !ok {
		return
	}
	x, _ := boolWire(t.f.Kind, v)
	w.put(t, x)
}

// Enum writes enum number v to field num, an enum field. Numbers the enum
// does not declare are written as they are, as proto.Marshal writes them.
func (w *Writer) Enum(num protowire.Number, v protoreflect.EnumNumber) {
	if fr, wf := w.next(num, maskEnum); wf != nil {
		if v == 0 && fr.skipFast(wf) {
			return
		}
		if w.fits(0) {
			w.putFast(fr, wf, uint64(int64(v)))
			return
		}
	}
	t, ok := w.prepare(num, maskEnum)
	if !ok {
		return
	}
	w.put(t, uint64(int64(v)))
}

// EnumName writes the value called name (such as "STATUS_CODE_OK") to
// field num, an enum field; a name the enum does not declare fails with
// ErrUnknownEnumName.
func (w *Writer) EnumName(num protowire.Number, name string) {
	t, ok := w.prepare(num, maskEnum)
	if !ok {
		return
	}
	n, ok := t.f.Enum.ByName(name)
	if !ok {
		w.fail(ErrUnknownEnumName, t.f, "enum "+string(t.f.Enum.FullName)+" has no value "+quote(name))
		return
	}
	w.put(t, uint64(int64(n)))
}

// String writes s to field num, a string or bytes field. A string field
// whose schema validates UTF-8 fails with ErrInvalidUTF8 on invalid s.
func (w *Writer) String(num protowire.Number, s string) { writeLen(w, num, s) }

// Bytes writes b to field num, a bytes or string field (validated as
// String validates). nil and empty b are the same value.
func (w *Writer) Bytes(num protowire.Number, b []byte) { writeLen(w, num, b) }

// writeLen is String and Bytes. Its fast path (see writer_fast.go) tells
// short ASCII text valid inline (utf8x.ShortASCII), validates other text
// with a call off the common course, and writes the value into the
// buffer's capacity; the copy of s is its last act.
func writeLen[S string | []byte](w *Writer, num protowire.Number, s S) {
	fr, wf := w.next(num, maskString)
	if wf == nil {
		writeLenSlow(w, num, s)
		return
	}
	if len(s) == 0 && fr.skipFast(wf) {
		return
	}
	if !w.fits(len(s)) {
		writeLenSlow(w, num, s)
		return
	}
	if wf.flags&wfUTF8 != 0 && !utf8x.ShortASCII(s) && !utf8x.ValidText(s) {
		writeLenSlow(w, num, s) // fails
		return
	}
	fr.commitFast(wf)
	b := w.buf
	k := len(b)
	b = b[:cap(b)]
	k = putTag(b, k, wf)
	if len(s) < 0x80 {
		b[k] = byte(len(s))
		k++
	} else {
		k = putVarint(b, k, uint64(len(s)))
	}
	w.buf = w.buf[:k+len(s)] // a reslice of itself: only the length is stored
	copy(b[k:], s)
}

// writeLenSlow is the general path of String and Bytes.
func writeLenSlow[S string | []byte](w *Writer, num protowire.Number, s S) {
	t, ok := w.prepare(num, maskString)
	if !ok {
		return
	}
	if t.f.ValidateUTF8 && !utf8x.ValidText(s) {
		w.fail(ErrInvalidUTF8, t.f, "")
		return
	}
	putLen(w, t, s)
}

// signed is the general path of Int32 and Int64.
func (w *Writer) signed(num protowire.Number, v int64) {
	t, ok := w.prepare(num, maskSigned)
	if !ok {
		return
	}
	x, ok := signedWire(t.f.Kind, v)
	if !ok {
		w.fail(ErrOutOfRange, t.f, "value "+itoa(v)+" does not fit "+t.f.Kind.String())
		return
	}
	w.put(t, x)
}

// unsigned is the general path of Uint32 and Uint64.
func (w *Writer) unsigned(num protowire.Number, v uint64) {
	t, ok := w.prepare(num, maskUnsigned)
	if !ok {
		return
	}
	x, ok := unsignedWire(t.f.Kind, v)
	if !ok {
		w.fail(ErrOutOfRange, t.f, "value "+utoa(v)+" does not fit "+t.f.Kind.String())
		return
	}
	w.put(t, x)
}

// The wire value of a Go value for a field of kind k, and whether it fits.

// signedFast is signedWire for the fast paths, for a v that fits wf's
// kind: the wire value of a signed integer kind is v itself (truncated by
// the fixed-width write of sfixed32), or its zigzag encoding.
func signedFast(wf *wslot, v int64) uint64 {
	if wf.flags&wfZigZag != 0 {
		return protowire.EncodeZigZag(v)
	}
	return uint64(v)
}

func signedWire[T int32 | int64](k protoreflect.Kind, v T) (uint64, bool) {
	n := int64(v)
	switch k {
	case protoreflect.Int32Kind:
		return uint64(n), n == int64(int32(n))
	case protoreflect.Sint32Kind:
		return protowire.EncodeZigZag(n), n == int64(int32(n))
	case protoreflect.Sfixed32Kind:
		return uint64(uint32(int32(n))), n == int64(int32(n))
	case protoreflect.Sint64Kind:
		return protowire.EncodeZigZag(n), true
	}
	return uint64(n), true // int64, sfixed64
}

func unsignedWire[T uint32 | uint64](k protoreflect.Kind, v T) (uint64, bool) {
	if is32(k) {
		return uint64(v), uint64(v) <= math.MaxUint32
	}
	return uint64(v), true
}

func float32Wire(k protoreflect.Kind, v float32) (uint64, bool) {
	if k == protoreflect.FloatKind {
		return uint64(math.Float32bits(v)), true
	}
	return math.Float64bits(float64(v)), true
}

func float64Wire(k protoreflect.Kind, v float64) (uint64, bool) {
	if k == protoreflect.FloatKind {
		f := float32(v)
		return uint64(math.Float32bits(f)), !math.IsInf(float64(f), 0) || math.IsInf(v, 0)
	}
	return math.Float64bits(v), true
}

func boolWire(_ protoreflect.Kind, v bool) (uint64, bool) {
	if v {
		return 1, true
	}
	return 0, true
}

func enumWire(_ protoreflect.Kind, v protoreflect.EnumNumber) (uint64, bool) {
	return uint64(int64(v)), true
}

// Int32s writes the elements of vs to field num, a repeated signed integer
// field, as Int32 would one by one; a packed field gets one record (or
// extends the record open for it). An empty vs writes nothing.
func (w *Writer) Int32s(num protowire.Number, vs []int32) {
	putNums(w, num, maskSigned, vs, signedWire[int32])
}

// Int64s writes the elements of vs to field num, a repeated signed integer
// field, as Int64 would one by one.
func (w *Writer) Int64s(num protowire.Number, vs []int64) {
	putNums(w, num, maskSigned, vs, signedWire[int64])
}

// Uint32s writes the elements of vs to field num, a repeated unsigned
// integer field, as Uint32 would one by one.
func (w *Writer) Uint32s(num protowire.Number, vs []uint32) {
	putNums(w, num, maskUnsigned, vs, unsignedWire[uint32])
}

// Uint64s writes the elements of vs to field num, a repeated unsigned
// integer field, as Uint64 would one by one.
func (w *Writer) Uint64s(num protowire.Number, vs []uint64) {
	putNums(w, num, maskUnsigned, vs, unsignedWire[uint64])
}

// Float32s writes the elements of vs to field num, a repeated float or
// double field, as Float32 would one by one.
func (w *Writer) Float32s(num protowire.Number, vs []float32) {
	putNums(w, num, maskFloat, vs, float32Wire)
}

// Float64s writes the elements of vs to field num, a repeated double or
// float field, as Float64 would one by one.
func (w *Writer) Float64s(num protowire.Number, vs []float64) {
	putNums(w, num, maskFloat, vs, float64Wire)
}

// Bools writes the elements of vs to field num, a repeated bool field.
func (w *Writer) Bools(num protowire.Number, vs []bool) {
	putNums(w, num, maskBool, vs, boolWire)
}

// Enums writes the elements of vs to field num, a repeated enum field.
func (w *Writer) Enums(num protowire.Number, vs []protoreflect.EnumNumber) {
	putNums(w, num, maskEnum, vs, enumWire)
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
		body += sizeOf(f, x)
	}
	add := w.closeDelta(fr, t)
	if len(vs) > 0 {
		if f.Packed {
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
	if f.Packed {
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
			w.buf = appendWire(w.buf, f, x)
		}
		return
	}
	for _, v := range vs {
		x, _ := conv(f.Kind, v)
		w.buf = append(w.buf, f.Tag...)
		w.buf = appendWire(w.buf, f, x)
	}
}

// Strings writes the elements of vs to field num, a repeated string or
// bytes field, as String would one by one.
func (w *Writer) Strings(num protowire.Number, vs []string) {
	t, ok := w.prepare(num, maskString)
	if !ok {
		return
	}
	f := t.f
	if !f.List {
		w.fail(ErrKindMismatch, f, "a slice needs a repeated field")
		return
	}
	fr := &w.frames[len(w.frames)-1]
	add := w.closeDelta(fr, t)
	for i, s := range vs {
		if f.ValidateUTF8 && !utf8x.ValidString(s) {
			w.fail(ErrInvalidUTF8, f, "element "+itoa(int64(i)))
			return
		}
		n := len(f.Tag) + wire.SizeVarint(uint64(len(s)))
		if len(s) > w.maxSize-n || add > w.maxSize-n-len(s) {
			w.fail(ErrSizeExceeded, f, "")
			return
		}
		add += n + len(s)
	}
	if w.over(add) {
		w.fail(ErrSizeExceeded, f, "")
		return
	}
	w.commit(fr, t)
	fr.count += len(vs)
	for _, s := range vs {
		w.buf = append(w.buf, f.Tag...)
		w.buf = wire.AppendVarint(w.buf, uint64(len(s)))
		w.buf = append(w.buf, s...)
	}
}

// Begin starts a nested message in field num: a message field, a group
// (or editions DELIMITED) field, or a map field, where it starts one map
// entry (write its key to field MapKey and its value to field MapValue).
// The fields that follow belong to the nested message until End. For a
// repeated field each Begin starts one element.
func (w *Writer) Begin(num protowire.Number) {
	// The fast path: a message field (not a map, not a group) whose
	// table is built; see writer_fast.go.
	fr, wf := w.next(num, maskMessage)
	if wf == nil {
		w.beginSlow(num)
		return
	}
	child := wf.child.Load()
	n := len(w.frames)
	if child == nil || w.depth >= w.maxDepth || !w.fits(0) || n == cap(w.frames) {
		w.beginSlow(num)
		return
	}
	fr.commitFast(wf)
	k, r := w.putHead(w.buf[:cap(w.buf)], len(w.buf), wf)
	w.buf = w.buf[:k] // a reslice of itself: only the length is stored
	// push, for a frame with no required fields to check and at most 64
	// fields.
	w.pushFast(fr, child, n, k, r, false, w.checksRequired(child))
	w.depth++
}

// putHead writes, for Begin's and BeginEntry's fast paths, the tag of
// field wf at b[k:] (into the capacity of b) and reserves the length
// prefix of its body (zeros: see putTag; at most 4 bytes, see
// learnState); it returns the body's offset and the width reserved.
func (w *Writer) putHead(b []byte, k int, wf *wslot) (int, int) {
	k = putTag(b, k, wf)
	r := 1
	if w.opts.Lengths == LengthLearned {
		r = wf.rec.learn.guess()
		w.addSlack(r - 1)
	}
	return k + r, r
}

// pushFast is push for the fast paths, with room in the frame stack (n
// frames open) and a table of at most 64 fields: it opens a frame for
// table t whose body starts at start after width reserved bytes, below
// parent, and makes it the fast frame.
func (w *Writer) pushFast(parent *wframe, t *wtable, n, start, width int, entry, slowEnd bool) *wframe {
	fs := w.frames[:n+1]
	w.frames = fs
	c := &fs[n]
	c.open(t, start, width, entry, slowEnd)
	c.parent, c.written = parent, 0
	w.fast, w.dense = c, t.dense // setFast, for a frame known not nil
	return c
}

// beginSlow is the general path of Begin.
func (w *Writer) beginSlow(num protowire.Number) {
	t, ok := w.prepare(num, maskMessage)
	if !ok {
		return
	}
	w.begin(t)
}

// BeginEntryString starts an entry of map field num, whose keys are
// strings, and writes its key: Begin(num) then String(MapKey, key), as one
// call (when the key fails its checks, nothing is written). The
// BeginEntry methods are the fast way to write an entry: with them, the
// value and End take the fast paths too, where Begin then a key leave the
// whole entry to the general path.
func (w *Writer) BeginEntryString(num protowire.Number, key string) {
	// The fast path: the next entry of a map whose entry table is built,
	// with a key above the previous entry's, and room.
	fr, wf := w.next(num, fastMapString)
	if wf == nil {
		w.beginEntryStringSlow(num, key)
		return
	}
	child := wf.child.Load()
	n := len(w.frames)
	same := int(wf.idx) == fr.pos // another entry of the current map
	if child == nil || n == cap(w.frames) || !w.fits(len(key)) ||
		same && fr.keyValid && key <= string(fr.keyS) ||
		wf.flags&wfUTF8 != 0 && !utf8x.ShortASCII(key) && !utf8x.ValidString(key) {
		w.beginEntryStringSlow(num, key)
		return
	}
	fr.commitFast(wf)
	// The map field's tag and the entry's reserved length, then the key
	// (field 1, a string: tag 0x0a).
	b := w.buf[:cap(w.buf)]
	start, r := w.putHead(b, len(w.buf), wf)
	k := start
	b[k] = 0x0a
	k++
	if len(key) < 0x80 {
		b[k] = byte(len(key))
		k++
	} else {
		k = putVarint(b, k, uint64(len(key)))
	}
	w.buf = w.buf[:k+len(key)]
	copy(b[k:], key)
	openEntry(w.pushFast(fr, child, n, start, r, true, true))
	// The key, for the order check of the next entry (entryPost).
	fr.keyValid, fr.keyU = true, 0
	fr.keyS = append(fr.keyS[:0], key...)
}

// openEntry marks map entry frame c, just pushed by a BeginEntry fast
// path, as holding its key: the fast paths may write its value (field 2
// comes after the current field 1), and End takes its fast path once the
// value is written (its slowEnd is set: the general path writes a
// missing value).
func openEntry(c *wframe) {
	c.written = 1
	c.pos, c.phase, c.count = 0, phaseFields, 0
}

// beginEntryFast is the fast path of BeginEntryInt, BeginEntryUint and
// BeginEntryBool, called by next's accepting the map field: for a key of
// wire value x (fitting the key's kind) and order ord (keyOrd), it
// begins the entry and writes the key, or reports false, having changed
// nothing, when the general path must decide.
func (w *Writer) beginEntryFast(fr *wframe, wf *wslot, x, ord uint64) bool {
	child := wf.child.Load()
	n := len(w.frames)
	if child == nil || n == cap(w.frames) || !w.fits(0) ||
		int(wf.idx) == fr.pos && fr.keyValid && ord <= fr.keyU {
		return false
	}
	fr.commitFast(wf)
	b := w.buf[:cap(w.buf)]
	start, r := w.putHead(b, len(w.buf), wf)
	kf := &child.lay.Fields[0]
	k := start
	b[k] = kf.Tag[0] // field 1: a one-byte tag
	k = putWire(b, k+1, kf.WireType, x)
	w.buf = w.buf[:k]
	openEntry(w.pushFast(fr, child, n, start, r, true, true))
	fr.keyValid, fr.keyU, fr.keyS = true, ord, fr.keyS[:0]
	return true
}

// beginEntryStringSlow is the general path of BeginEntryString.
func (w *Writer) beginEntryStringSlow(num protowire.Number, key string) {
	t, kf, ok := w.prepareEntry(num, maskString)
	if !ok {
		return
	}
	if kf.ValidateUTF8 && !utf8x.ValidString(key) {
		w.fail(ErrInvalidUTF8, kf, "")
		return
	}
	if w.keyAfter(t, 0, key) {
		w.begin(t)
		w.String(MapKey, key)
	}
}

// BeginEntryInt starts an entry of map field num, whose keys are signed
// integers, and writes its key, as one call.
func (w *Writer) BeginEntryInt(num protowire.Number, key int64) {
	if fr, wf := w.next(num, fastMapSigned); wf != nil && (wf.flags&wf32 == 0 || key == int64(int32(key))) {
		// The order of a signed key of any kind is keyOrd's: key, offset.
		if w.beginEntryFast(fr, wf, signedFast(wf, key), uint64(key)^1<<63) {
			return
		}
	}
	w.beginEntryIntSlow(num, key)
}

// beginEntryIntSlow is the general path of BeginEntryInt.
func (w *Writer) beginEntryIntSlow(num protowire.Number, key int64) {
	t, kf, ok := w.prepareEntry(num, maskSigned)
	if !ok {
		return
	}
	x, ok := signedWire(kf.Kind, key)
	if !ok {
		w.fail(ErrOutOfRange, kf, "key "+itoa(key)+" does not fit "+kf.Kind.String())
		return
	}
	if w.keyAfter(t, keyOrd(kf.Kind, x), "") {
		w.begin(t)
		w.Int64(MapKey, key)
	}
}

// BeginEntryUint starts an entry of map field num, whose keys are
// unsigned integers, and writes its key, as one call.
func (w *Writer) BeginEntryUint(num protowire.Number, key uint64) {
	if fr, wf := w.next(num, fastMapUnsigned); wf != nil && (wf.flags&wf32 == 0 || key <= math.MaxUint32) &&
		w.beginEntryFast(fr, wf, key, key) {
		return
	}
	w.beginEntryUintSlow(num, key)
}

// beginEntryUintSlow is the general path of BeginEntryUint.
func (w *Writer) beginEntryUintSlow(num protowire.Number, key uint64) {
	t, kf, ok := w.prepareEntry(num, maskUnsigned)
	if !ok {
		return
	}
	x, ok := unsignedWire(kf.Kind, key)
	if !ok {
		w.fail(ErrOutOfRange, kf, "key "+utoa(key)+" does not fit "+kf.Kind.String())
		return
	}
	if w.keyAfter(t, keyOrd(kf.Kind, x), "") {
		w.begin(t)
		w.Uint64(MapKey, key)
	}
}

// BeginEntryBool starts an entry of map field num, whose keys are bools,
// and writes its key, as one call.
func (w *Writer) BeginEntryBool(num protowire.Number, key bool) {
	if fr, wf := w.next(num, fastMapBool); wf != nil {
		x, _ := boolWire(protoreflect.BoolKind, key)
		if w.beginEntryFast(fr, wf, x, x) {
			return
		}
	}
	w.beginEntryBoolSlow(num, key)
}

// beginEntryBoolSlow is the general path of BeginEntryBool.
func (w *Writer) beginEntryBoolSlow(num protowire.Number, key bool) {
	t, _, ok := w.prepareEntry(num, maskBool)
	if !ok {
		return
	}
	x, _ := boolWire(protoreflect.BoolKind, key)
	if w.keyAfter(t, x, "") {
		w.begin(t)
		w.Bool(MapKey, key)
	}
}

// prepareEntry checks that a new entry of map field num may start now,
// with a key taken by a method of kinds mask; it returns the key's field.
func (w *Writer) prepareEntry(num protowire.Number, mask uint32) (target, *layout.Field, bool) {
	t, ok := w.prepare(num, maskMessage)
	if !ok {
		return t, nil, false
	}
	if !t.f.Map {
		w.fail(ErrKindMismatch, t.f, "not a map field")
		return t, nil, false
	}
	kf := &childTab(&w.frames[len(w.frames)-1], t).lay.Fields[0]
	if kindBit(kf.Kind)&mask == 0 {
		w.failKind(kf, mask)
		return t, nil, false
	}
	return t, kf, true
}

// keyAfter checks that a key of order ord (or string s) may follow the
// last key of map t, when t is the current field.
func (w *Writer) keyAfter(t target, ord uint64, s string) bool {
	p := &w.frames[len(w.frames)-1]
	if !t.same || !p.keyValid {
		return true
	}
	var c int
	if t.f.MapKey.Kind == protoreflect.StringKind {
		c = cmpBytes(s, p.keyS)
	} else if ord > p.keyU {
		c = 1
	} else if ord < p.keyU {
		c = -1
	}
	if c > 0 {
		return true
	}
	detail := "key below the previous entry's key"
	if c == 0 {
		detail = "key equal to the previous entry's key"
	}
	w.fail(ErrMapKeyOrder, t.f, detail)
	return false
}

// childTab returns the table of the message target t holds.
func childTab(fr *wframe, t target) *wtable {
	if t.idx >= 0 {
		return fr.tab.child(t.idx)
	}
	return t.x.table()
}

func (w *Writer) begin(t target) {
	fr := &w.frames[len(w.frames)-1]
	f := t.f
	child := childTab(fr, t)
	if !f.Map {
		if child.lay.MessageSet {
			w.fail(ErrMessageSet, f, "")
			return
		}
		if w.depth >= w.maxDepth {
			w.fail(ErrDepthExceeded, f, "")
			return
		}
	}
	var defKey []byte
	if fr.entry {
		var ok bool
		if defKey, ok = entryPre(w, fr, t, 0, ""); !ok {
			return
		}
	}
	add := w.closeDelta(fr, t) + len(defKey) + len(f.Tag)
	if !f.Group {
		add++
	}
	if w.over(add) {
		w.fail(ErrSizeExceeded, f, "")
		return
	}
	if fr.entry {
		entryPost(w, fr, t, defKey, 0, "")
	}
	w.commit(fr, t)
	if f.List || f.Map {
		fr.count++
	}
	w.buf = append(w.buf, f.Tag...)
	width := 0
	if !f.Group {
		width = w.reserve(learnFor(fr, t))
	}
	w.push(child, width, f.Map)
	if !f.Map {
		w.depth++
	}
}

// End ends the message (or map entry) started by the last open Begin:
// it checks that its required fields were written, closes its open packed
// record, writes a map entry's missing key or value, and writes its length
// in place (or a group's end tag).
func (w *Writer) End() {
	// The fast path: a nested message (not a group) with no required
	// fields to check and no packed record open, or a map entry begun by
	// a BeginEntry fast path whose value is written.
	fr := w.fast
	// The root's slowEnd is set, and so is every map entry's; those begun
	// by a BeginEntry fast path (the only entries w.fast is ever set to)
	// come back here once their value is written.
	if fr == nil || fr.slowEnd {
		if fr == nil || !fr.entry || fr.written&2 == 0 {
			w.endSlow() // which writes an entry's missing value
			return
		}
		w.depth++ // entries are not counted: this cancels the decrement below
	}
	n := len(w.frames)
	size := len(w.buf) - fr.start
	w.tick++
	// The common case, with no call, so that nothing is saved on the
	// stack around one: a body under 128 bytes in the byte reserved for
	// it (the smallest output size stays what it was: no limit to check),
	// below the top level, not sampled. The rest goes to endRare.
	if fr.width == 1 && size < 1<<7 && n > 2 && w.tick%learnSample != 0 {
		w.buf[fr.start-1] = byte(size)
	} else if !w.endRare(fr, n, size) {
		w.endSlow()
		return
	}
	w.frames = w.frames[:n-1]
	w.depth--
	// The parent holds no open packed record (opening this frame closed
	// it), the Writer is still open and without error, and the parent is
	// not a map entry, or one whose key is written (a BeginEntry fast
	// path): the fast paths may use it.
	p := fr.parent
	w.fast, w.dense = p, p.tab.dense // setFast, for a frame known not nil
}

// endRare is End's fast path for what End does not do inline: it writes
// the length of body fr (n frames open, size bytes), moving the body when
// it needs another width than was reserved, samples its width every
// learnSample bodies, and records a top-level item's range. It reports
// false, having changed nothing, when the general path must decide (the
// size limit is near).
func (w *Writer) endRare(fr *wframe, n, size int) bool {
	switch {
	case fr.width == 1 && size < 1<<7:
		// The smallest output size stays what it was: no limit to check.
		w.buf[fr.start-1] = byte(size)
	case !w.room(0):
		w.tick-- // End counts again on the general path
		return false
	case fr.width == 2 && size >= 1<<7 && size < 1<<14:
		b := w.buf[fr.start-2 : fr.start]
		b[0], b[1] = byte(size)|0x80, byte(size>>7)
		w.addSlack(-1)
	default:
		w.patch(fr.start, int(fr.width), nil)
	}
	// Every strategy samples: the widths bodies need do not depend on it.
	if w.tick%learnSample == 0 {
		w.learnOf(n - 1).record(wire.SizeVarint(uint64(size)))
	}
	if n == 2 {
		// The tag stays where it was when the body moved.
		tagAt := w.tagAt(1)
		w.lastAt, w.lastN = tagAt, len(w.buf)-tagAt
	}
	return true
}

// endSlow is the general path of End.
func (w *Writer) endSlow() {
	if w.err != nil {
		return
	}
	if w.state != stateOpen {
		w.failState()
		return
	}
	n := len(w.frames)
	if n == 1 {
		w.fail(ErrEndWithoutBegin, nil, "")
		return
	}
	fr := &w.frames[n-1]
	if !w.requiredOK(fr) {
		return
	}
	f := w.via(n - 1)
	grow, lb := 0, 0
	if fr.pack >= 0 {
		a := wire.SizeVarint(uint64(len(w.buf) - fr.pack))
		grow += a - fr.packWidth
		lb += a - 1
	}
	var defKey, defVal []byte
	if fr.entry {
		var ok bool
		if defKey, ok = entryPre(w, fr, target{idx: 1}, 0, ""); !ok {
			return
		}
		if !fr.isWritten(1) {
			defVal = fr.tab.defVal
		}
		grow += len(defKey) + len(defVal)
		lb += len(defKey) + len(defVal)
	}
	if f.Group {
		lb += len(f.EndTag)
	} else {
		lb += wire.SizeVarint(uint64(len(w.buf)-fr.start+grow)) - 1
	}
	if w.over(lb) {
		w.fail(ErrSizeExceeded, f, "")
		return
	}
	if fr.pack >= 0 {
		w.closePacked(fr)
	}
	if fr.entry {
		entryPost(w, fr, target{idx: 1}, defKey, 0, "")
		w.buf = append(w.buf, defVal...)
	}
	tagAt, entry := w.tagAt(n-1), fr.entry
	if f.Group {
		w.buf = append(w.buf, f.EndTag...)
	} else {
		w.patch(fr.start, int(fr.width), w.learnOf(n-1))
	}
	w.frames = w.frames[:n-1]
	if !entry {
		w.depth--
	}
	if n == 2 {
		w.lastAt, w.lastN = tagAt, len(w.buf)-tagAt
	}
	w.setTop()
}

// requiredOK checks that the required fields of frame fr were written.
func (w *Writer) requiredOK(fr *wframe) bool {
	if w.opts.AllowPartial {
		return true
	}
	for _, i := range fr.tab.required {
		if !fr.isWritten(int(i)) {
			w.fail(ErrRequiredNotSet, &fr.tab.lay.Fields[i], "")
			return false
		}
	}
	return true
}

// embedHeadroom is the room left before an embedded message's body while
// it is encoded: enough for closing a packed record (4), a map entry's
// zero key (5 + 10), the tag (5) and the length (5).
const embedHeadroom = 32

// Message writes m, encoded by this package's encoder (with the Writer's
// AllowPartial and what is left of its limits), to field num, a message
// or group field of m's type (compared by full name, so a dynamicpb message
// may fill a field of a generated type and the other way round). A nil m,
// or an invalid one such as a typed nil, writes an empty message, as
// proto.Marshal writes a present message whose value is nil. The length is
// known once m is encoded, so it is written exactly; the body is copied
// once into place.
func (w *Writer) Message(num protowire.Number, m proto.Message) {
	t, ok := w.prepare(num, maskMessage)
	if !ok {
		return
	}
	f := t.f
	if f.Map {
		w.fail(ErrKindMismatch, f, "a map field takes entries (Begin)")
		return
	}
	if !absent(m) {
		if got, want := m.ProtoReflect().Descriptor().FullName(), f.Message().FullName; got != want {
			w.fail(ErrKindMismatch, f, "message "+string(got)+", field takes "+string(want))
			return
		}
	}
	fr := &w.frames[len(w.frames)-1]
	if childTab(fr, t).lay.MessageSet {
		w.fail(ErrMessageSet, f, "")
		return
	}
	if w.depth >= w.maxDepth {
		w.fail(ErrDepthExceeded, f, "")
		return
	}
	var defKey []byte
	if fr.entry {
		var ok bool
		if defKey, ok = entryPre(w, fr, t, 0, ""); !ok {
			return
		}
	}
	head := len(w.buf)
	room := w.maxSize - (head - w.base - w.slack)
	out := append(w.buf, make([]byte, embedHeadroom)...)
	at := len(out)
	if !absent(m) && room > 0 {
		o := MarshalOptions{Deterministic: true, AllowPartial: w.opts.AllowPartial, MaxDepth: max(w.maxDepth-w.depth-1, 1), MaxSize: room}
		var err error
		out, err = o.MarshalAppend(out, m)
		if err != nil {
			w.buf = out[:head]
			w.failEmbed(f, err)
			return
		}
	}
	n := len(out) - at
	add := w.closeDelta(fr, t) + len(defKey) + len(f.Tag) + n
	if f.Group {
		add += len(f.EndTag)
	} else {
		add += wire.SizeVarint(uint64(n))
	}
	w.buf = out[:head]
	if w.over(add) {
		w.fail(ErrSizeExceeded, f, "")
		return
	}
	if fr.entry {
		entryPost(w, fr, t, defKey, 0, "")
	}
	w.commit(fr, t)
	if f.List {
		fr.count++
	}
	tagAt := len(w.buf)
	w.buf = append(w.buf, f.Tag...)
	if !f.Group {
		w.buf = wire.AppendVarint(w.buf, uint64(n))
	}
	k := len(w.buf)
	w.buf = w.buf[:k+n]
	copy(w.buf[k:], out[at:at+n])
	if f.Group {
		w.buf = append(w.buf, f.EndTag...)
	}
	if len(w.frames) == 1 {
		w.lastAt, w.lastN = tagAt, len(w.buf)-tagAt
	}
}

// failEmbed records the error of an embedded message's encoding, with the
// path continued from the field it fills.
func (w *Writer) failEmbed(f *layout.Field, err error) {
	var e *Error
	if !errors.As(err, &e) {
		w.fail(err, f, "")
		return
	}
	w.fail(e.Err, f, "")
	we := w.err.(*Error)
	if e.Field != "" {
		we.Field = e.Field
	}
	if e.Path != "" {
		we.Path += "." + e.Path
	}
	if e.Limit != 0 {
		we.Limit = e.Limit
	}
}

// Raw writes b, the wire encoding of a message of the field's type, to
// field num, a message or group field: tag, length and b for a message
// field, start tag, b and end tag for a group. b is not parsed: its
// validity, UTF-8 and required fields are the caller's to vouch for.
func (w *Writer) Raw(num protowire.Number, b []byte) {
	t, ok := w.prepare(num, maskMessage)
	if !ok {
		return
	}
	f := t.f
	if f.Map {
		w.fail(ErrKindMismatch, f, "a map field takes entries (Begin)")
		return
	}
	if w.depth >= w.maxDepth {
		w.fail(ErrDepthExceeded, f, "")
		return
	}
	fr := &w.frames[len(w.frames)-1]
	var defKey []byte
	if fr.entry {
		var ok bool
		if defKey, ok = entryPre(w, fr, t, 0, ""); !ok {
			return
		}
	}
	add := w.closeDelta(fr, t) + len(defKey) + len(f.Tag)
	if f.Group {
		add += len(f.EndTag)
	} else {
		add += wire.SizeVarint(uint64(len(b)))
	}
	if len(b) > w.maxSize-add || w.over(add+len(b)) {
		w.fail(ErrSizeExceeded, f, "")
		return
	}
	if fr.entry {
		entryPost(w, fr, t, defKey, 0, "")
	}
	w.commit(fr, t)
	if f.List {
		fr.count++
	}
	tagAt := len(w.buf)
	w.buf = append(w.buf, f.Tag...)
	if !f.Group {
		w.buf = wire.AppendVarint(w.buf, uint64(len(b)))
	}
	w.buf = append(w.buf, b...)
	if f.Group {
		w.buf = append(w.buf, f.EndTag...)
	}
	if len(w.frames) == 1 {
		w.lastAt, w.lastN = tagAt, len(w.buf)-tagAt
	}
}

// Unknown appends b to the innermost open message as unknown fields,
// verbatim, as proto.Marshal appends a message's unknown bytes: after every
// known field, so no field of this message may follow (more Unknown calls
// may). Map entries have no unknown fields.
func (w *Writer) Unknown(b []byte) {
	if w.err != nil {
		return
	}
	if w.state != stateOpen {
		w.failState()
		return
	}
	fr := &w.frames[len(w.frames)-1]
	if fr.entry {
		w.fail(ErrKindMismatch, w.via(len(w.frames)-1), "a map entry has no unknown fields")
		return
	}
	add := w.closeDelta(fr, target{})
	if len(b) > w.maxSize-add || w.over(add+len(b)) {
		w.fail(ErrSizeExceeded, nil, "")
		return
	}
	if fr.pack >= 0 {
		w.closePacked(fr)
	}
	fr.phase = phaseUnknown
	w.buf = append(w.buf, b...)
	w.setTop()
}

// Finish ends the message and returns its encoding, or the first error
// met since the last Reset. It checks that no Begin is left open and
// that the top message's required fields were written (unless
// AllowPartial), and closes an open packed record.
//
// The bytes alias the Writer's buffer and are overwritten after the next
// Reset (copy them to keep them); in ResetAppend mode they are the
// caller's buffer extended. On error Finish returns nil (in ResetAppend
// mode, the caller's buffer unchanged). After Finish, every call but
// Reset, ResetAppend, Err, Len and Stats fails with ErrFinished.
func (w *Writer) Finish() ([]byte, error) {
	if w.err == nil && w.state != stateOpen {
		w.failState()
	}
	if w.err == nil {
		if n := len(w.frames); n > 1 {
			w.fail(ErrNotEnded, w.via(n-1), itoa(int64(n-1))+" Begin without End")
		} else if fr := &w.frames[0]; w.requiredOK(fr) {
			if fr.pack >= 0 {
				if w.over(wire.SizeVarint(uint64(len(w.buf)-fr.pack)) - 1) {
					w.fail(ErrSizeExceeded, fr.current(), "")
				} else {
					w.closePacked(fr)
				}
			}
		}
	}
	if w.err != nil {
		if w.append {
			return w.buf[:w.base:w.base], w.err
		}
		return nil, w.err
	}
	w.state = stateFinished
	w.setFast(nil)
	return w.buf, nil
}
