package encoder

import (
	"encoding/binary"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/protolayout/protolayout/internal/fault"
	"github.com/protolayout/protolayout/internal/layout"
	"github.com/protolayout/protolayout/internal/wire"
)

// The Writer is filed by operation, each operation's fast path beside its
// general path: this file holds the Writer and its frames, its life cycle
// (NewWriter, Reset, Finish), the general path's checks (prepare, commit)
// and what the fast paths share (next, commitFast, fits); writer_scalar.go
// the integers, floats, bools and enums; writer_bytes.go strings, bytes,
// Raw and Unknown; writer_nested.go Begin and End and the reservation of
// lengths; writer_map.go the BeginEntry methods and the checks of map
// entries; writer_slice.go the slice methods and packed records;
// writer_embed.go Message; writer_names.go Number and Lookup, which
// resolve field names; writer_table.go the tables shared by every
// Writer (per layout: fast-path slots, child tables, learned widths);
// writer_errors.go the errors.

// WriterOptions configures a Writer. The zero value checks required
// fields and applies the default limits. Use keyed literals.
type WriterOptions struct {
	_ noUnkeyedLiterals

	// AllowPartial skips the check that required fields are written.
	AllowPartial bool

	// MaxDepth is the recursion limit, counted as proto.Unmarshal counts
	// it: the top message is level 1, and every nested message, group
	// and map entry one level more. Begin, BeginEntry or Message past
	// level MaxDepth fails with ErrDepthExceeded. 0 means DefaultMaxDepth
	// (10,000, proto.Unmarshal's default), so that whatever a Writer
	// writes with default options decodes with proto.Unmarshal's
	// defaults.
	MaxDepth int

	// MaxSize is the largest encoding allowed; 0, or anything above
	// 2 GiB - 1, means DefaultMaxSize.
	MaxSize int

	// Lengths chooses how nested lengths are reserved; the zero value is
	// LengthLearned.
	Lengths LengthStrategy

	// Canonical, when not zero, makes the Writer write what
	// MarshalOptions.Canonical writes under that profile, the one
	// encoding of the message for bytes that are signed or hashed (see
	// Profile, and docs/semantics.md#canonical), and check that order
	// instead of proto.Marshal's: in every message, fields in strictly
	// ascending field number, extensions and oneof members at their own
	// numbers among the other fields, then unknown fields (ErrOutOfOrder
	// names the order expected). The Writer's other rules are canonical
	// already: map entries in ascending key order, packedness as
	// declared, nothing written for an implicit-presence field at its
	// default. Under Signing (Cosmos SDK's ADR-027), besides, Unknown
	// with unknown fields to write fails with ErrUnknownField, and the
	// first entry of a map field (Begin, BeginEntryString and the like)
	// with ErrMapField (an empty map writes nothing, so it passes); every
	// repeated field of a scalar numeric kind is written packed whatever
	// it declares, its elements, one by one or in slices, in one packed
	// record. Message encodes under the same profile; Raw's bytes are the
	// caller's to vouch for. Any value other than 0 and Signing means
	// Canonical.
	Canonical Profile

	// Extensions resolves extension field numbers of extendable messages
	// (protoregistry.GlobalTypes, a dynamicpb.Types, ...). With nil, only
	// declared fields can be written. Each extension number is resolved
	// once per Writer.
	Extensions protoregistry.ExtensionTypeResolver
}

