package engine

import (
	"math/bits"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/fault"
	"github.com/protolayout/protolayout/internal/layout"
	"github.com/protolayout/protolayout/internal/utf8x"
	"github.com/protolayout/protolayout/internal/weakcache"
	"github.com/protolayout/protolayout/internal/wire"
)

// The direct encoder: a size pass and a write pass over a Message's
// storage, by a program compiled per shape (encProgram), for the encoder
// to call before its checked walk (State.Encode). It encodes what the
// walk encodes, byte for byte, or fails with the fault the walk would
// report, or gives up and leaves the message to the walk, which then
// gives the same bytes or its detailed error. Its size pass checks
// strings, required fields, the depth limit and cycles (fault.Levels, by
// the walker's rule: wire.CycleLevel), a MessageSet type, and under the
// Signing profile a non-empty map and unknown fields where the walk
// does, and records
// the first fault with its path in the caller's fault.Trail (see there
// for the rule that keeps it the walk's). It visits a map's entries in
// map order; under Deterministic, where the walk sorts them, a fault
// found in one is exchanged for the first in key order (earlierFault),
// each entry counted at most once more. It names the size limit where
// the walk's running sums pass it (size_limit.go). It gives up on
// anything else out of the ordinary (nesting past the levels it follows,
// the size limit where it does not name it, an extension holding a
// message of a type neither storage reads: see ext_value.go). That includes a message whose written length is not
// the size its size pass counted: it
// changed during the call (or holds a stale stamp, below), and the walk,
// which reads it again, encodes it or fails with ErrSizeMismatch. No
// bytes whose lengths disagree with their contents are ever returned.
//
// Sizes are kept in the messages themselves (Message.size), stamped with
// the epoch of the call that counted them, so that the write pass reads
// each nested message's size instead of counting it again, and a message
// reached twice in one call (a shared subtree) is counted once, or, if
// its count failed, stamped so (failed) and not counted again. A message
// that contains itself is never counted complete: the size pass finds
// the cycle, or, when the walk would find it past the levels the encoder
// follows (wire.MaxStackDepth, whatever MaxDepth says; fault.Levels),
// gives up at that depth, and the walk, whose frames are on the heap,
// names it. Epochs are unique per call (see epochs): calls on other
// goroutines that encode the same message at the same time stamp it with
// theirs, and a call that finds another's stamp counts again; a message
// not changed meanwhile always counts the same, so the sizes written by
// one call and read by another agree. Stamps are 32 bits, so that a
// Message can be copied (as dynamicpb's can) and atomics of 32 bits serve
// on every platform: after 2^31 calls an epoch comes back, and a message
// last counted by the call 2^31 calls earlier, and changed since, may
// show a stale size; the length check of the write pass catches it, and
// the walk takes the message.

// sizeStamp is a message's cached size: the epoch of the call that
// counted it, shifted left by one, with the low bit set once the count is
// complete (clear at the top message while it is being counted), and the
// size, or failedSize where the count failed (failed).
type sizeStamp struct {
	epoch uint32
	n     int32
}

// load returns the stamp's epoch and size.
func (z *sizeStamp) load() (uint32, int) {
	return atomic.LoadUint32(&z.epoch), int(atomic.LoadInt32(&z.n))
}

// store records a complete count of n bytes by the call of epoch e.
func (z *sizeStamp) store(e uint32, n int) {
	atomic.StoreInt32(&z.n, int32(n))
	atomic.StoreUint32(&z.epoch, e|1)
}

// epochs hands out epochs: blocks of them to encoding states, single ones
// to calls made without a state. Epoch 0 is not handed out, and a stamp
// that matches a call has its low bit set, so that a new message's stamp
// (0) matches no call.
var epochs atomic.Uint64

// epochBlock is how many epochs a state takes at a time, so that calls
// seldom touch the shared counter.
const epochBlock = 1 << 12

// maxKeptEntries bounds the map scratch kept between calls: 176 KiB of
// entries (2,048 of 88 bytes; fewer in a purego build, whose entries are
// larger), and as many keys.
var maxKeptEntries = 176 << 10 / int(reflect.TypeFor[entry]().Size())

// statePool holds the states of calls made without an Encoder's (the
// fast-path methods).
var statePool = sync.Pool{New: func() any { return new(State) }}

// epoch returns a new epoch, shifted left by one; st may be nil.
func (st *State) epoch() uint32 {
	if st == nil {
		return uint32(epochs.Add(1) << 1)
	}
	if st.next == st.end {
		st.end = epochs.Add(epochBlock) + 1
		st.next = st.end - epochBlock
	}
	e := st.next
	st.next++
	return uint32(e << 1)
}

// encode runs the direct encoder on m, as Encode describes; st
// may be nil (see enc).
func (st *State) encode(b []byte, m *Message, o *Options) ([]byte, int, bool) {
	if onEncode != nil {
		onEncode()
	}
	var e enc
	e.start(st, o)
	e.stamp = st.epoch()
	// Stamped before anything can give up, so that a count left
	// incomplete never leaves an older complete one in place for
	// appendCached to use.
	atomic.StoreUint32(&m.size.epoch, e.stamp)
	n, ok := e.size(m, 1)
	if !ok || e.packs || n > o.MaxSize {
		e.release() // earlierFault may have taken scratch space
		return b, 0, false
	}
	if o.SizeOnly {
		e.release()
		return b, n, true
	}
	return e.finish(b, m, n)
}

// onEncode, when set (by tests), is called at the start of every direct
// encoding but appendCached's.
var onEncode func()

// betweenPasses, when set (by tests), is called between the size and the
// write pass of every direct encoding.
var betweenPasses func(*Message)

// finish writes m, whose size pass counted n bytes, after b.
func (e *enc) finish(b []byte, m *Message, n int) ([]byte, int, bool) {
	if betweenPasses != nil {
		betweenPasses(m)
	}
	e.trail = nil
	out := slices.Grow(b, n)
	out, ok := e.append(out, m, 1)
	out, n, ok = e.written(b, out, n, ok)
	e.release()
	return out, n, ok
}

