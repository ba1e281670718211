package encoder

import (
	"math"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/layout"
	"github.com/protolayout/protolayout/internal/utf8x"
	"github.com/protolayout/protolayout/internal/wire"
)

// Field numbers of a map entry's key and value, for use inside
// Begin(mapField) ... End(), the key first (see Begin).
const (
	MapKey   protowire.Number = 1
	MapValue protowire.Number = 2
)

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
		w.check()
		return
	}
	child := wf.Child.Load()
	n := len(w.frames)
	same := int(wf.Idx) == fr.pos // another entry of the current map
	if child == nil || n == cap(w.frames) || w.depth >= w.fastDepth || !w.fits(len(key)) ||
		same && fr.keyValid && key <= string(fr.keyS) ||
		wf.Flags&wfUTF8 != 0 && !utf8x.ShortASCII(key) && !utf8x.ValidString(key) {
		w.beginEntryStringSlow(num, key)
		w.check()
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
		k = wire.PutVarint(b, k, uint64(len(key)))
	}
	w.buf = w.buf[:k+len(key)]
	copy(b[k:], key)
	openEntry(w.pushFast(fr, child, n, start, r, true, true))
	w.depth++
	// The key, for the order check of the next entry (entryPost).
	fr.keyValid, fr.keyU = true, 0
	fr.keyS = append(fr.keyS[:0], key...)
	w.check()
}

// openEntry marks map entry frame c, just pushed by a BeginEntry fast
// path, as holding its key: the fast paths may write its value (field 2
// comes after the current field 1), and End takes its fast path once the
// value is written (its slowEnd is set: the general path writes a
// missing value).
func openEntry(c *wframe) {
	c.written, c.zeroKey = 1, false
	c.pos, c.phase, c.count = 0, phaseFields, 0
}

// beginEntryFast is the fast path of BeginEntryInt, BeginEntryUint and
// BeginEntryBool, called by next's accepting the map field: for a key of
// word x (fitting the key's kind) and order ord (keyOrd), it
// begins the entry and writes the key, or reports false, having changed
// nothing, when the general path must decide.
func (w *Writer) beginEntryFast(fr *wframe, wf *wslot, x, ord uint64) bool {
	child := wf.Child.Load()
	n := len(w.frames)
	if child == nil || n == cap(w.frames) || w.depth >= w.fastDepth || !w.fits(0) ||
		int(wf.Idx) == fr.pos && fr.keyValid && ord <= fr.keyU {
		return false
	}
	fr.commitFast(wf)
	b := w.buf[:cap(w.buf)]
	start, r := w.putHead(b, len(w.buf), wf)
	kf := &child.Layout.Fields[0]
	k := start
	b[k] = kf.Tag[0] // field 1: a one-byte tag
	k = wire.PutWord(b, k+1, kf.Elem, x)
	w.buf = w.buf[:k]
	openEntry(w.pushFast(fr, child, n, start, r, true, true))
	w.depth++
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
	if fr, wf := w.next(num, fastMapSigned); wf != nil && (wf.Flags&wf32 == 0 || key == int64(int32(key))) {
		// The order of a signed key of any kind is keyOrd's.
		if w.beginEntryFast(fr, wf, uint64(key), wire.OrderSigned.Rank(uint64(key))) {
			w.check()
			return
		}
	}
	w.beginEntryIntSlow(num, key)
	w.check()
}

// beginEntryIntSlow is the general path of BeginEntryInt.
func (w *Writer) beginEntryIntSlow(num protowire.Number, key int64) {
	t, kf, ok := w.prepareEntry(num, maskSigned)
	if !ok {
		return
	}
	x, ok := signedWord(kf.Kind, key)
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
	if fr, wf := w.next(num, fastMapUnsigned); wf != nil && (wf.Flags&wf32 == 0 || key <= math.MaxUint32) &&
		w.beginEntryFast(fr, wf, key, key) {
		w.check()
		return
	}
	w.beginEntryUintSlow(num, key)
	w.check()
}

