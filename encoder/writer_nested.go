package encoder

import (
	"cmp"
	"google.golang.org/protobuf/encoding/protowire"
	"slices"

	"github.com/protolayout/protolayout/internal/wire"
)

// LengthStrategy chooses how many bytes a Writer reserves for the length
// prefix of a nested message, map entry or packed record whose length is
// not known when it starts (Begin, or the first element of a packed field).
// When the body ends its length is written in place; if it needs another
// width than was reserved, the body moves once (Writer.Stats counts the
// moves). Whatever the strategy, the output is the same, with minimal
// varint lengths as proto.Marshal writes them; only the moves differ.
type LengthStrategy uint8

const (
	// LengthLearned (the default) reserves, per field of each message
	// type, the width that field's lengths most often needed, learned
	// from a sample of the bodies every Writer on every goroutine wrote,
	// whatever its strategy (lock-free counters in a side table of the
	// shared layout, one body in 32 sampled). Reading the guess is one
	// plain load per body: the guess is kept computed beside the
	// counters.
	LengthLearned LengthStrategy = iota
	// LengthOneByte always reserves one byte, as proto.Marshal's
	// reflection path does: bodies under 128 bytes never move, larger
	// ones always do.
	LengthOneByte
)

// String returns the strategy's name.
func (s LengthStrategy) String() string {
	switch s {
	case LengthLearned:
		return "learned"
	case LengthOneByte:
		return "one-byte"
	}
	return "LengthStrategy(?)"
}

// Begin starts a nested message in field num: a message field, a group
// (or editions DELIMITED) field, or a map field, where it starts one map
// entry. The fields that follow belong to the nested message until End.
// For a repeated field each Begin starts one element.
//
// In a map entry the key comes first: write it to field MapKey, then the
// value to field MapValue (Begin(MapValue) for a message value), then
// End. Either may be left out, and End writes the zero key or value in
// its place; a value written with no key before it gives the entry the
// zero key, so a key written after the value fails with ErrOutOfOrder.
func (w *Writer) Begin(num protowire.Number) {
	// The fast path: a message field (not a map, not a group) whose
	// table is built; see next, in writer.go.
	fr, wf := w.next(num, maskMessage)
	if wf == nil {
		w.beginSlow(num)
		w.check()
		return
	}
	child := wf.Child.Load()
	n := len(w.frames)
	if child == nil || w.depth >= w.fastDepth || !w.fits(0) || n == cap(w.frames) {
		w.beginSlow(num)
		w.check()
		return
	}
	fr.commitFast(wf)
	k, r := w.putHead(w.buf[:cap(w.buf)], len(w.buf), wf)
	w.buf = w.buf[:k] // a reslice of itself: only the length is stored
	// push, for a frame with no required fields to check and at most 64
	// fields.
	w.pushFast(fr, child, n, k, r, false, w.checksRequired(child))
	w.depth++
	w.check()
}