// release ends a call: it drops what the call left in the scratch
// space, and returns a state taken from statePool.
func (e *enc) release() {
	if e.st == nil {
		return
	}
	if e.generated {
		e.genRelease()
	}
	if cap(e.st.entries) > maxKeptEntries {
		e.st.entries = nil
	}
	if cap(e.st.keys) > maxKeptEntries {
		e.st.keys = nil
	}
	if e.pooled {
		statePool.Put(e.st)
		e.st, e.pooled = nil, false
	}
}

// scratch returns the call's state, taking one from statePool for a
// call made without one.
func (e *enc) scratch() *State {
	if e.st == nil {
		e.st, e.pooled = statePool.Get().(*State), true
	}
	return e.st
}

// appendCached writes m after b with the sizes its last size pass left
// in it, as proto.Marshal asks with MarshalUseCachedSize after calling
// Size: ok is false when m holds no complete count, or the write gives up.
func appendCached(b []byte, m *Message, det bool) ([]byte, bool) {
	stamp, n := m.size.load()
	if stamp&1 == 0 || n > maxSize {
		return b, false // no complete count, or stamped failed
	}
	e := enc{stamp: stamp &^ 1, det: det, partial: true, maxSize: maxSize, recheck: true,
		levels: fault.NewLevels[uintptr](wire.DefaultMaxDepth)}
	out, _, ok := e.finish(b, m, n)
	return out, ok
}

// size is the size pass: it returns the size of m, at level depth, and
// stamps it in m, or reads the size this call stamped in m already (so
// the write pass asks it for the sizes of nested messages); false means
// the walk must take m. Its callers check the level first (enc.levels).
func (e *enc) size(m *Message, depth int) (int, bool) {
	if !wire.Is32 {
		return e.sizeCounted(m, depth)
	}
	n, ok := e.sizeCounted(m, depth)
	if !ok && e.nameGiveUp() {
		return 0, e.exceeded(m, depth)
	}
	return n, ok
}

// sizeCounted is size's count. Where int has 32 bits, a running sum that
// passes the limit gives up as it is counted (wire.Fits), before the
// message's total is checked (sized): size then names it as sized does
// (nameGiveUp, exceeded).
func (e *enc) sizeCounted(m *Message, depth int) (int, bool) {
	if !m.IsValid() {
		if !e.partial && m.t != nil && len(m.t.shape.layout.RequiredFields) > 0 {
			// No storage: none of its required fields is set.
			return 0, e.trail.Fail(fault.RequiredNotSet, m.t.shape.layout.Absent(), 0)
		}
		return 0, true
	}
	if stamp, n := m.size.load(); stamp == e.stamp|1 {
		return n, true
	}
	rare := m.rareOf()
	sh := m.t.shape
	p := sh.program()
	// end is where the regular fields stop: the first required field not
	// set (a fault, after the fields before it), or the oneofs.
	end := p.regular
	if p.refusable {
		if p.messageSet {
			return 0, e.trail.Fail(fault.MessageSetUnsupported, nil, 0)
		}
		if !e.partial {
			if r := m.firstMissing(p); r >= 0 {
				if r >= p.regular {
					// A required oneof member, which descriptors do not
					// allow: the walk's.
					return 0, false
				}
				end = r
			}
		}
	}
	if e.canon {
		if end < p.regular {
			// Checked as the message is entered, before its fields
			// and extensions.
			return 0, e.trail.Fail(fault.RequiredNotSet, &m.t.shape.layout.Fields[end], 0)
		}
		if e.signing && p.signing != nil {
			p = p.signing
		}
		if p.reordered || rare != nil && len(rare.ext) > 0 {
			n, ok := e.sizeCanonical(m, m.words(), p, depth)
			return e.sized(m, n, ok, depth)
		}
	}
	n := 0
	if rare != nil && len(rare.ext) > 0 {
		x, ok := e.sizeExtensions(rare.ext, depth)
		if !ok {
			return 0, false
		}
		n = x
	}
	fields := p.fields
	words := m.words()
	if p.touchedWords == 1 {
		// Up to 64 fields: the set regular fields by position, their
		// commonest cases here rather than through sizeField.
		set := p.regularSet(words, sh)
		if end < p.regular {
			set &= 1<<end - 1
		}
		for t := set; t != 0; t &= t - 1 {
			f := &fields[bits.TrailingZeros64(t)]
			switch f.Op {
			case wire.OpVarint:
				w := words[f.slot]
				if f.unset(words, w != 0) {
					continue
				}
				n += int(f.TagLen) + protowire.SizeVarint(w)
			case wire.OpZigzag32, wire.OpZigzag64:
				w := words[f.slot]
				if f.unset(words, w != 0) {
					continue
				}
				n += int(f.TagLen) + wire.SizeWord(f.Op, w)
			case wire.OpFixed32, wire.OpFixed64:
				if f.unset(words, words[f.slot] != 0) {
					continue
				}
				n += int(f.TagLen) + 4
				if f.Op == wire.OpFixed64 {
					n += 4
				}
			case wire.OpString:
				x := m.strAt(f.slot)
				if f.unset(words, x != "") {
					continue
				}
				// sizeText, inline (its UTF-8 test without a call).
				if f.UTF8 && e.utf8 && !utf8x.ShortASCII(x) && !utf8x.ValidString(x) {
					return 0, e.trail.Fail(fault.InvalidUTF8, f.more.lf, n)
				}
				if !wire.Fits(n, len(x), e.maxSize) {
					return 0, false
				}
				n += int(f.TagLen) + protowire.SizeBytes(len(x))
			case wire.OpMessage:
				c := m.msgAt(f.slot)
				if c == nil {
					continue
				}
				if depth >= e.levels.Deep && e.levels.Check(e.trail, f.more.lf, addrOf(c), depth+1, false) {
					e.trail.Up(n)
					return 0, false
				}
				x, ok := e.size(c, depth+1)
				if !ok {
					e.failed(c)
					e.trail.Enter(f.more.lf, -1)
				}
				if !e.trail.Counted(n, x, ok, e.maxSize) {
					return 0, false
				}
				n += int(f.TagLen) + protowire.SizeBytes(x)
			default:
				x, ok := e.sizeField(m, words, f, depth)
				if !e.trail.Counted(n, x, ok, e.maxSize) {
					return 0, false
				}
				n += x
			}
		}
	} else {
		// In a function of its own, so that the closure does not keep n
		// in memory in the loop above.
		x, ok := e.sizeWide(m, words, p, end, depth)
		if !e.trail.Counted(n, x, ok, e.maxSize) {
			return 0, false
		}
		n += x
	}
	if end < p.regular {
		if n > e.maxSize && e.sizeFaults {
			// The walk passes the limit before the field.
			return 0, e.exceeded(m, depth)
		}
		return 0, e.trail.Fail(fault.RequiredNotSet, &m.t.shape.layout.Fields[end], n)
	}
	if len(p.oneofs) > 0 {
		x, ok := e.sizeOneofs(m, words, p, depth)
		if !e.trail.Counted(n, x, ok, e.maxSize) {
			return 0, false
		}
		n += x
	}
	return e.sized(m, n, true, depth)
}