// beginEntryUintSlow is the general path of BeginEntryUint.
func (w *Writer) beginEntryUintSlow(num protowire.Number, key uint64) {
	t, kf, ok := w.prepareEntry(num, maskUnsigned)
	if !ok {
		return
	}
	x, ok := unsignedWord(kf.Kind, key)
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
		x, _ := boolWord(protoreflect.BoolKind, key)
		if w.beginEntryFast(fr, wf, x, x) {
			w.check()
			return
		}
	}
	w.beginEntryBoolSlow(num, key)
	w.check()
}

// beginEntryBoolSlow is the general path of BeginEntryBool.
func (w *Writer) beginEntryBoolSlow(num protowire.Number, key bool) {
	t, _, ok := w.prepareEntry(num, maskBool)
	if !ok {
		return
	}
	x, _ := boolWord(protoreflect.BoolKind, key)
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
	kf := &childTab(&w.frames[len(w.frames)-1], t).Layout.Fields[0]
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

// entryOrder explains the failure of a key written after its entry's value.
const entryOrder = "a map entry's key (field 1) comes before its value (field 2); " +
	"the value came first, so the entry already holds the zero key"

// entryPre checks a call of target t in map entry frame fr: a key (of
// order ord, or string s) must come after the previous entry's key of the
// same map; a value written before any key brings the zero key, which
// must too, and is returned to be written first.
func entryPre[S string | []byte](w *Writer, fr *wframe, t target, ord uint64, s S) ([]byte, bool) {
	var defKey []byte
	if t.idx != 0 {
		if t.idx != 1 || fr.isWritten(0) {
			return nil, true
		}
		defKey, ord, s = fr.tab.DefKey, fr.tab.ZeroKey, s[:0]
	}
	p := &w.frames[len(w.frames)-2]
	if !p.keyValid {
		return defKey, true
	}
	var c int
	if fr.tab.Layout.Fields[0].Kind == protoreflect.StringKind {
		c = cmpBytes(s, p.keyS)
	} else if ord > p.keyU {
		c = 1
	} else if ord < p.keyU {
		c = -1
	}
	if c <= 0 {
		detail := "key below the previous entry's key"
		if c == 0 {
			detail = "key equal to the previous entry's key"
		}
		w.fail(ErrMapKeyOrder, w.via(len(w.frames)-1), detail)
		return nil, false
	}
	return defKey, true
}

// entryPost records the key checked by entryPre, writing the zero key
// first if entryPre returned it.
func entryPost[S string | []byte](w *Writer, fr *wframe, t target, defKey []byte, ord uint64, s S) {
	if t.idx != 0 {
		if defKey == nil {
			return
		}
		w.buf = append(w.buf, defKey...)
		fr.setWritten(0)
		fr.zeroKey = true
		fr.pos, fr.phase = 0, phaseFields
		ord, s = fr.tab.ZeroKey, s[:0]
	}
	p := &w.frames[len(w.frames)-2]
	p.keyValid = true
	p.keyU = ord
	p.keyS = append(p.keyS[:0], s...)
}

// keyOrd maps word x of a map key of kind k to a number whose unsigned
// order is the key order proto.Marshal sorts by (wire.KeyOrder).
func keyOrd(k protoreflect.Kind, x uint64) uint64 {
	return wire.KeyOrderOf(k).Rank(x)
}

// cmpBytes compares a and b bytewise, as Go compares strings.
func cmpBytes[S string | []byte](a S, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	switch {
	case len(a) < len(b):
		return -1
	case len(a) > len(b):
		return 1
	}
	return 0
}

// The fast bits of map fields, by the class of their keys: bits no kind
// has, asked for by the BeginEntry methods only.
const (
	fastMapString   = 1 << 31
	fastMapSigned   = 1 << 30
	fastMapUnsigned = 1 << 29
	fastMapBool     = 1 << 28
)

// mapFastBit returns the fast bit of a map field whose keys are of kind
// k (every kind a map key may have has one).
func mapFastBit(k protoreflect.Kind) uint32 {
	switch kb := kindBit(k); {
	case kb&maskString != 0:
		return fastMapString
	case kb&maskSigned != 0:
		return fastMapSigned
	case kb&maskUnsigned != 0:
		return fastMapUnsigned
	case kb&maskBool != 0:
		return fastMapBool
	}
	return 0
}