// Writer encodes one message of a given descriptor from plain values, fed
// field by field, without building a message object: the schema-checked,
// allocation-free way to produce protobuf bytes from a JSON document, a
// database row or a log line.
//
//	w := encoder.NewWriter(md)
//	w.String(1, "checkout")             // field 1, a string
//	w.Begin(2)                          // field 2, a nested message
//	w.Int64(1, -7)
//	w.End()
//	b, err := w.Finish()
//
// Fields are addressed by number (Number and Lookup resolve a name, or
// a dotted path such as "lines.text" for a nested message's field, once,
// up front; a name no field has is an error that names it). The field's
// kind decides the wire form: Int64 writes a varint to an int64 field, a
// zigzag varint to sint64 and 8 bytes to sfixed64. Repeated fields take
// their elements one call at a time, consecutively, or a whole slice
// in one call (Int64s and the like); packed fields are packed into one
// record, closed when another field starts or the message ends. Nested
// messages and groups are written between Begin and End on the same
// Writer; a map entry is Begin(mapField), its key (field MapKey), then its
// value (field MapValue, Begin for a message value), End, in that order
// (see Begin), or BeginEntryString and the like, which write the key with
// the Begin. Entries of one map come in ascending key order. Message
// embeds a proto.Message encoded by this package's encoder, Raw embeds a
// pre-encoded message, Unknown appends unknown fields (last).
//
// # Output
//
// The bytes equal proto.MarshalOptions{Deterministic: true}.Marshal of the
// message the same values describe (MarshalOptions{Canonical: p}.Marshal
// under a canonical profile p, see WriterOptions.Canonical):
// implicit-presence fields (proto3 without optional, editions IMPLICIT)
// skip their zero value, where for floats only +0.0 is zero (-0.0 and NaN
// are written); explicit-presence fields, oneof members and repeated
// elements are written whatever their value; a map entry always holds its
// key and its value (End writes the zero key or value, or the enum's
// default, for the one not written); an empty packed field writes
// nothing; Begin then End writes an empty message.
//
// # Checks
//
// Every call is checked, always: the field exists; the method fits the
// field's kind (ErrKindMismatch) and the value its range (ErrOutOfRange);
// fields come in proto.Marshal's order (extensions by ascending number,
// then fields outside real oneofs by ascending number, then the one member
// of each oneof, oneofs in declaration order, then unknown fields;
// ErrOutOfOrder names the order expected); a singular field once
// (ErrDuplicateField); a repeated field's elements consecutive
// (ErrNotConsecutive); one member per oneof (ErrOneofConflict); map keys
// ascending and unique (ErrMapKeyOrder); valid UTF-8 where the schema asks
// (ErrInvalidUTF8); required fields written by End and Finish
// (ErrRequiredNotSet, unless AllowPartial); depth and size limits
// (ErrDepthExceeded, ErrSizeExceeded); End without Begin, Finish with open
// messages, use of a zero Writer or after Finish.
//
// With WriterOptions.Canonical the order is the canonical one instead:
// fields in strictly ascending field number, extensions and oneof
// members at their numbers among the other fields, then unknown fields
// (ErrOutOfOrder); the bytes are MarshalOptions.Canonical's. Under the
// Signing profile, unknown fields fail too (ErrUnknownField), and so do
// map entries (ErrMapField).
//
// The first failure is kept, as bufio.Writer keeps its first error: the
// failing call writes nothing and every later call does nothing until
// Reset. Err reports it at any time and Finish returns it; it is an *Error
// naming the field and its path, and errors.Is(err, proto.Error) holds.
//
// # Lengths
//
// The length of a nested message is reserved when Begin writes its tag and
// written in place by End; when the length needs another width than was
// reserved, the body moves once. LengthStrategy chooses the reservation;
// Stats counts the moves. Message, Raw and whole-slice packed calls know
// their length and write it exactly. Parts nested more than 16 levels
// deep reserve the widest length prefix instead, and leave what their
// length does not use as a gap that the first part of the top 16 levels
// to end removes in one pass: otherwise a deep chain whose widths were
// guessed too small would move its bytes once per level, quadratic in
// depth. So the bytes a Writer moves stay under 17 times its output
// whatever the depth, and messages less deep than that are written as
// before.
//
// # Allocation and concurrency
//
// A Writer reused with Reset allocates nothing per message in the steady
// state (its buffer and frame stack keep their capacity; the first use of
// an extension number, and the first use of each message type by any
// Writer, allocate once). A Writer belongs to one goroutine at a time;
// the layouts and learned lengths behind it are shared and safe for
// concurrent use. Unlike an Encoder, a Writer does not detect being used
// by two goroutines at once: its fast calls take a few nanoseconds, and an
// atomic check on each would double their cost. Shared without
// synchronization, it writes bytes that mix both goroutines' calls, or
// panics; the race detector reports it.
type Writer struct {
	root     *wtable
	opts     WriterOptions
	maxDepth int // WriterOptions.MaxDepth - 1: the largest depth allowed
	// fastDepth is min(maxDepth, deferDepth): below it the fast paths may
	// open a frame.
	fastDepth int
	maxSize   int
	// gapList records the gaps deferred parts left in the buffer, in the
	// order they closed (see deferDepth).
	gapList []gap

	buf    []byte
	base   int  // len(buf) when the message started
	append bool // buf belongs to the caller (ResetAppend)
	// caller is the buffer ResetAppend was given, as it was given (nil
	// otherwise): what Finish returns on error.
	caller []byte

	frames []wframe
	// fast is the innermost frame when the fast paths may write to it
	// (see setTop), else nil: read first by next.
	fast  *wframe
	depth int // open frames below the root, map entries included (at most maxDepth)
	// slack is the sum over open length-prefixed parts of (reserved - 1):
	// len(buf)-base-slack is the smallest size the output can still have.
	// Change it with addSlack, which keeps limit.
	slack int
	// limit is base+slack+maxSize-fastRoom: a fast path writes while
	// len(buf)+n stays within it (see room).
	limit int

	state  uint8
	err    error
	exts   map[extKey]*extInfo
	stats  WriterStats
	lastAt int // offset of the last finished top-level item, or -1
	lastN  int
	tick   uint32 // counts learned bodies, for sampling
}