// sized ends the size pass of m, at level depth, whose fields counted n
// bytes (ok false if it gave up): it adds the unknown bytes, checks the
// limit (naming it: exceeded) and stamps the size in m.
func (e *enc) sized(m *Message, n int, ok bool, depth int) (int, bool) {
	if !ok {
		return 0, false
	}
	if rare := m.rareOf(); rare != nil {
		if n, ok = e.sizeUnknown(n, rare.unknown); !ok {
			return 0, e.exceeded(m, depth)
		}
	} else if n > e.maxSize {
		return 0, e.exceeded(m, depth)
	}
	m.size.store(e.stamp, n)
	return n, true
}

// sizeCanonical returns the size of the set fields and extensions of m,
// of program p and words words, in field-number order, the extensions
// merged among the fields (canon_ext.go): for a type whose layout is not
// in that order, or a message with extensions set.
func (e *enc) sizeCanonical(m *Message, words []uint64, p *encProgram, depth int) (int, bool) {
	n := 0
	xs := m.exts()
	for i := 0; i <= len(p.canon); i++ {
		num := protowire.MaxValidNumber + 1
		if i < len(p.canon) {
			num = p.canon[i].num
		}
		for ; len(xs) > 0 && extBefore(xs[0].rec, num); xs = xs[1:] {
			x := &xs[0]
			if !extensionSet(x.fd, x.v) {
				continue
			}
			k, _, ok := e.sizeExtension(x.rec, x.v, depth)
			k, ok = e.sizeCanonExt(x.rec, k, ok)
			if !e.trail.Counted(n, k, ok, e.maxSize) {
				return 0, false
			}
			n += k
		}
		if i == len(p.canon) || !p.canonSet(words, m.t.shape, p.canon[i]) {
			continue
		}
		k, ok := e.sizeField(m, words, &p.fields[p.canon[i].pos], depth)
		if !e.trail.Counted(n, k, ok, e.maxSize) {
			return 0, false
		}
		n += k
	}
	return n, true
}

// appendCanonical appends the set fields and extensions of m as
// sizeCanonical counts them.
func (e *enc) appendCanonical(b []byte, m *Message, words []uint64, p *encProgram, depth int) ([]byte, bool) {
	ok := true
	xs := m.exts()
	for i := 0; i <= len(p.canon); i++ {
		num := protowire.MaxValidNumber + 1
		if i < len(p.canon) {
			num = p.canon[i].num
		}
		for ; len(xs) > 0 && extBefore(xs[0].rec, num); xs = xs[1:] {
			x := &xs[0]
			if !extensionSet(x.fd, x.v) {
				continue
			}
			if b, ok = e.appendExtension(b, x.rec, x.v, nil, depth); !ok {
				return b, false
			}
		}
		if i == len(p.canon) || !p.canonSet(words, m.t.shape, p.canon[i]) {
			continue
		}
		if b, ok = e.appendField(b, m, words, &p.fields[p.canon[i].pos], depth); !ok {
			return b, false
		}
	}
	return b, true
}

// canonSet reports whether the field of step st may be set in a message
// of shape s and words words: a regular field that was stored to (the
// passes then test its presence), or the member of a real oneof that is
// set.
func (p *encProgram) canonSet(words []uint64, s *shape, st canonStep) bool {
	if st.oneof >= 0 {
		c := words[st.oneof]
		return c != 0 && p.position[c-1] == st.pos
	}
	at := s.touched
	if !s.inOrder {
		at = s.posTouched
	}
	return words[int(at)+int(st.pos>>6)]&(1<<(st.pos&63)) != 0
}

// sizeOneofs returns the size of the set member of each real oneof of
// m, of program p and words words.
func (e *enc) sizeOneofs(m *Message, words []uint64, p *encProgram, depth int) (int, bool) {
	n := 0
	for _, o := range p.oneofs {
		if c := words[o]; c != 0 {
			x, ok := e.sizeField(m, words, &p.fields[p.position[c-1]], depth)
			if !e.trail.Counted(n, x, ok, e.maxSize) {
				return 0, false
			}
			n += x
		}
	}
	return n, true
}

// sizeWide returns the size of the regular fields before position end
// of m, a message of more than 64 fields, of program p and words words.
func (e *enc) sizeWide(m *Message, words []uint64, p *encProgram, end, depth int) (int, bool) {
	n := 0
	ok := p.eachWide(words, m.t.shape, end, func(f *encField) bool {
		x, ok := e.sizeField(m, words, f, depth)
		if !e.trail.Counted(n, x, ok, e.maxSize) {
			return false
		}
		n += x
		return true
	})
	return n, ok
}

