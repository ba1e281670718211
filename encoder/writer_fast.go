package encoder

import (
	"encoding/binary"
	"sync/atomic"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/layout"
)

// The Writer's fast paths. The common call (a field after the previous
// one, or another element of the current repeated field, in a message that
// is not a map entry, with no packed record open, far from the size limit)
// is checked and written from the field's wslot, with no call to prepare:
// the value methods (writer_values.go) start with it, and so do Begin and
// End. Whatever is not common, and every call that may fail, goes to the
// general path, which checks everything again and writes or fails: a fast
// path gives up before it changes anything, so it never decides an error.
// The checks it makes are the general path's for the cases it takes:
// field declared, kind, range, UTF-8, order (after the current field, or
// the current repeated field again), oneof not taken, depth and size
// limits (with fastRoom of margin). While a packed record is open the
// fast paths are off (w.fast is nil): the next call closes it on the
// general path.
//
// A fast path writes into the buffer's free capacity (fastCap) with
// whole-word stores and never grows the buffer: the general path does,
// with append. Its common course makes no call, or makes it last (the
// copy of a string): around a call the compiler saves every live register
// on the stack, and where any course needs that, the saving is often
// placed where every course pays it. Rare work (moving a body, sampling
// widths) is in helpers called from a branch of its own.

// wfield is the Writer's record of one field of a table, beside the
// layout's: its child table and learned width.
type wfield struct {
	child atomic.Pointer[wtable] // the table of the field's message, built on first use
	learn learnState             // the learned width of the field's length prefixes
}