// putHead writes, for Begin's and BeginEntry's fast paths, the tag of
// field wf at b[k:] (into the capacity of b) and reserves the length
// prefix of its body (zeros: see putTag; at most 4 bytes, see
// learnState); it returns the body's offset and the width reserved.
func (w *Writer) putHead(b []byte, k int, wf *wslot) (int, int) {
	k = putTag(b, k, wf)
	r := 1
	if w.opts.Lengths == LengthLearned {
		r = wf.Rec.Learn.Guess()
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
	w.fast = c
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

// childTab returns the table of the message target t holds.
func childTab(fr *wframe, t target) *wtable {
	if t.idx >= 0 {
		return childOf(fr.tab, t.idx)
	}
	return extTable(t.x, profileOf(fr.tab))
}

func (w *Writer) begin(t target) {
	fr := &w.frames[len(w.frames)-1]
	f := t.f
	child := childTab(fr, t)
	if !f.Map && child.Layout.MessageSet {
		w.fail(ErrMessageSet, f, "")
		return
	}
	if w.depth >= w.maxDepth { // a message and a map entry alike are a level
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
	switch {
	case f.Group:
	case w.depth >= deferDepth:
		// Deep: the widest length prefix, shrunk when the part ends
		// (see deferDepth).
		w.buf = append(w.buf, 0, 0, 0, 0, 0)
		w.addSlack(deferredWidth - 1)
		width = deferredWidth
	default:
		width = w.reserve(learnFor(fr, t))
	}
	w.push(child, width, f.Map)
	w.depth++
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
			w.check()
			return
		}
	}
	n := len(w.frames)
	size := len(w.buf) - fr.start
	w.tick++
	// The common case, with no call, so that nothing is saved on the
	// stack around one: a body under 128 bytes in the byte reserved for
	// it (the smallest output size stays what it was: no limit to check),
	// below the top level, not sampled. The rest goes to endRare.
	if fr.width == 1 && size < 1<<7 && n > 2 && w.tick%learnSample != 0 && fr.gaps == 0 {
		w.buf[fr.start-1] = byte(size)
	} else if !w.endRare(fr, n, size) {
		w.endSlow()
		w.check()
		return
	}
	w.frames = w.frames[:n-1]
	w.depth--
	// The parent holds no open packed record (opening this frame closed
	// it), the Writer is still open and without error, and the parent is
	// not a map entry, or one whose key is written (a BeginEntry fast
	// path): the fast paths may use it.
	w.fast = fr.parent
	w.check()
}

// endRare is End's fast path for what End does not do inline: it writes
// the length of body fr (n frames open, size bytes), moving the body when
// it needs another width than was reserved, samples its width every
// learnSample bodies, and records a top-level item's range. It reports
// false, having changed nothing, when the general path must decide (the
// size limit is near).
func (w *Writer) endRare(fr *wframe, n, size int) bool {
	switch {
	case fr.width == deferredWidth || fr.gaps != 0:
		if !w.room(0) {
			w.tick-- // End counts again on the general path
			return false
		}
		size = w.closeGapped(fr, n, nil)
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
		w.learnOf(n - 1).Record(wire.SizeVarint(uint64(size)))
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
			defVal = fr.tab.DefVal
		}
		grow += len(defKey) + len(defVal)
		lb += len(defKey) + len(defVal)
	}
	if f.Group {
		lb += len(f.EndTag)
	} else {
		lb += wire.SizeVarint(uint64(len(w.buf)-fr.start-fr.gaps+grow)) - 1
	}
	if w.over(lb) {
		w.failOpen(ErrSizeExceeded, "")
		return
	}
	if fr.pack >= 0 {
		w.closePacked(fr)
	}
	if fr.entry {
		entryPost(w, fr, target{idx: 1}, defKey, 0, "")
		w.buf = append(w.buf, defVal...)
	}
	tagAt := w.tagAt(n - 1)
	switch {
	case f.Group:
		w.buf = append(w.buf, f.EndTag...)
		if fr.gaps != 0 {
			w.closeGapped(fr, n, nil)
		}
	case fr.width == deferredWidth || fr.gaps != 0:
		w.closeGapped(fr, n, w.learnOf(n-1))
	default:
		w.patch(fr.start, int(fr.width), w.learnOf(n-1))
	}
	w.frames = w.frames[:n-1]
	w.depth--
	if n == 2 {
		w.lastAt, w.lastN = tagAt, len(w.buf)-tagAt
	}
	w.setTop()
}

// learnFor returns the learned-width record of target t.
func learnFor(fr *wframe, t target) *learnState {
	if t.idx >= 0 {
		return &fr.tab.Fields[t.idx].Learn
	}
	return t.x.Learned
}

// reserve appends room for a length prefix and returns its width.
func (w *Writer) reserve(l *learnState) int {
	r := 1
	if w.opts.Lengths == LengthLearned {
		r = l.Guess()
	}
	w.buf = append(w.buf, make([]byte, r)...)
	w.addSlack(r - 1)
	return r
}