// appendWide appends the regular fields of m, a message of more than 64
// fields, of program p and words words.
func (e *enc) appendWide(b []byte, m *Message, words []uint64, p *encProgram, depth int) ([]byte, bool) {
	ok := p.eachWide(words, m.t.shape, p.regular, func(f *encField) bool {
		var fine bool
		b, fine = e.appendField(b, m, words, f, depth)
		return fine
	})
	return b, ok
}

// regularSet returns the positions in the layout of the regular fields
// of a message of shape s whose words are words (those outside real
// oneofs) that were stored to, as bits, for a message of at most 64
// fields.
func (p *encProgram) regularSet(words []uint64, s *shape) uint64 {
	if s.inOrder {
		return words[s.touched] & p.regularMask
	}
	return words[s.posTouched] & p.regularMask
}

// eachWide calls visit with the record of each regular field (outside
// real oneofs) before position end of a message of more than 64 fields,
// of shape s and words words, that was stored to, in layout order, until
// visit returns false, and reports whether it never did. (Messages of up
// to 64 fields take regularSet, inline.)
func (p *encProgram) eachWide(words []uint64, s *shape, end int, visit func(*encField) bool) bool {
	// By the touched bits by position (which are the bits by index in
	// an inOrder shape).
	at := s.touched
	if !s.inOrder {
		at = s.posTouched
	}
	for k, t := range words[at:][:p.touchedWords] {
		for ; t != 0; t &= t - 1 {
			i := k*64 + bits.TrailingZeros64(t)
			if i >= end {
				return true
			}
			if !visit(&p.fields[i]) {
				return false
			}
		}
	}
	return true
}

// firstMissing returns the position of the first required field of m
// that is not set, or -1 if every one is.
func (m *Message) firstMissing(p *encProgram) int {
	for _, pos := range p.requiredPos {
		f := &p.fields[pos]
		if i := f.more.lf.Index; !m.has(&m.t.shape.fields[i], i) {
			return int(pos)
		}
	}
	return -1
}

// sizeField returns the size of field f of m, 0 if it is not set.
func (e *enc) sizeField(m *Message, words []uint64, f *encField, depth int) (int, bool) {
	switch f.Op {
	case wire.OpVarint, wire.OpZigzag32, wire.OpZigzag64, wire.OpFixed32, wire.OpFixed64:
		w := words[f.slot]
		if !f.present(words, w != 0) {
			return 0, true
		}
		return int(f.TagLen) + wire.SizeWord(f.Op, w), true
	case wire.OpString:
		x := m.strAt(f.slot)
		if !f.present(words, x != "") {
			return 0, true
		}
		return e.sizeText(&f.Rec, f.more.lf, x, 0)
	case wire.OpBytes:
		x := m.bytesAt(f.slot)
		if !f.present(words, len(x) > 0) {
			return 0, true
		}
		return e.sizeBlob(&f.Rec, len(x), 0)
	case wire.OpMessage, wire.OpGroup:
		c := m.msgAt(f.slot)
		if c == nil {
			return 0, true
		}
		if depth >= e.levels.Deep && e.levels.Check(e.trail, f.more.lf, addrOf(c), depth+1, false) {
			return 0, false
		}
		x, ok := e.size(c, depth+1)
		if !ok {
			e.failed(c)
			e.trail.Enter(f.more.lf, -1)
		}
		return int(f.TagLen) + f.Wrap(x), ok
	case wire.OpList:
		l := m.listAt(f.slot)
		if l == nil {
			return 0, true
		}
		return e.sizeList(l, f, f.more.lf, depth)
	case wire.OpPacked:
		l := m.listAt(f.slot)
		if l == nil || l.Len() == 0 {
			return 0, true
		}
		return packedSize(&f.Rec, l), true
	default: // wire.OpMap
		mp := m.mapAt(f.slot)
		if mp == nil {
			return 0, true
		}
		if e.signing && mp.Len() > 0 {
			return 0, e.trail.Fail(fault.MapRefused, f.more.lf, 0)
		}
		e.inMaps++
		n, ok := e.sizeMap(mp, f, f.more.lf, depth)
		e.inMaps--
		return n, ok
	}
}

// unset reports whether f, a field outside real oneofs, is not set in a
// message whose words are words, given whether its value is non-zero
// (which tells for implicit presence): the size and write passes' test,
// which inlines.
func (f *encField) unset(words []uint64, nonZero bool) bool {
	if f.bit >= 0 {
		return words[f.bit>>6]&(1<<(f.bit&63)) == 0
	}
	return !nonZero
}

// present reports whether a field is set in a message whose words are
// words, given whether its value is non-zero (which tells for implicit
// presence).
func (f *encField) present(words []uint64, nonZero bool) bool {
	switch {
	case f.bit >= 0:
		return words[f.bit>>6]&(1<<(f.bit&63)) != 0
	case f.oneof:
		return true
	default:
		return nonZero
	}
}

// sizeList returns the size of the unpacked list l of field f, of
// layout record lf.
func (e *enc) sizeList(l *list, f *encField, lf *layout.Field, depth int) (int, bool) {
	n := 0
	switch f.Elem {
	case wire.OpString:
		return e.sizeTexts(&f.Rec, lf, l.strs())
	case wire.OpBytes:
		return e.sizeBlobs(&f.Rec, l.bytes())
	case wire.OpMessage, wire.OpGroup:
		for j, c := range l.msgs() {
			if depth >= e.levels.Deep && e.levels.Check(e.trail, lf, addrOf(c), depth+1, false) {
				e.trail.Up(n)
				return 0, false
			}
			x, ok := e.size(c, depth+1)
			if !ok {
				e.failed(l.msgs()[j]) // c, read again: not kept across the call
				e.trail.Enter(lf, j)
			}
			if !e.trail.Counted(n, x, ok, e.maxSize) {
				return 0, false
			}
			n += int(f.TagLen) + f.Wrap(x)
		}
		if !e.within(n) {
			return 0, false
		}
	default:
		switch l.width {
		case wire.Signed32:
			n = sizeUnpacked(&f.Rec, l.int32s())
		case wire.Unsigned32:
			n = sizeUnpacked(&f.Rec, l.uint32s())
		default:
			n = sizeUnpacked(&f.Rec, l.words())
		}
	}
	return n, true
}