// WriterStats counts the work of one message, since the last Reset.
type WriterStats struct {
	// Moves is how many bodies (nested messages, map entries, packed
	// records) moved because their length needed another width than was
	// reserved, and how many times the gaps of deep parts were removed
	// (see Lengths in the Writer's documentation).
	Moves int
	// MovedBytes is the total size of the bodies moved.
	MovedBytes int
}

const (
	stateZero uint8 = iota
	stateOpen
	stateFinished
)

// frame phases
const (
	// phaseExt: no field yet, or an extension is current. In
	// proto.Marshal's order extensions come first; under a canonical
	// profile the phase returns to phaseExt whenever an extension is
	// written among the fields.
	phaseExt uint8 = iota
	phaseFields
	phaseUnknown
)

// posExt is a frame's pos while an extension is its current field under
// a canonical profile: no slot's last reaches it (see next), so every
// call takes the general path, which compares field numbers, until a
// declared field is current again. In proto.Marshal's order extensions
// come first, and pos is -1 among them, which lets any field follow.
const posExt = math.MaxInt32

type extKey struct {
	t   *wtable
	num protowire.Number
}

// wframe is one message (or map entry) being written. Its first 64
// bytes are what Begin's fast path writes and the fast paths read; the
// rest is written only by the general path. What a frame could repeat of
// its parent is not kept: the field that opened frame i is the current
// field of frame i-1 (via), its element index that field's count minus
// one, its tag sits just before the reserved length prefix, and its
// learned width is that field's (learnOf).
type wframe struct {
	tab *wtable
	// parent is the frame below (nil for the root), kept in step with
	// the stack's array, which moves only when push grows it.
	parent *wframe
	start  int // offset of the body in buf
	// pos is the index in tab.lay.Fields of the current field when phase
	// is phaseFields (the last regular field started), else -1, or posExt
	// while an extension is current under a canonical profile.
	pos   int
	count int // elements of the current field written
	pack  int // body offset of the open packed record of the current field, or -1

	// bit i of written, then of writtenHi[(i-64)/64]: field i of
	// tab.lay.Fields started
	written uint64
	width   uint8 // bytes reserved for the length prefix (0: root or group)
	phase   uint8
	entry   bool // a map entry
	// slowEnd: End takes the general path (the root, a group, a map
	// entry, a message in an entry begun on the general path, or
	// required fields to check); it does too while a packed record is
	// open (w.fast is nil then). A frame End's fast path closes has a
	// parent the fast paths may use. A map entry begun by a BeginEntry
	// fast path returns to End's fast path once its value is written.
	slowEnd bool
	// ext is the number of the last extension started in phaseExt, or 0
	// (none: no field is current yet).
	ext protowire.Number

	// The rest is read and written by the general path only.
	// gaps is the bytes left in the body by closed deeper parts (see
	// deferDepth), still to be removed; End's fast path leaves such a
	// frame to endRare.
	gaps      int
	curExt    *extInfo // the current field's record when it is an extension (phaseExt, ext != 0); stale otherwise
	packWidth int
	packLearn *learnState
	writtenHi []uint64
	keyValid  bool // keyU or keyS holds the last key of the current field, a map
	// zeroKey: the frame is a map entry whose zero key was written for
	// a value that came before any key (entryPost); push and openEntry
	// clear it.
	zeroKey bool
	// the last key of the map field cur, for the order check
	keyU uint64 // numeric keys, ordered as unsigned (signed ones offset)
	keyS []byte // string keys
}

