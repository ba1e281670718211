package encoder

import (
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/protolayout/protolayout/internal/fault"
	"github.com/protolayout/protolayout/internal/utf8x"
	"github.com/protolayout/protolayout/internal/wire"
)

// String writes s to field num, a string or bytes field. A string field
// whose schema validates UTF-8 fails with ErrInvalidUTF8 on invalid s.
func (w *Writer) String(num protowire.Number, s string) {
	writeLen(w, num, s)
	w.check()
}

// Bytes writes b to field num, a bytes or string field (validated as
// String validates). nil and empty b are the same value.
func (w *Writer) Bytes(num protowire.Number, b []byte) {
	writeLen(w, num, b)
	w.check()
}

// writeLen is String and Bytes. Its fast path (see next, in writer.go) tells
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
	if wf.Flags&wfUTF8 != 0 && !utf8x.ShortASCII(s) && !utf8x.ValidText(s) {
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
		k = wire.PutVarint(b, k, uint64(len(s)))
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

// putLen writes string or bytes value s (already checked) to target t.
func putLen[S string | []byte](w *Writer, t target, s S) {
	fr := &w.frames[len(w.frames)-1]
	f := t.f
	var defKey []byte
	if fr.entry {
		var ok bool
		if defKey, ok = entryPre(w, fr, t, 0, s); !ok {
			return
		}
	}
	add := w.closeDelta(fr, t) + len(defKey)
	skip := len(s) == 0 && implicitZero(fr, f)
	if !skip {
		add += len(f.Tag) + wire.SizeVarint(uint64(len(s)))
		if len(s) > w.maxSize-add {
			w.fail(ErrSizeExceeded, f, "")
			return
		}
		add += len(s)
	}
	if w.over(add) {
		w.fail(ErrSizeExceeded, f, "")
		return
	}
	if fr.entry {
		entryPost(w, fr, t, defKey, 0, s)
	}
	w.commit(fr, t)
	if f.List {
		fr.count++
	}
	if skip {
		return
	}
	w.makeRoom(add)
	w.buf = append(w.buf, f.Tag...)
	w.buf = wire.AppendVarint(w.buf, uint64(len(s)))
	w.buf = append(w.buf, s...)
}

// Raw writes b, the wire encoding of a message of the field's type, to
// field num, a message or group field: tag, length and b for a message
// field, start tag, b and end tag for a group. b is not parsed: its
// validity, UTF-8 and required fields are the caller's to vouch for.
func (w *Writer) Raw(num protowire.Number, b []byte) {
	t, ok := w.prepare(num, maskMessage)
	if !ok {
		w.check()
		return
	}
	f := t.f
	if f.Map {
		w.fail(ErrKindMismatch, f, "a map field takes entries (Begin)")
		w.check()
		return
	}
	if w.depth >= w.maxDepth {
		w.fail(ErrDepthExceeded, f, "")
		w.check()
		return
	}
	fr := &w.frames[len(w.frames)-1]
	var defKey []byte
	if fr.entry {
		var ok bool
		if defKey, ok = entryPre(w, fr, t, 0, ""); !ok {
			w.check()
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
		w.check()
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
	w.makeRoom(len(f.Tag) + maxVarintLen + len(b) + len(f.EndTag))
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
	w.check()
}

// Unknown appends b to the innermost open message as unknown fields,
// verbatim, as proto.Marshal appends a message's unknown bytes: after every
// known field, so no field of this message may follow (more Unknown calls
// may). Map entries have no unknown fields. Under the Signing profile
// (WriterOptions.Canonical), which refuses unknown fields, a non-empty b
// fails with ErrUnknownField.
func (w *Writer) Unknown(b []byte) {
	if w.err != nil {
		w.check()
		return
	}
	if w.state != stateOpen {
		w.failState()
		w.check()
		return
	}
	w.ensureBuf()
	fr := &w.frames[len(w.frames)-1]
	if fr.entry {
		w.fail(ErrKindMismatch, w.via(len(w.frames)-1), "a map entry has no unknown fields")
		w.check()
		return
	}
	if profileOf(fr.tab) == Signing && len(b) > 0 {
		detail, err := fault.Reason(fault.UnknownRefused)
		w.fail(err, nil, detail)
		w.check()
		return
	}
	add := w.closeDelta(fr, target{})
	if len(b) > w.maxSize-add || w.over(add+len(b)) {
		w.fail(ErrSizeExceeded, nil, "")
		w.check()
		return
	}
	if fr.pack >= 0 {
		w.closePacked(fr)
	}
	fr.phase = phaseUnknown
	w.makeRoom(len(b))
	w.buf = append(w.buf, b...)
	w.setTop()
	w.check()
}