// packedSize returns the size of the packed record of l, a list of
// scalars of the field of record r, with its key (sizePacked).
func packedSize(r *layout.Rec, l *list) int {
	switch l.width {
	case wire.Signed32:
		return sizePacked(r, l.int32s())
	case wire.Unsigned32:
		return sizePacked(r, l.uint32s())
	}
	return sizePacked(r, l.words())
}

// sizeMap returns the size of the map mp of field f, of layout record
// lf. Its entries are visited in map order; under Deterministic, where
// the walk visits them by key, a fault found in one is exchanged for the
// first in key order (earlierFault).
func (e *enc) sizeMap(mp *dmap, f *encField, lf *layout.Field, depth int) (int, bool) {
	if mp.Len() > 0 && e.levels.Past(e.trail, lf, depth+1) {
		return 0, false // the entries are one level down
	}
	n := 0
	var en entry
	if mp.strs != nil {
		for k, v := range mp.strs {
			if !en.set(f, 0, k, v) {
				return 0, false
			}
			x, ok := e.sizeEntry(f, lf, &en, depth)
			if !ok {
				return 0, e.mapFault(mp, f, lf, n, depth)
			}
			if !wire.Fits(n, x, e.maxSize) {
				return 0, false
			}
			n += int(f.TagLen) + protowire.SizeBytes(x)
		}
	} else {
		for k, v := range mp.words {
			if !en.set(f, k, "", v) {
				return 0, false
			}
			x, ok := e.sizeEntry(f, lf, &en, depth)
			if !ok {
				return 0, e.mapFault(mp, f, lf, n, depth)
			}
			if !wire.Fits(n, x, e.maxSize) {
				return 0, false
			}
			n += int(f.TagLen) + protowire.SizeBytes(x)
		}
	}
	if !e.within(n) {
		return 0, false
	}
	return n, true
}

// mapFault passes up the fault (if any) found in an entry of map mp,
// after n bytes counted in map order: the walk's, where map order is its
// order (not Deterministic, or one entry), or else the first in key
// order (earlierFault). (Not inlined: it is off the size pass's common
// path.)
//
//go:noinline
func (e *enc) mapFault(mp *dmap, f *encField, lf *layout.Field, n, depth int) bool {
	if e.det && mp.Len() > 1 {
		if w, s, ok := e.trail.Entry(); ok {
			return e.earlierFault(mp, f, lf, w, s, depth)
		}
	}
	e.trail.Up(n)
	return false
}

// earlierFault passes up, of the fault recorded in the entry of key w or
// s of map mp of field lf and those in the entries that sort before it,
// the first in key order, which the walk reports: it sets the recorded
// fault aside and sizes those entries, by key, until one fails.
//
// The faulting entry is not sized again; the messages of the others
// counted already (in map order, before it) give their sizes from their
// stamps, and a message that failed is stamped so (failed) and gives up
// if reached again (a shared subtree): each message is counted once, and
// nested maps stay linear.
func (e *enc) earlierFault(mp *dmap, f *encField, lf *layout.Field, w uint64, s string, depth int) bool {
	saved := e.trail.Save()
	st := e.scratch()
	start := len(st.entries)
	ok := e.collect(mp, f)
	st.sortEntries(st.entries[start:], f.more.KeyOrder)
	n := 0
	for i, end := start, len(st.entries); ok && i < end; i++ {
		// Indexed anew: sizing a value may append nested maps' entries.
		x := st.entries[i]
		if x.kw == w && x.ks == s {
			break // the faulting entry: none before it failed
		}
		if onEarlier != nil {
			onEarlier()
		}
		k, fine := e.sizeEntry(f, lf, &x, depth)
		if !fine {
			ok = false
			break
		}
		if n += int(f.TagLen) + protowire.SizeBytes(k); n > e.maxSize {
			// The walk fails on the size first (a message stamped failed
			// reads as larger than any limit).
			ok = false
			break
		}
	}
	clear(st.entries[start:])
	st.entries = st.entries[:start]
	if ok {
		e.trail.Restore(saved)
	} else {
		// The earlier fault, or none if the entry gave up.
		e.trail.Drop(saved)
	}
	e.trail.Up(n)
	return false
}

// onEarlier, when set (by tests), is called for every entry earlierFault
// sizes.
var onEarlier func()

// failedSize is the size stamped in a message whose size pass failed in
// a deterministic call (failed): larger than any limit, so that the size
// pass, reaching it again through another path while it looks for an
// earlier fault (earlierFault), gives up rather than counting it again.
const failedSize = maxSize + 1

// failed stamps c, whose size pass failed with a fault, as failed, in a
// call that may look for an earlier fault (earlierFault). (Not inlined:
// it is off the size pass's common path.)
//
//go:noinline
func (e *enc) failed(c *Message) {
	if e.det && c.IsValid() && e.trail.Failed() {
		c.size.store(e.stamp, failedSize)
	}
}

// collect appends the entries of map mp of field f to the call's
// entries, in map order; false if a message value is of another
// storage (which the walk takes).
func (e *enc) collect(mp *dmap, f *encField) bool {
	st := e.scratch()
	var en entry
	if mp.strs != nil {
		for k, v := range mp.strs {
			if !en.set(f, 0, k, v) {
				return false
			}
			st.entries = append(st.entries, en)
		}
	} else {
		for k, v := range mp.words {
			if !en.set(f, k, "", v) {
				return false
			}
			st.entries = append(st.entries, en)
		}
	}
	return true
}