// current returns the frame's current field, the last one started, or
// nil (none yet, or unknown fields written).
func (fr *wframe) current() *layout.Field {
	switch fr.phase {
	case phaseFields:
		return &fr.tab.Layout.Fields[fr.pos]
	case phaseExt:
		if fr.ext != 0 {
			return fr.curExt.F
		}
	}
	return nil
}

// curIndex returns the index of the current field in tab.lay.Fields, or
// -1 for an extension (or none).
func (fr *wframe) curIndex() int {
	if fr.phase == phaseFields {
		return fr.pos
	}
	return -1
}

// via returns the field that opened frame i (i >= 1).
func (w *Writer) via(i int) *layout.Field { return w.frames[i-1].current() }

// index returns frame i's element index within its field (i >= 1), or -1
// for a singular field.
func (w *Writer) index(i int) int {
	p := &w.frames[i-1]
	if f := p.current(); f.List || f.Map {
		return p.count - 1
	}
	return -1
}

// learnOf returns the learned-width record of the field that opened frame
// i (i >= 1).
func (w *Writer) learnOf(i int) *learnState {
	p := &w.frames[i-1]
	return learnFor(p, target{idx: p.curIndex(), x: p.curExt})
}

// open sets what a frame's users read before they write it, for a message
// of table t whose body starts at offset start after a length prefix of
// width bytes: curExt, count and keyValid are read only once a field is
// current, and set by commit; packWidth and packLearn only while a packed
// record is open; written and writtenHi are the pusher's.
func (fr *wframe) open(t *wtable, start, width int, entry, slowEnd bool) {
	fr.tab, fr.start, fr.width, fr.entry, fr.slowEnd = t, start, uint8(width), entry, slowEnd
	fr.phase, fr.pos, fr.ext, fr.pack = phaseExt, -1, 0, -1
}

// checksRequired reports whether End and Finish check t's required fields.
func (w *Writer) checksRequired(t *wtable) bool {
	return t.HasRequired && !w.opts.AllowPartial
}

// tagAt returns the offset in buf of the tag of frame i (i >= 1); a move
// of the body, which comes after the tag and the length, leaves it
// where it is.
func (w *Writer) tagAt(i int) int {
	fr := &w.frames[i]
	return fr.start - int(fr.width) - len(w.via(i).Tag)
}

func (fr *wframe) isWritten(i int) bool {
	if i < 64 {
		return fr.written&(1<<uint(i)) != 0
	}
	return fr.writtenHi[(i-64)>>6]&(1<<(uint(i)&63)) != 0
}

func (fr *wframe) setWritten(i int) {
	if i < 64 {
		fr.written |= 1 << (uint(i) & 63) // the mask spares the compiler a shift-count check
		return
	}
	fr.writtenHi[(i-64)>>6] |= 1 << (uint(i) & 63)
}

// NewWriter returns a Writer for messages of type md, ready to write the
// first message. At most one WriterOptions may be given; without one the
// defaults apply. The Writer's own buffer is allocated by the first call
// that writes to it, so a Writer used only with ResetAppend has none.
func NewWriter(md protoreflect.MessageDescriptor, opts ...WriterOptions) *Writer {
	w := new(Writer)
	if len(opts) > 0 {
		w.opts = opts[len(opts)-1]
	}
	w.maxDepth = w.opts.MaxDepth
	if w.maxDepth <= 0 {
		w.maxDepth = DefaultMaxDepth
	}
	w.maxDepth-- // the deepest frame below the top message, which is level 1
	w.fastDepth = min(w.maxDepth, deferDepth)
	w.maxSize = w.opts.MaxSize
	if w.maxSize <= 0 || w.maxSize > DefaultMaxSize {
		w.maxSize = DefaultMaxSize
	}
	if md != nil {
		switch p := w.opts.Canonical; p {
		case 0:
			w.root = tableOf(layout.Of(md))
		case Signing:
			w.root = tableFor(layout.Of(md), p)
		default:
			w.root = tableFor(layout.Of(md), Canonical) // as MarshalOptions takes it
		}
	}
	w.Reset()
	return w
}

// Reset discards the message being written and its error, and starts a new
// message in the Writer's own buffer. The bytes returned by an earlier
// Finish are overwritten by the next message.
func (w *Writer) Reset() {
	w.reset(w.bufStart(), 0, false)
	w.check()
}