// wslot is what the fast paths read of one field, 48 bytes in the table's
// dense index by field number, so that finding and checking a field is
// one load from one array.
type wslot struct {
	f   *layout.Field
	rec *wfield // the field's record in the table's fields
	// child is the table of the field's message (a map field's entry)
	// once built, when Begin's or the BeginEntry methods' fast paths may
	// open it (not a MessageSet, at most 64 fields); nil otherwise.
	child atomic.Pointer[wtable]
	fast  uint32 // kindBit(f.Kind), or 0 when every call takes the general path
	idx   int32  // index in the layout's fields
	// last is the last current field (wframe.pos) after which the field
	// may come: for a repeated field, the field itself (another element
	// follows its elements); for another field, the field before the
	// first member of its oneof, or before the field outside oneofs. The
	// members of a oneof are contiguous in the layout's fields, so a
	// frame whose current field comes before the first member has none
	// of them written yet.
	last  int32
	kind  protoreflect.Kind
	wt    protowire.Type
	flags uint8
	ntag  uint8 // len(f.Tag)
	// tag is f.Tag, little-endian, in the low ntag bytes: a whole word,
	// so that putTag writes the tag and zeros with one store (a uint32
	// would have the compiler store the zeros byte by byte).
	tag uint64
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

// wslot flags
const (
	wfImplicit uint8 = 1 << iota // a zero value is skipped (outside map entries)
	wfUTF8                       // strings are validated
	wf32                         // a 32-bit integer kind
	wfZigZag                     // sint32 or sint64: zigzag-encoded
)

func (wf *wslot) init(l *layout.Layout, i int) {
	f := &l.Fields[i]
	wf.f, wf.idx, wf.kind, wf.wt = f, int32(i), f.Kind, f.WireType
	switch {
	case f.List || f.Map:
		wf.last = int32(i) // never in a oneof
	case f.Oneof >= 0:
		wf.last = int32(l.Oneofs[f.Oneof].First) - 1
	default:
		wf.last = int32(i) - 1
	}
	entry := l.MapEntry
	// For a map field, kind (and so wf32 and wfZigZag below) is its
	// key's.
	kind := f.Kind
	if f.Map {
		kind = f.MapKey.Kind
	}
	// Packed and group fields, tags longer than 4 bytes and the keys of
	// map entries always take the general path; map fields take the
	// BeginEntry methods' fast paths only.
	switch {
	case f.Packed || f.Group || len(f.Tag) > 4 || entry && i == 0:
	case f.Map:
		wf.fast = mapFastBit(kind)
	default:
		wf.fast = kindBit(f.Kind)
	}
	if !f.Explicit && !f.List && !entry { // a map entry writes both its fields
		wf.flags |= wfImplicit
	}
	if f.ValidateUTF8 || f.Map && f.MapKey.ValidateUTF8 {
		wf.flags |= wfUTF8 // for a map field, its keys
	}
	if is32(kind) {
		wf.flags |= wf32
	}
	if kind == protoreflect.Sint32Kind || kind == protoreflect.Sint64Kind {
		wf.flags |= wfZigZag
	}
	if len(f.Tag) <= 4 {
		var t [4]byte
		wf.ntag = uint8(copy(t[:], f.Tag))
		wf.tag = uint64(binary.LittleEndian.Uint32(t[:]))
	}
}

// setTop points w.fast at the innermost frame when the fast paths may use
// it: no error, open, not a map entry, no packed record open, before
// unknown fields. It must run after every change of those.
func (w *Writer) setTop() {
	if w.err != nil || w.state != stateOpen || len(w.frames) == 0 {
		w.setFast(nil)
		return
	}
	if fr := &w.frames[len(w.frames)-1]; !fr.entry && fr.pack < 0 && fr.phase != phaseUnknown {
		w.setFast(fr)
	} else {
		w.setFast(nil)
	}
}

// setFast sets w.fast, and w.dense with it.
func (w *Writer) setFast(fr *wframe) {
	w.fast, w.dense = fr, nil
	if fr != nil {
		w.dense = fr.tab.dense
	}
}

// next returns the fast frame and the slot of field num if a call of the
// kinds in mask may take the fast path: the Writer is usable (w.dense is
// set), the field is declared, the kind fits, and it comes after the
// current field (outside a oneof already taken) or is another element of
// the current repeated field. It returns nils otherwise.
func (w *Writer) next(num protowire.Number, mask uint32) (*wframe, *wslot) {
	d := w.dense
	if i := uint(num); i < uint(len(d)) { // a negative num wraps above len
		wf, fr := &d[i], w.fast
		// fast is kbit, or 0 for a field that always takes the general
		// path. pos is the current regular field (-1 for none or an
		// extension, which all come first). One comparison, so that the
		// outcome does not hang on two branches.
		if wf.fast&mask != 0 && fr.pos <= int(wf.last) {
			return fr, wf
		}
	}
	return nil, nil
}

// commitFast is commit for a field accepted by next, and counts the
// element: count is 1 after a field starts, as the general path leaves it
// for a repeated field's first element (for a singular field count is not
// read).
func (fr *wframe) commitFast(wf *wslot) {
	i := int(wf.idx)
	if i == fr.pos {
		fr.count++ // another element
		return
	}
	// curExt is left stale (phaseFields says it is), and keyValid too:
	// only a map field reads it, and the BeginEntry fast paths, the ones
	// that take a map field here, set it, as the general path's commit
	// clears it.
	fr.count = 1
	fr.pos, fr.phase = i, phaseFields
	fr.setWritten(i)
}

// skipFast takes a zero value (0, false, an empty string) of field wf
// accepted by next when the field skips it (implicit presence, not
// repeated): the field is started and nothing is written, so no room is
// needed. It reports false, having changed nothing, for other fields.
func (fr *wframe) skipFast(wf *wslot) bool {
	if wf.flags&wfImplicit == 0 {
		return false
	}
	fr.commitFast(wf)
	return true
}

// fastRoom is the headroom a fast path asks for on top of a value's bytes:
// more than a tag, a length prefix and a varint together. Closer to the
// size limit, the general path decides.
const fastRoom = 32

// room reports whether n more bytes, plus fastRoom, keep the output under
// the size limit.
func (w *Writer) room(n int) bool {
	return len(w.buf)+n <= w.limit // n <= maxSize follows, as base+slack <= len(buf)
}

// addSlack changes slack by d, and limit with it.
func (w *Writer) addSlack(d int) {
	w.slack += d
	w.limit += d
}

// fastCap is the free capacity the buffer must have for a fast path
// that writes at most a tag, a varint and a length prefix: those are
// written with whole-word stores into the capacity, and the buffer never
// grows on a fast path (the general path appends, and grows it).
const fastCap = 24

// putTag writes the field's tag at b[k:], and zeros up to b[k+8], into
// the capacity of b; it returns the offset after the tag.
func putTag(b []byte, k int, wf *wslot) int {
	binary.LittleEndian.PutUint64(b[k:k+8], wf.tag)
	return k + int(wf.ntag)
}

// putVarint writes x as a varint at b[k:], into the capacity of b, and
// returns the offset after it.
func putVarint(b []byte, k int, x uint64) int {
	for x >= 0x80 {
		b[k] = byte(x) | 0x80
		x >>= 7
		k++
	}
	b[k] = byte(x)
	return k + 1
}

// fits reports whether a fast path may write a value of n bytes (plus a
// tag and length prefix) now: the output stays within the size limit
// (room), and the buffer has the capacity (fastCap) without growing.
func (w *Writer) fits(n int) bool {
	k := len(w.buf)
	return k <= w.limit-n && cap(w.buf)-k-n >= fastCap
}

// putWire writes scalar wire value x of wire type wt at b[k:], into the
// capacity of b, and returns the offset after it.
func putWire(b []byte, k int, wt protowire.Type, x uint64) int {
	switch wt {
	case protowire.Fixed32Type:
		binary.LittleEndian.PutUint32(b[k:k+4], uint32(x))
		return k + 4
	case protowire.Fixed64Type:
		binary.LittleEndian.PutUint64(b[k:k+8], x)
		return k + 8
	}
	return putVarint(b, k, x)
}

// putFast writes scalar wire value x to field wf accepted by next, once
// fits(0) holds. It skips a zero x of an implicit-presence field: the
// integer, bool and enum methods take theirs before (skipFast), but a
// float's zero is known only once converted (+0.0, or a value that rounds
// to it in a float field). Callers call it last, so that nothing is live
// across the call.
func (w *Writer) putFast(fr *wframe, wf *wslot, x uint64) {
	fr.commitFast(wf)
	if x == 0 && wf.flags&wfImplicit != 0 {
		return
	}
	b := w.buf
	k := len(b)
	b = b[:cap(b)]
	k = putWire(b, putTag(b, k, wf), wf.wt, x)
	w.buf = w.buf[:k] // a reslice of itself: only the length is stored
}