// sizeEntry returns the size of the body of en, an entry of the map
// field f of layout record lf: it checks the key and the value first
// (invalidUTF8, deepEntry), and records the entry in the trail of a fault (the
// bytes before it are the map's, which it passes up).
func (e *enc) sizeEntry(f *encField, lf *layout.Field, en *entry, depth int) (int, bool) {
	if e.utf8 {
		if key, value := en.invalidUTF8(&f.Rec, &f.more.RecMore); key || value {
			return 0, e.invalidEntry(lf, en, key)
		}
	}
	if en.vm != nil && depth+2 > e.levels.Deep && !e.deepEntry(lf, en, addrOf(en.vm), depth) {
		return 0, false
	}
	vn := 0
	if en.vm != nil {
		var ok bool
		if vn, ok = e.size(en.vm, depth+2); !ok {
			e.failed(en.vm)
			e.trail.EnterEntry(lf, en.kw, en.ks, true)
			return 0, false
		}
	}
	return entryLen(&f.Rec, &f.more.RecMore, en, vn, e.maxSize)
}

// append is the write pass: it appends m, at level depth, counted by
// this call's size pass, to b; false means the walk must take m.
func (e *enc) append(b []byte, m *Message, depth int) ([]byte, bool) {
	if !m.IsValid() {
		return b, true
	}
	sh := m.t.shape
	p := sh.program()
	if p.messageSet {
		return b, false
	}
	rare := m.rareOf()
	ok := true
	if e.signing && p.signing != nil {
		p = p.signing
	}
	if e.canon && (p.reordered || rare != nil && len(rare.ext) > 0) {
		if b, ok = e.appendCanonical(b, m, m.words(), p, depth); !ok {
			return b, false
		}
		if rare != nil {
			b = append(b, rare.unknown...)
		}
		return b, true
	}
	if rare != nil && len(rare.ext) > 0 {
		// Extensions first, as the walk (and proto.Marshal) writes them.
		if b, ok = e.appendExtensions(b, rare.ext, depth); !ok {
			return b, false
		}
	}
	fields := p.fields
	words := m.words()
	if p.touchedWords == 1 {
		// As in size: the commonest cases here.
		for t := p.regularSet(words, sh); t != 0; t &= t - 1 {
			f := &fields[bits.TrailingZeros64(t)]
			switch f.Op {
			case wire.OpVarint:
				w := words[f.slot]
				if f.unset(words, w != 0) {
					continue
				}
				b = f.AppendKey(b)
				if w < 0x80 {
					b = append(b, byte(w))
				} else {
					b = wire.AppendVarint(b, w)
				}
			case wire.OpZigzag32, wire.OpZigzag64:
				w := words[f.slot]
				if f.unset(words, w != 0) {
					continue
				}
				b = wire.AppendWord(f.AppendKey(b), f.Op, w)
			case wire.OpFixed32, wire.OpFixed64:
				w := words[f.slot]
				if f.unset(words, w != 0) {
					continue
				}
				b = f.AppendKey(b)
				if f.Op == wire.OpFixed32 {
					b = protowire.AppendFixed32(b, uint32(w))
				} else {
					b = protowire.AppendFixed64(b, w)
				}
			case wire.OpString:
				x := m.strAt(f.slot)
				if f.unset(words, x != "") {
					continue
				}
				if f.UTF8 && e.recheck && invalidText(x) {
					return b, false
				}
				// appendText, inline.
				b = f.AppendKey(b)
				if len(x) < 0x80 {
					b = append(b, byte(len(x)))
				} else {
					b = wire.AppendVarint(b, uint64(len(x)))
				}
				b = append(b, x...)
			case wire.OpMessage:
				c := m.msgAt(f.slot)
				if c == nil {
					continue
				}
				if b, ok = e.appendNested(b, f, wire.OpMessage, c, depth+1); !ok {
					return b, false
				}
			default:
				if b, ok = e.appendField(b, m, words, f, depth); !ok {
					return b, false
				}
			}
		}
	} else if b, ok = e.appendWide(b, m, words, p, depth); !ok {
		// (A function of its own, as sizeWide.)
		return b, false
	}
	if len(p.oneofs) > 0 {
		if b, ok = e.appendOneofs(b, m, words, p, depth); !ok {
			return b, false
		}
	}
	if rare != nil {
		b = append(b, rare.unknown...)
	}
	return b, true
}

// appendOneofs appends the set member of each real oneof of m, of
// program p and words words.
func (e *enc) appendOneofs(b []byte, m *Message, words []uint64, p *encProgram, depth int) ([]byte, bool) {
	ok := true
	for _, o := range p.oneofs {
		if c := words[o]; c != 0 {
			if b, ok = e.appendField(b, m, words, &p.fields[p.position[c-1]], depth); !ok {
				return b, false
			}
		}
	}
	return b, true
}

// appendField appends field f of m, if it is set.
func (e *enc) appendField(b []byte, m *Message, words []uint64, f *encField, depth int) ([]byte, bool) {
	switch f.Op {
	case wire.OpVarint:
		w := words[f.slot]
		if !f.present(words, w != 0) {
			return b, true
		}
		b = f.AppendKey(b)
		if w < 0x80 {
			return append(b, byte(w)), true
		}
		return wire.AppendVarint(b, w), true
	case wire.OpZigzag32, wire.OpZigzag64, wire.OpFixed32, wire.OpFixed64:
		w := words[f.slot]
		if !f.present(words, w != 0) {
			return b, true
		}
		return wire.AppendWord(f.AppendKey(b), f.Op, w), true
	case wire.OpString:
		x := m.strAt(f.slot)
		if !f.present(words, x != "") {
			return b, true
		}
		if f.UTF8 && e.recheck && invalidText(x) {
			return b, false
		}
		return appendText(b, &f.Rec, x), true
	case wire.OpBytes:
		x := m.bytesAt(f.slot)
		if !f.present(words, len(x) > 0) {
			return b, true
		}
		return appendText(b, &f.Rec, x), true
	case wire.OpMessage, wire.OpGroup:
		c := m.msgAt(f.slot)
		if c == nil {
			return b, true
		}
		return e.appendNested(b, f, f.Op, c, depth+1)
	case wire.OpList:
		l := m.listAt(f.slot)
		if l == nil {
			return b, true
		}
		return e.appendList(b, l, f, depth)
	case wire.OpPacked:
		l := m.listAt(f.slot)
		if l == nil || l.Len() == 0 {
			return b, true
		}
		return appendPackedList(b, f, l), true
	default: // wire.OpMap
		mp := m.mapAt(f.slot)
		if mp == nil {
			return b, true
		}
		e.inMaps++
		b, ok := e.appendMap(b, mp, f, depth)
		e.inMaps--
		return b, ok
	}
}