// bufStart returns the Writer's own buffer, emptied, or nil when it has
// none yet (or had the caller's): the buffer is allocated by the first
// call that writes (see ensureBuf), so that a Writer used only with
// ResetAppend never allocates one.
func (w *Writer) bufStart() []byte {
	if w.append {
		return nil
	}
	return w.buf[:0]
}

// minBuffer is the smallest buffer a Writer writes its own messages into,
// so that the fast paths, which write only into the buffer's free
// capacity, serve the first calls of a new Writer too.
const minBuffer = 256

// ensureBuf gives a Writer that has no buffer (its own, not yet
// allocated, or an empty one from ResetAppend) one of minBuffer bytes. The
// fast paths need no such check: with no capacity they fail fits and leave
// the call to the general path, whose entry points (prepare, Unknown) call
// ensureBuf.
func (w *Writer) ensureBuf() {
	if cap(w.buf) == 0 {
		w.buf = make([]byte, 0, minBuffer)
	}
}

// ResetAppend is Reset, with the next message appended to b: Finish
// returns b extended, and never changes b[:len(b)]. On error Finish
// returns b itself, as it was given (the same array, length and
// capacity); what the Writer wrote into its spare capacity before failing
// stays there. The Writer writes into b's spare capacity and grows b, as
// append does, when it runs out; calls are fastest with some capacity to
// spare (a few dozen bytes beyond each value).
func (w *Writer) ResetAppend(b []byte) {
	w.reset(b, len(b), true)
	w.check()
}

func (w *Writer) reset(b []byte, base int, appendMode bool) {
	w.buf, w.base, w.append = b, base, appendMode
	w.caller = nil
	if appendMode {
		w.caller = b
	}
	w.err = nil
	w.slack = 0
	w.limit = base + w.maxSize - fastRoom
	w.depth = 0
	w.stats = WriterStats{}
	w.lastAt, w.lastN = -1, 0
	w.gapList = w.gapList[:0]
	if cap(w.gapList) > maxRetainedFrames {
		w.gapList = nil
	}
	for i := range w.frames {
		fr := &w.frames[i]
		fr.tab, fr.curExt, fr.packLearn = nil, nil, nil
	}
	if cap(w.frames) > maxRetainedFrames {
		w.frames = nil
	}
	w.frames = w.frames[:0]
	if w.root == nil {
		w.state = stateZero
		return
	}
	w.state = stateOpen
	w.push(w.root, 0, false)
	if w.root.Layout.MessageSet {
		w.fail(ErrMessageSet, nil, "")
	}
	w.setTop()
}

// maxRetainedFrames bounds the frame stack a Writer keeps between
// messages.
const maxRetainedFrames = 64

// push opens a frame for a message of table t, whose body starts at the
// end of buf, after a length prefix of width bytes (0: the root or a
// group).
func (w *Writer) push(t *wtable, width int, entry bool) {
	n := len(w.frames)
	if n < cap(w.frames) {
		w.frames = w.frames[:n+1]
	} else {
		w.frames = append(w.frames, wframe{})
		for i := 1; i < n; i++ { // the array moved
			w.frames[i].parent = &w.frames[i-1]
		}
	}
	fr := &w.frames[n]
	fr.parent = nil
	inEntry := false
	if n > 0 {
		fr.parent = &w.frames[n-1]
		inEntry = fr.parent.entry
	}
	fr.written = 0
	fr.zeroKey = false
	if t.Wide {
		words := (len(t.Fields) - 1) >> 6 // beyond the first 64 fields
		if cap(fr.writtenHi) < words {
			fr.writtenHi = make([]uint64, words)
		} else {
			fr.writtenHi = fr.writtenHi[:words]
			clear(fr.writtenHi)
		}
	}
	fr.open(t, len(w.buf), width, entry, width == 0 || entry || inEntry || w.checksRequired(t))
	// push runs only while the Writer is open and without error.
	if entry {
		w.setFast(nil)
	} else {
		w.setFast(fr)
	}
}

// Err returns the first error met since the last Reset, or nil.
func (w *Writer) Err() error {
	w.check()
	return w.err
}

// Len returns how many bytes the Writer has written for the message so
// far, reserved length prefixes included.
func (w *Writer) Len() int {
	w.check()
	return len(w.buf) - w.base
}

