package encoder

import (
	"errors"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/protolayout/protolayout/internal/layout"
	"github.com/protolayout/protolayout/internal/wire"
)

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
		w.check()
		return
	}
	f := t.f
	if f.Map {
		w.fail(ErrKindMismatch, f, "a map field takes entries (Begin)")
		w.check()
		return
	}
	if !absent(m) {
		if got, want := m.ProtoReflect().Descriptor().FullName(), f.Message().FullName; got != want {
			w.fail(ErrKindMismatch, f, "message "+string(got)+", field takes "+string(want))
			w.check()
			return
		}
	}
	fr := &w.frames[len(w.frames)-1]
	if childTab(fr, t).lay.MessageSet {
		w.fail(ErrMessageSet, f, "")
		w.check()
		return
	}
	if w.depth >= w.maxDepth {
		w.fail(ErrDepthExceeded, f, "")
		w.check()
		return
	}
	var defKey []byte
	if fr.entry {
		var ok bool
		if defKey, ok = entryPre(w, fr, t, 0, ""); !ok {
			w.check()
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
			w.check()
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
	w.check()
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