// appendPackedList appends the packed record of l, a list of scalars of
// field f (appendPacked over its elements).
func appendPackedList(b []byte, f *encField, l *list) []byte {
	switch l.width {
	case wire.Signed32:
		return appendPacked(b, &f.Rec, f.more.PackedTag, l.int32s())
	case wire.Unsigned32:
		return appendPacked(b, &f.Rec, f.more.PackedTag, l.uint32s())
	}
	return appendPacked(b, &f.Rec, f.more.PackedTag, l.words())
}

// appendNested appends c, a message of field f at level depth, with its
// key, its length (op wire.OpMessage) or its end key (wire.OpGroup).
func (e *enc) appendNested(b []byte, f *encField, op wire.Op, c *Message, depth int) ([]byte, bool) {
	// The size pass stamped c: its size is read back here, as e.size
	// reads it (which counts again if the stamp is another call's, and
	// gives 0 for a message without storage, never stamped).
	n, ok := 0, true
	if atomic.LoadUint32(&c.size.epoch) == e.stamp|1 {
		n = int(atomic.LoadInt32(&c.size.n))
	} else if n, ok = e.size(c, depth); !ok {
		return b, false
	}
	b = f.AppendKey(b)
	if op == wire.OpGroup {
		start := len(b)
		if b, ok = e.append(b, c, depth); !ok {
			return b, false
		}
		return closeFrame(b, &f.more.RecMore, wire.OpGroup, start, n)
	}
	// Apart from groups, so that op is not kept across the call.
	b = wire.AppendVarint(b, uint64(n))
	start := len(b)
	if b, ok = e.append(b, c, depth); !ok {
		return b, false
	}
	return closeFrame(b, nil, wire.OpMessage, start, n)
}

// appendList appends the unpacked list l of field f.
func (e *enc) appendList(b []byte, l *list, f *encField, depth int) ([]byte, bool) {
	ok := true
	switch f.Elem {
	case wire.OpString:
		return appendTexts(b, &f.Rec, l.strs(), e.recheck)
	case wire.OpBytes:
		return appendTexts(b, &f.Rec, l.bytes(), false)
	case wire.OpMessage, wire.OpGroup:
		for _, c := range l.msgs() {
			if b, ok = e.appendNested(b, f, f.Elem, c, depth+1); !ok {
				return b, false
			}
		}
	default:
		switch l.width {
		case wire.Signed32:
			b = appendUnpacked(b, &f.Rec, l.int32s())
		case wire.Unsigned32:
			b = appendUnpacked(b, &f.Rec, l.uint32s())
		default:
			b = appendUnpacked(b, &f.Rec, l.words())
		}
	}
	return b, true
}

// appendMap appends the entries of the map mp of field f: in map order,
// or sorted by key when the call is deterministic.
func (e *enc) appendMap(b []byte, mp *dmap, f *encField, depth int) ([]byte, bool) {
	ok := true
	// Entries of values other than messages, in a call that does not
	// check strings in the write pass, go straight to appendEntry (the
	// function, without the method's steps).
	direct := f.Elem != wire.OpMessage && !e.recheck
	if !e.det {
		var en entry
		if mp.strs != nil {
			for k, v := range mp.strs {
				if !en.set(f, 0, k, v) {
					return b, false
				}
				if direct {
					b, ok = appendEntry(b, &f.Rec, &f.more.RecMore, &en, 0, e.maxSize)
				} else {
					b, ok = e.appendEntry(b, f, &en, depth)
				}
				if !ok {
					return b, false
				}
			}
		} else {
			for k, v := range mp.words {
				if !en.set(f, k, "", v) {
					return b, false
				}
				if direct {
					b, ok = appendEntry(b, &f.Rec, &f.more.RecMore, &en, 0, e.maxSize)
				} else {
					b, ok = e.appendEntry(b, f, &en, depth)
				}
				if !ok {
					return b, false
				}
			}
		}
		return b, true
	}
	// Nested maps append their entries after these and truncate back.
	st := e.scratch()
	start := len(st.entries)
	ok = e.collect(mp, f)
	entries := st.entries[start:]
	st.sortEntries(entries, f.more.KeyOrder)
	for i := 0; ok && i < len(entries); i++ {
		if direct {
			b, ok = appendEntry(b, &f.Rec, &f.more.RecMore, &entries[i], 0, e.maxSize)
		} else {
			b, ok = e.appendEntry(b, f, &entries[i], depth)
		}
	}
	clear(st.entries[start:])
	st.entries = st.entries[:start]
	return b, ok
}

// appendEntry appends en, an entry of the map field f, with its key.
func (e *enc) appendEntry(b []byte, f *encField, en *entry, depth int) ([]byte, bool) {
	r, x := &f.Rec, &f.more.RecMore
	if e.recheck {
		if key, value := en.invalidUTF8(r, x); key || value {
			return b, false
		}
	}
	vn := 0
	if en.vm != nil {
		vn, _ = e.size(en.vm, depth+2) // counted by the size pass: read from its stamp
	}
	b, ok := appendEntry(b, r, x, en, vn, e.maxSize)
	if !ok {
		return b, false
	}
	if en.vm != nil {
		return e.append(b, en.vm, depth+2)
	}
	return b, true
}

// extFields caches the direct encoder's record of each extension, by
// its descriptor (released with the schema, as layouts are).
var extFields weakcache.Cache[*encField]

