package encoder

import (
	"errors"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/layout"
	"github.com/protolayout/protolayout/internal/wire"
)

// embedHeadroom is the room left before an embedded message's body while
// it is encoded: enough for closing a packed record (4), a map entry's
// zero key (5 + 10), the tag (5) and the length (5).
const embedHeadroom = 32

// Message writes m, encoded by this package's encoder (with the Writer's
// AllowPartial and what is left of its limits), to field num, a message
// or group field of m's type. m's descriptor must be the field's message
// descriptor, or one of the same full name whose fields have the same
// numbers, kinds, cardinality, packing, UTF-8 rule and oneofs, down
// through every message they hold (so a dynamicpb message may fill a
// field of a generated type and the other way round, but not a message of
// another version of the schema, whose bytes the field's type would read
// differently). A nil m, or an invalid one such as a typed nil, writes an
// empty message, as proto.Marshal writes a present message whose value is
// nil, unless the field's type has required fields (ErrRequiredNotSet,
// as End gives, without AllowPartial). As with encoder.Marshal, a
// generated m is encoded through its own fast path, which has no depth
// limit: only the depth of a dynamic m is checked against MaxDepth. The length is
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
	fr := &w.frames[len(w.frames)-1]
	want := childTab(fr, t).Layout
	if !absent(m) {
		if reason := embedMismatch(m.ProtoReflect().Descriptor(), want, t.idx >= 0); reason != "" {
			w.fail(ErrKindMismatch, f, reason)
			w.check()
			return
		}
	} else if want.Required && !w.opts.AllowPartial {
		// An empty message of a type with required fields: the decoder
		// would refuse it, as End refuses it.
		w.fail(ErrRequiredNotSet, &want.Fields[want.RequiredFields[0]], "the message is nil")
		w.check()
		return
	}
	if want.MessageSet {
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
		o := MarshalOptions{Deterministic: true, AllowPartial: w.opts.AllowPartial, MaxDepth: w.maxDepth - w.depth, MaxSize: room,
			Canonical: profileOf(fr.tab)}
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

// embedMismatch reports why a message of descriptor md cannot fill a
// field of message layout want ("" if it can): by identity when declared
// is set (want is the declared type of a field of the Writer's message,
// whose descriptor the Writer keeps alive, so that an identity check is
// sound; see layout.Layout.IsOf), else through the layout cache; or by a
// compatible layout.
func embedMismatch(md protoreflect.MessageDescriptor, want *layout.Layout, declared bool) string {
	if declared && want.IsOf(md) {
		return ""
	}
	got := layout.Of(md)
	if got == want {
		return ""
	}
	if got.FullName != want.FullName {
		return "message " + string(got.FullName) + ", field takes " + string(want.FullName)
	}
	if !compatible(got, want, map[[2]*layout.Layout]bool{}) {
		return "message " + string(got.FullName) + " of another version of the schema: its fields differ from the field's type"
	}
	return ""
}

// compatible reports whether messages of layout a encode as messages of
// layout b would, field for field, in every message they hold: the same
// fields (numbers, kinds, cardinality, packing, group encoding, UTF-8
// rule, presence, oneofs) in the same order. seen holds the pairs being
// compared, so that recursive schemas end.
func compatible(a, b *layout.Layout, seen map[[2]*layout.Layout]bool) bool {
	if a == b || seen[[2]*layout.Layout{a, b}] {
		return true
	}
	seen[[2]*layout.Layout{a, b}] = true
	if a.FullName != b.FullName || len(a.Fields) != len(b.Fields) || a.Regular != b.Regular ||
		len(a.Oneofs) != len(b.Oneofs) || a.MessageSet != b.MessageSet {
		return false
	}
	for i := range a.Fields {
		if !sameField(&a.Fields[i], &b.Fields[i], seen) {
			return false
		}
	}
	return true
}

func sameField(x, y *layout.Field, seen map[[2]*layout.Layout]bool) bool {
	if x.Number != y.Number || x.Kind != y.Kind || x.List != y.List || x.Map != y.Map || x.Packed != y.Packed ||
		x.Group != y.Group || x.ValidateUTF8 != y.ValidateUTF8 || x.Explicit != y.Explicit ||
		x.Required != y.Required || x.Oneof != y.Oneof {
		return false
	}
	if x.Map {
		return sameField(x.MapKey, y.MapKey, seen) && sameField(x.MapValue, y.MapValue, seen)
	}
	if xm, ym := x.Message(), y.Message(); xm != nil || ym != nil {
		return xm != nil && ym != nil && compatible(xm, ym, seen)
	}
	return true
}