// patch writes the length of the body that runs from start to the end of
// the buffer into the r bytes reserved before it, moving the body when the
// length needs another width.
func (w *Writer) patch(start, r int, l *learnState) {
	b := w.buf
	n := len(b) - start
	if l != nil { // every strategy samples, as End's fast path does
		w.tick++
		if w.tick%learnSample == 0 {
			l.Record(wire.SizeVarint(uint64(n)))
		}
	}
	// The common cases: the width reserved is the width needed.
	switch {
	case r == 1 && n < 1<<7:
		b[start-1] = byte(n)
		return
	case r == 2 && n >= 1<<7 && n < 1<<14:
		_ = b[start-1]
		b[start-2] = byte(n) | 0x80
		b[start-1] = byte(n >> 7)
		w.addSlack(-1)
		return
	}
	a := wire.SizeVarint(uint64(n))
	if a != r {
		w.stats.Moves++
		w.stats.MovedBytes += n
		if a > r {
			w.buf = append(w.buf, make([]byte, a-r)...)
		}
		copy(w.buf[start-r+a:], w.buf[start:start+n])
		w.buf = w.buf[:start-r+a+n]
	}
	wire.AppendVarint(w.buf[start-r:start-r], uint64(n))
	w.addSlack(1 - r)
}

// deferDepth is the depth past which a length-prefixed part reserves the
// widest length prefix (deferredWidth bytes) instead of the learned
// width. Nested parts whose learned width is too small would each move
// their body when they end, and a chain of them moves its bytes once per
// level: quadratic in depth. A deferred part writes its length in the
// first bytes of its reservation and leaves the rest as a gap, recorded in
// gapList and counted in its parent's gaps (and in slack, as bytes the
// output will not have); the first part at deferDepth or above that ends
// with gaps in its body removes them all in one pass. So every byte moves
// at most deferDepth+1 times, whatever the depth, and messages less deep
// than deferDepth are written as before.
const deferDepth = 16

// deferredWidth is the widest length prefix: lengths below 2^35.
const deferredWidth = 5

// gap is a run of n bytes at offset at of the buffer that the output
// will not have.
type gap struct{ at, n int }

// closeGapped ends frame fr (n frames open; its body written, a group's
// end tag too) when it is deferred or holds gaps, and returns the length
// of its body. A deferred frame writes its length and leaves the rest of
// its reservation as a gap, for its parent; a frame that is not removes
// the gaps in its body, then writes its length as patch does (l is the
// learned width to sample, or nil).
func (w *Writer) closeGapped(fr *wframe, n int, l *learnState) int {
	parent := &w.frames[n-2]
	body := len(w.buf) - fr.start - fr.gaps
	if fr.width == deferredWidth { // only deferred parts reserve that many (learned widths stop at 4)
		a := wire.SizeVarint(uint64(body))
		at := fr.start - deferredWidth
		wire.AppendVarint(w.buf[at:at], uint64(body))
		g := deferredWidth - a
		if g > 0 {
			w.gapList = append(w.gapList, gap{at + a, g})
		}
		// The part's reservation leaves slack; its gap joins it.
		w.addSlack(1 - a)
		parent.gaps += fr.gaps + g
		fr.gaps = 0
		return body
	}
	if fr.width == 0 && w.depth > deferDepth { // a deep group: its parent removes the gaps
		parent.gaps += fr.gaps
		fr.gaps = 0
		return body
	}
	w.removeGaps(fr.start)
	fr.gaps = 0
	if fr.width != 0 {
		w.patch(fr.start, int(fr.width), l)
	}
	return body
}

// removeGaps removes from the buffer every recorded gap at or after from
// (those of the parts that closed inside the body starting there, the
// last ones recorded), in one pass that moves each byte after the first
// gap once.
func (w *Writer) removeGaps(from int) {
	k := len(w.gapList)
	for k > 0 && w.gapList[k-1].at >= from {
		k--
	}
	gs := w.gapList[k:]
	if len(gs) == 0 {
		return
	}
	slices.SortFunc(gs, func(a, b gap) int { return cmp.Compare(a.at, b.at) })
	dst, removed := gs[0].at, 0
	for i, g := range gs {
		end := len(w.buf)
		if i+1 < len(gs) {
			end = gs[i+1].at
		}
		dst += copy(w.buf[dst:], w.buf[g.at+g.n:end])
		removed += g.n
	}
	w.stats.Moves++
	w.stats.MovedBytes += len(w.buf) - removed - gs[0].at
	w.buf = w.buf[:len(w.buf)-removed]
	w.addSlack(-removed)
	w.gapList = w.gapList[:k]
}