// extField returns the direct encoder's record of the extension xd.
func extField(xd protoreflect.FieldDescriptor) *encField {
	var key protoreflect.FieldDescriptor = xd
	if t, ok := xd.(protoreflect.ExtensionTypeDescriptor); ok {
		key = t.Descriptor()
	}
	if f, ok := extFields.Load(key); ok {
		return f
	}
	lf := layout.Extension(key)
	f := new(encField)
	*f = fieldRecord(lf, new(encMore), -1, -1)
	f.more.valueKind = lf.Kind // for the word of a scalar value
	f, _ = extFields.LoadOrStore(key, f)
	return f
}

// sizeExtensions returns the size of the extensions xs (in ascending
// number) of a message at level depth.
func (e *enc) sizeExtensions(xs []extension, depth int) (int, bool) {
	n := 0
	for i := range xs {
		x := &xs[i]
		if !extensionSet(x.fd, x.v) {
			continue
		}
		k, _, ok := e.sizeExtension(x.rec, x.v, depth)
		if !e.trail.Counted(n, k, ok, e.maxSize) {
			return 0, false
		}
		n += k
	}
	return n, true
}

// appendExtensions appends the extensions xs (in ascending number, the
// walk's order) of a message at level depth.
func (e *enc) appendExtensions(b []byte, xs []extension, depth int) ([]byte, bool) {
	ok := true
	for i := range xs {
		x := &xs[i]
		if !extensionSet(x.fd, x.v) {
			continue
		}
		if b, ok = e.appendExtension(b, x.rec, x.v, nil, depth); !ok {
			return b, false
		}
	}
	return b, true
}

// encField is the direct encoder's record of one field: where its value
// lives (as in field) and how it is written (from its layout.Field). It
// is kept to 32 bytes, what the common cases read, with the rest apart in
// more.
type encField struct {
	layout.Rec
	// oneof is set for members of real oneofs, visited only when set.
	oneof     bool
	slot, bit int32 // as in field
	more      *encMore
}

// encMore is the part of a field's record that the passes read off
// their common paths: the rest of the record of a group, a packed field
// or a map, and the layout record faults name.
type encMore struct {
	layout.RecMore
	// valueKind is a map value's kind, or an extension's.
	valueKind protoreflect.Kind
	// lf is the field's layout record, or an extension's.
	lf *layout.Field
}

// encProgram is the direct encoder's program for one shape.
type encProgram struct {
	// fields holds a record per field, by layout position.
	fields []encField
	// position maps a field's index to its layout position.
	position []int32
	// oneofs holds the index in words of each real oneof's case, in the
	// layout's order.
	oneofs []int32
	// regular is the layout's Regular; touchedWords the length of the
	// touched bits in words.
	regular, touchedWords int
	// regularMask has a bit per regular field's position, for messages
	// of at most 64 fields.
	regularMask uint64
	// requiredPos lists the positions of required fields.
	requiredPos []int32
	// messageSet is set for a MessageSet type, which the walk refuses.
	messageSet bool
	// refusable is set for a MessageSet type or one with required
	// fields: one the size pass may have to give up on by its type.
	refusable bool
	// canon lists the fields in field-number order, and reordered says
	// whether that differs from the layout's order
	// (layout.Layout.InNumberOrder), for Canonical.
	canon     []canonStep
	reordered bool
	// signing is the program the passes run under the Signing profile
	// for a type with a repeated scalar that is not packed, which the
	// profile packs: the same program with those fields' records
	// packed; nil for any other type.
	signing *encProgram
}

// canonStep is a field of a canonical program: its layout position, its
// number, and for a member of a real oneof the index in words of its
// oneof's case, else -1.
type canonStep struct {
	pos, oneof int32
	num        protowire.Number
}

// program returns the direct encoder's program of s.
func (s *shape) program() *encProgram { return s.prog }

// buildProgram compiles the direct encoder's program of s.
func buildProgram(s *shape) *encProgram {
	l := s.layout
	p := &encProgram{
		fields:       make([]encField, len(l.Fields)),
		position:     make([]int32, len(l.Fields)),
		regular:      l.Regular,
		touchedWords: (len(l.Fields) + 63) / 64,
		requiredPos:  l.RequiredFields,
		messageSet:   l.MessageSet,
		regularMask:  1<<l.Regular - 1,
		refusable:    l.MessageSet || len(l.RequiredFields) > 0,
	}
	for _, o := range l.Oneofs {
		p.oneofs = append(p.oneofs, s.oneofs[o.Index])
	}
	more := make([]encMore, len(l.Fields))
	for pos := range l.Fields {
		lf := &l.Fields[pos]
		sf := &s.fields[lf.Index]
		p.position[lf.Index] = int32(pos)
		p.fields[pos] = fieldRecord(lf, &more[pos], sf.slot, sf.bit)
	}
	p.reordered = !l.InNumberOrder
	p.canon = make([]canonStep, len(l.Fields))
	for i, pos := range l.NumberOrder {
		st := canonStep{pos: pos, oneof: -1, num: l.Fields[pos].Number}
		if o := l.Fields[pos].Oneof; o >= 0 {
			st.oneof = p.oneofs[o]
		}
		p.canon[i] = st
	}
	for pos := range l.Fields {
		lf := &l.Fields[pos]
		if !lf.SigningPacks() {
			continue
		}
		if p.signing == nil {
			sp := *p
			sp.fields = slices.Clone(p.fields)
			p.signing = &sp
		}
		f := &p.signing.fields[pos]
		f.Op = wire.OpPacked
		f.more = &encMore{RecMore: layout.RecMore{PackedTag: lf.PackedTag}, lf: lf}
	}
	return p
}

// fieldRecord returns the direct encoder's record of the field lf, of
// slot and presence bit index slot and bit (see encField), with its
// extra part in more.
func fieldRecord(lf *layout.Field, more *encMore, slot, bit int32) encField {
	r, m := lf.Rec()
	f := encField{Rec: r, slot: slot, bit: bit, oneof: lf.Oneof >= 0, more: more}
	more.lf = lf
	if m != nil {
		more.RecMore = *m
		if f.Op == wire.OpMap {
			more.valueKind = lf.MapValue.Kind
		}
	}
	return f
}