// Depth returns the nesting depth of the innermost open message: 0 for the
// top message (map entries count as a level here).
func (w *Writer) Depth() int {
	w.check()
	return max(len(w.frames)-1, 0)
}

// Stats returns the moves made for the message so far.
func (w *Writer) Stats() WriterStats {
	w.check()
	return w.stats
}

// LastItem returns the byte range of the last item finished at the top
// level of the message (a nested message or group closed by End, a map
// entry, or a Message or Raw embed): its offset in the bytes Finish
// returns (relative to the start of this message in ResetAppend mode) and
// its length, tag and length prefix included. Top-level items never move
// once finished, so the range stays valid. It returns (-1, 0) before the
// first such item.
func (w *Writer) LastItem() (offset, length int) {
	w.check()
	if w.lastAt < 0 {
		return -1, 0
	}
	return w.lastAt - w.base, w.lastN
}

// LastItemBytes returns the bytes of LastItem, aliasing the Writer's
// buffer: they are valid until the next call. It returns nil before the
// first item.
func (w *Writer) LastItemBytes() []byte {
	w.check()
	if w.lastAt < 0 {
		return nil
	}
	return w.buf[w.lastAt : w.lastAt+w.lastN : w.lastAt+w.lastN]
}

// Finish ends the message and returns its encoding, or the first error
// met since the last Reset. It checks that no Begin is left open and
// that the top message's required fields were written (unless
// AllowPartial), and closes an open packed record.
//
// The bytes alias the Writer's buffer and are overwritten after the next
// Reset (copy them to keep them); in ResetAppend mode they are the
// caller's buffer extended. On error Finish returns nil, and in
// ResetAppend mode the very slice ResetAppend was given (its array, length
// and capacity), so that buf, err = w.Finish() keeps the caller's buffer
// and its contents. After Finish, every call but Reset, ResetAppend, Err,
// Len and Stats fails with ErrFinished.
func (w *Writer) Finish() ([]byte, error) {
	if w.err == nil && w.state != stateOpen {
		w.failState()
	}
	if w.err == nil {
		if n := len(w.frames); n > 1 {
			w.failOpen(ErrNotEnded, itoa(int64(n-1))+" Begin without End")
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
		w.check()
		return w.caller, w.err // nil unless in ResetAppend mode
	}
	w.state = stateFinished
	w.setFast(nil)
	w.check()
	if w.buf == nil && !w.append {
		return emptyBytes[:], nil // an empty message, before the buffer exists
	}
	return w.buf, nil
}

// requiredOK checks that the required fields of frame fr were written.
func (w *Writer) requiredOK(fr *wframe) bool {
	if w.opts.AllowPartial {
		return true
	}
	for _, i := range fr.tab.Layout.RequiredFields {
		if !fr.isWritten(int(i)) {
			w.fail(ErrRequiredNotSet, &fr.tab.Layout.Fields[i], "")
			return false
		}
	}
	return true
}

// failState records the error of a call made in the wrong state.
func (w *Writer) failState() {
	if w.state == stateZero {
		w.err = &Error{Err: ErrNotStarted}
		w.setFast(nil)
		return
	}
	w.fail(ErrFinished, nil, "")
}

// target is a field a call writes to, once checked.
type target struct {
	f    *layout.Field
	idx  int      // index in the frame's fields, or -1 for an extension
	x    *extInfo // the extension's record
	same bool     // the frame's current field again (another element)
}

// prepare checks that field num of the innermost message may take a value
// of one of the kinds in mask now: the Writer is usable, the field exists,
// the kind fits, the order holds. It changes nothing.
func (w *Writer) prepare(num protowire.Number, mask uint32) (target, bool) {
	if w.err != nil {
		return target{}, false
	}
	if w.state != stateOpen {
		w.failState()
		return target{}, false
	}
	w.ensureBuf()
	fr := &w.frames[len(w.frames)-1]
	if f := fr.current(); f != nil && num == f.Number {
		if kindBit(f.Kind)&mask == 0 {
			w.failKind(f, mask)
			return target{}, false
		}
		if !f.List && !f.Map {
			w.fail(ErrDuplicateField, f, "")
			return target{}, false
		}
		t := target{f: f, idx: fr.curIndex(), same: true}
		if t.idx < 0 {
			t.x = fr.curExt
		}
		return t, true
	}
	idx := fr.tab.Layout.PositionOfNumber(num)
	if idx < 0 {
		return w.prepareExt(fr, num, mask)
	}
	f := &fr.tab.Layout.Fields[idx]
	if kindBit(f.Kind)&mask == 0 {
		w.failKind(f, mask)
		return target{}, false
	}
	if f.Map && profileOf(fr.tab) == Signing {
		detail, err := fault.Reason(fault.MapRefused)
		w.fail(err, f, detail)
		return target{}, false
	}
	if fr.phase == phaseUnknown {
		w.fail(ErrOutOfOrder, f, w.orderDetail(fr, f, num))
		return target{}, false
	}
	if f.Oneof >= 0 && w.oneofTaken(fr, f.Oneof) {
		if fr.isWritten(idx) {
			w.fail(ErrDuplicateField, f, "")
		} else {
			w.fail(ErrOneofConflict, f, "oneof "+string(fr.tab.Layout.Oneofs[f.Oneof].Name)+" already has a member")
		}
		return target{}, false
	}
	if precedes(fr, f, idx) {
		switch {
		case !fr.isWritten(idx):
			w.fail(ErrOutOfOrder, f, w.orderDetail(fr, f, num))
		case fr.zeroKey && idx == 0:
			w.fail(ErrOutOfOrder, f, entryOrder)
		case f.List || f.Map:
			w.fail(ErrNotConsecutive, f, "")
		default:
			w.fail(ErrDuplicateField, f, "")
		}
		return target{}, false
	}
	return target{f: f, idx: idx}, true
}

// precedes reports whether field f, at position idx in the frame's fields
// (-1 for an extension), comes before the frame's current field in the
// order its table checks, so that writing it now breaks the order. The
// callers check unknown fields, which come last in both orders.
func precedes(fr *wframe, f *layout.Field, idx int) bool {
	if profileOf(fr.tab) != 0 {
		// Strict field-number order, extensions and oneof members among
		// the other fields.
		cur := fr.current()
		return cur != nil && f.Number < cur.Number
	}
	if idx < 0 {
		// Extensions first, by ascending number.
		return fr.phase != phaseExt || f.Number < fr.ext
	}
	// Then the fields in emission order.
	return idx < fr.pos
}

// oneofTaken reports whether a member of oneof o of the frame's message
// was written.
func (w *Writer) oneofTaken(fr *wframe, o int) bool {
	od := &fr.tab.Layout.Oneofs[o]
	for i := od.First; i < od.End; i++ {
		if fr.isWritten(i) {
			return true
		}
	}
	return false
}

// prepareExt is prepare for a number the message does not declare: an
// extension, if the resolver knows one.
func (w *Writer) prepareExt(fr *wframe, num protowire.Number, mask uint32) (target, bool) {
	x := w.extension(fr.tab, num)
	if x == nil {
		w.fail(ErrUnknownField, nil, "field "+itoa(int64(num))+" of "+string(fr.tab.Layout.FullName))
		return target{}, false
	}
	f := x.F
	if kindBit(f.Kind)&mask == 0 {
		w.failKind(f, mask)
		return target{}, false
	}
	if fr.phase == phaseUnknown || precedes(fr, f, -1) {
		w.fail(ErrOutOfOrder, f, w.orderDetail(fr, f, num))
		return target{}, false
	}
	return target{f: f, idx: -1, x: x}, true
}

// extension returns the record of extension num of t's message, or nil.
func (w *Writer) extension(t *wtable, num protowire.Number) *extInfo {
	if w.opts.Extensions == nil || !t.Layout.Extendable || num <= 0 || num > protowire.MaxValidNumber {
		return nil
	}
	k := extKey{t, num}
	if x, ok := w.exts[k]; ok {
		return x
	}
	var x *extInfo
	if xt, err := w.opts.Extensions.FindExtensionByNumber(t.Layout.FullName, num); err == nil {
		x = extInfoOf(layout.Extension(xt.TypeDescriptor()))
	}
	if w.exts == nil {
		w.exts = make(map[extKey]*extInfo)
	}
	w.exts[k] = x
	return x
}

// maxVarintLen is the longest varint.
const maxVarintLen = 10

// makeRoom makes room in the buffer for n more bytes, growing it by at most
// what the size limit still allows: a Writer fed large values near the
// limit never holds a buffer much larger than its largest possible output
// (append would double it, and copy the old array into the new).
func (w *Writer) makeRoom(n int) {
	if cap(w.buf)-len(w.buf) >= n {
		return
	}
	need := len(w.buf) + n
	c := max(2*cap(w.buf), need)
	// The output is at most base + maxSize bytes, plus the reserved
	// length bytes not yet given back (slack), plus one length prefix of
	// headroom.
	if most := w.base + w.slack + w.maxSize + maxVarintLen; c > most {
		c = max(most, need)
	}
	nb := make([]byte, len(w.buf), c)
	copy(nb, w.buf)
	w.buf = nb
}

// over reports whether adding n bytes to the smallest size the output can
// still have exceeds the size limit.
func (w *Writer) over(n int) bool {
	cur := len(w.buf) - w.base - w.slack
	return n > w.maxSize-cur
}

// closeDelta is how much closing the frame's open packed record grows the
// smallest output size, when a call of target t would close it.
func (w *Writer) closeDelta(fr *wframe, t target) int {
	if t.same || fr.pack < 0 {
		return 0
	}
	return wire.SizeVarint(uint64(len(w.buf)-fr.pack)) - 1
}

// commit makes t the frame's current field, closing the previous field's
// packed record. It must follow successful checks only.
func (w *Writer) commit(fr *wframe, t target) {
	if t.same {
		return
	}
	if fr.pack >= 0 {
		w.closePacked(fr)
		w.setTop() // the fast paths were off while it was open
	}
	fr.count = 0
	fr.keyValid = false
	if t.idx >= 0 {
		fr.pos = t.idx
		fr.setWritten(t.idx)
		fr.phase = phaseFields
	} else {
		fr.curExt, fr.ext = t.x, t.f.Number
		if profileOf(fr.tab) != 0 {
			fr.phase, fr.pos = phaseExt, posExt // among the fields
		}
	}
}

// The Writer's fast paths. The common call (a field after the previous
// one, or another element of the current repeated field, in a message that
// is not a map entry, with no packed record open, far from the size limit)
// is checked and written from the field's wslot, with no call to prepare:
// the value methods start with it, and so do Begin, the BeginEntry
// methods and End. Whatever is not common, and every call that may fail, goes to the
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

// setFast sets w.fast.
func (w *Writer) setFast(fr *wframe) { w.fast = fr }

// next returns the fast frame and the slot of field num if a call of the
// kinds in mask may take the fast path: the Writer is usable (w.fast is
// set), the field is declared and in its layout's dense index by number,
// the kind fits, and it comes after the current field (outside a oneof
// already taken) or is another element of the current repeated field. It
// returns nils otherwise.
func (w *Writer) next(num protowire.Number, mask uint32) (*wframe, *wslot) {
	fr := w.fast
	if fr == nil {
		return nil, nil
	}
	x, s := fr.tab.NumIndex, fr.tab.Slots
	if i := uint(num); i < uint(len(x)) { // a negative num wraps above len
		// x[i] is the field's slot: its position plus one, or 0, the
		// zero slot, for a number no field has. It is always below
		// len(s); saying so spares a bounds check.
		if p := uint(x[i]); p < uint(len(s)) {
			wf := &s[p]
			// fast is kbit, or 0 for a field that always takes the
			// general path (and for the zero slot). pos is the current
			// regular field (-1 for none or an extension, which all come
			// first), compared as an int32 as last is, for a load with
			// no extension. One comparison, so that the outcome does not
			// hang on two branches.
			if wf.Fast&mask != 0 && int32(fr.pos) <= wf.Last {
				return fr, wf
			}
		}
	}
	return nil, nil
}

// commitFast is commit for a field accepted by next, and counts the
// element: count is 1 after a field starts, as the general path leaves it
// for a repeated field's first element (for a singular field count is not
// read).
func (fr *wframe) commitFast(wf *wslot) {
	i := int(wf.Idx)
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
	if wf.Flags&wfImplicit == 0 {
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
	binary.LittleEndian.PutUint64(b[k:k+8], wf.Tag)
	return k + int(wf.NTag)
}

// fits reports whether a fast path may write a value of n bytes (plus a
// tag and length prefix) now: the output stays within the size limit
// (room), and the buffer has the capacity (fastCap) without growing.
func (w *Writer) fits(n int) bool {
	k := len(w.buf)
	return k <= w.limit-n && cap(w.buf)-k-n >= fastCap
}
