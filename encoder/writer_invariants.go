//go:build protolayout_debug

package encoder

import (
	"bytes"
	"fmt"
	"runtime"

	"google.golang.org/protobuf/encoding/protowire"
)

// With the protolayout_debug build tag, every exported Writer method ends
// with check, which panics when the Writer's state breaks one of the
// invariants below (invariantError). Without the tag check does nothing
// (writer_invariants_off.go). Run the tests with it:
//
//	go test -short -tags protolayout_debug ./encoder/...
//
// A call changes the innermost frame, and the one below it when it opens
// or closes a frame (or a map entry records its key there), so the checks
// of a frame's fields and of its table run for the two innermost frames
// only: each frame had them after every call that could change it. The
// rest is checked over the whole stack, after every call.

// check panics if the Writer's state breaks an invariant, naming the
// method that left it so.
//
//go:noinline
func (w *Writer) check() {
	err := w.invariantError()
	if err == nil {
		return
	}
	name := "?"
	pc := make([]uintptr, 1)
	if runtime.Callers(2, pc) == 1 {
		f, _ := runtime.CallersFrames(pc).Next()
		name = f.Function
	}
	panic(fmt.Sprintf("encoder: Writer invariant broken after %s: %v", name, err))
}

// invariantError returns the first invariant the Writer's state breaks,
// or nil.
func (w *Writer) invariantError() error {
	if err := w.stateError(); err != nil {
		return err
	}
	if err := w.bufferError(); err != nil {
		return err
	}
	if err := w.stackError(); err != nil {
		return err
	}
	if err := w.fastError(); err != nil {
		return err
	}
	if err := w.statsError(); err != nil {
		return err
	}
	for k, x := range w.exts {
		if x != nil && (x.F.Number != k.num || !x.F.Extension) {
			return fmt.Errorf("extension record of %s filed under number %d", x.F.FullName, k.num)
		}
	}
	return nil
}

// stateError checks the life cycle state and the sticky error.
func (w *Writer) stateError() error {
	switch w.state {
	case stateZero, stateOpen, stateFinished:
	default:
		return fmt.Errorf("state %d", w.state)
	}
	if (w.root == nil) != (w.state == stateZero) {
		return fmt.Errorf("state %d with root table %v", w.state, w.root != nil)
	}
	if w.err != nil {
		e, ok := w.err.(*Error)
		if !ok || e.Err == nil {
			return fmt.Errorf("error %v is not an *Error with a reason", w.err)
		}
		if w.state == stateZero && e.Err != ErrNotStarted {
			return fmt.Errorf("a Writer with no message failed with %v", e.Err)
		}
		if w.state == stateFinished && e.Err != ErrFinished {
			return fmt.Errorf("a finished Writer failed with %v", e.Err)
		}
	}
	switch w.state {
	case stateZero:
		if len(w.frames) != 0 {
			return fmt.Errorf("%d frames open without a message", len(w.frames))
		}
	case stateOpen, stateFinished:
		if len(w.frames) == 0 || w.frames[0].tab != w.root {
			return fmt.Errorf("the bottom frame is not the top message's")
		}
	}
	if w.state == stateFinished {
		if len(w.frames) != 1 || w.frames[0].pack >= 0 {
			return fmt.Errorf("finished with %d frames open, or a packed record", len(w.frames)-1)
		}
	}
	return nil
}

// bufferError checks the buffer's offsets, the size accounting (slack
// and limit) and the last item's range.
func (w *Writer) bufferError() error {
	if w.base < 0 || w.base > len(w.buf) {
		return fmt.Errorf("base %d beyond the buffer's %d bytes", w.base, len(w.buf))
	}
	if !w.append && w.base != 0 {
		return fmt.Errorf("base %d in the Writer's own buffer", w.base)
	}
	if w.state == stateZero {
		return nil // never reset: no limits set
	}
	slack := 0
	for i := range w.frames {
		fr := &w.frames[i]
		if fr.width > 0 {
			slack += int(fr.width) - 1
		}
		if fr.pack >= 0 {
			slack += fr.packWidth - 1
		}
		slack += fr.gaps // closed deep parts' gaps, still to be removed
	}
	if w.slack != slack {
		return fmt.Errorf("slack %d, but the open length prefixes reserve %d bytes beyond one each and the gaps hold the rest", w.slack, slack)
	}
	pending := 0
	for i, g := range w.gapList {
		if g.n <= 0 || g.n >= deferredWidth || g.at < w.base || g.at+g.n > len(w.buf) || !zeros(w.buf[g.at:g.at+g.n]) {
			return fmt.Errorf("gap %d: %d bytes at %d, not a run of zeros left by a deferred length prefix", i, g.n, g.at)
		}
		pending += g.n
	}
	gaps := 0
	for i := range w.frames {
		gaps += w.frames[i].gaps
	}
	if pending != gaps {
		return fmt.Errorf("%d bytes of gaps recorded, but the open frames count %d", pending, gaps)
	}
	if want := w.base + w.slack + w.maxSize - fastRoom; w.limit != want {
		return fmt.Errorf("limit %d, want base+slack+maxSize-fastRoom = %d", w.limit, want)
	}
	if size := len(w.buf) - w.base - w.slack; size > w.maxSize {
		return fmt.Errorf("smallest output size %d above the limit %d", size, w.maxSize)
	}
	if w.lastAt < 0 {
		if w.lastAt != -1 || w.lastN != 0 {
			return fmt.Errorf("no last item, but offset %d and length %d", w.lastAt, w.lastN)
		}
		return nil
	}
	if w.lastAt < w.base || w.lastN < 2 || w.lastAt+w.lastN > len(w.buf) {
		return fmt.Errorf("last item [%d:+%d] outside the message [%d:%d]", w.lastAt, w.lastN, w.base, len(w.buf))
	}
	num, _, n := protowire.ConsumeTag(w.buf[w.lastAt : w.lastAt+w.lastN])
	if n < 0 || w.root.Layout.ByNumber(num) == nil && !w.root.Layout.Extendable {
		return fmt.Errorf("last item at %d does not start with a tag of the top message's", w.lastAt)
	}
	return nil
}

// stackError checks the frame stack: links, the field that opened each
// frame and its tag, the reserved length prefixes (still zero), the
// depth, and the frames' field state.
func (w *Writer) stackError() error {
	n := len(w.frames)
	depth := 0
	for i := range w.frames {
		fr := &w.frames[i]
		if fr.tab == nil {
			return fmt.Errorf("frame %d has no table", i)
		}
		if fr.start < w.base || fr.start > len(w.buf) {
			return fmt.Errorf("frame %d starts at %d, outside the message [%d:%d]", i, fr.start, w.base, len(w.buf))
		}
		if fr.pack >= 0 && i != n-1 {
			return fmt.Errorf("frame %d of %d holds an open packed record", i, n)
		}
		if i == 0 {
			if fr.parent != nil || fr.width != 0 || fr.entry || fr.start != w.base || !fr.slowEnd {
				return fmt.Errorf("root frame: parent %v, width %d, entry %v, start %d (base %d), slowEnd %v",
					fr.parent != nil, fr.width, fr.entry, fr.start, w.base, fr.slowEnd)
			}
		} else {
			if err := w.openedError(i); err != nil {
				return err
			}
			depth++ // map entries are a level, as for the decoder
		}
		if i >= n-2 {
			if err := w.frameError(i); err != nil {
				return err
			}
			if err := tableError(fr.tab); err != nil {
				return err
			}
		}
	}
	if w.depth != depth {
		return fmt.Errorf("depth %d, but %d frames are open below the root", w.depth, depth)
	}
	if w.depth > w.maxDepth {
		return fmt.Errorf("depth %d beyond the limit %d", w.depth, w.maxDepth)
	}
	return nil
}

// openedError checks frame i (i >= 1) against the field of its parent
// that opened it.
func (w *Writer) openedError(i int) error {
	fr, p := &w.frames[i], &w.frames[i-1]
	if fr.parent != p {
		return fmt.Errorf("frame %d: parent is not the frame below", i)
	}
	f := p.current()
	if f == nil || !f.IsMessage() {
		return fmt.Errorf("frame %d: the parent's current field does not hold messages", i)
	}
	want := f.Message()
	if f.Map {
		want = f.Entry()
	}
	if fr.tab.Layout != want || fr.entry != f.Map || fr.tab.Entry != f.Map {
		return fmt.Errorf("frame %d: table %s (entry %v) for field %s", i, fr.tab.Layout.FullName, fr.entry, f.FullName)
	}
	if profileOf(fr.tab) != profileOf(p.tab) {
		return fmt.Errorf("frame %d: table for profile %v below one for %v", i, profileOf(fr.tab), profileOf(p.tab))
	}
	if fr.entry && p.entry {
		return fmt.Errorf("frame %d: a map entry in a map entry", i)
	}
	if (f.List || f.Map) && p.count < 1 {
		return fmt.Errorf("frame %d: element %d of field %s", i, p.count-1, f.FullName)
	}
	// Frames deeper than deferDepth reserve deferredWidth bytes, the
	// others at most 4 (the learned width).
	if deep := i > deferDepth && !f.Group; (fr.width == 0) != f.Group || deep != (fr.width == deferredWidth) || fr.width > deferredWidth {
		return fmt.Errorf("frame %d: %d bytes reserved for the length of field %s (group %v)", i, fr.width, f.FullName, f.Group)
	}
	if (fr.width == 0 || fr.entry || w.checksRequired(fr.tab)) && !fr.slowEnd {
		return fmt.Errorf("frame %d: End would take the fast path", i)
	}
	at := w.tagAt(i)
	if at < p.start {
		return fmt.Errorf("frame %d: tag at %d, before its parent's body at %d", i, at, p.start)
	}
	if !bytes.Equal(w.buf[at:at+len(f.Tag)], f.Tag) {
		return fmt.Errorf("frame %d: % x at %d, not the tag % x of field %s", i, w.buf[at:at+len(f.Tag)], at, f.Tag, f.FullName)
	}
	if r := w.buf[fr.start-int(fr.width) : fr.start]; !zeros(r) {
		return fmt.Errorf("frame %d: reserved length prefix % x written while open", i, r)
	}
	return nil
}

// frameError checks the field state of frame i: the current field and
// phase, the written bits (none after the current field in the table's
// order, one member per oneof, a map entry's value after its key), the
// open packed record.
func (w *Writer) frameError(i int) error {
	fr := &w.frames[i]
	lay := fr.tab.Layout
	nf := len(lay.Fields)
	switch fr.phase {
	case phaseExt:
		// Under a canonical profile an extension among the fields leaves
		// posExt.
		if fr.pos != -1 && (fr.pos != posExt || profileOf(fr.tab) == 0 || fr.ext == 0) {
			return fmt.Errorf("frame %d: field %d current among extensions", i, fr.pos)
		}
		if fr.ext != 0 && (!lay.Extendable || fr.curExt == nil || fr.curExt.F.Number != fr.ext) {
			return fmt.Errorf("frame %d: current extension %d without its record", i, fr.ext)
		}
	case phaseFields:
		if fr.pos < 0 || fr.pos >= nf || !fr.isWritten(fr.pos) {
			return fmt.Errorf("frame %d: current field %d not written", i, fr.pos)
		}
	case phaseUnknown:
		if fr.pos < -1 || fr.pos >= nf && (fr.pos != posExt || profileOf(fr.tab) == 0) || fr.entry {
			return fmt.Errorf("frame %d: unknown fields after field %d (entry %v)", i, fr.pos, fr.entry)
		}
	default:
		return fmt.Errorf("frame %d: phase %d", i, fr.phase)
	}
	if fr.tab.Wide && len(fr.writtenHi) != (nf-1)>>6 {
		return fmt.Errorf("frame %d: %d words of written bits beyond the first for %d fields", i, len(fr.writtenHi), nf)
	}
	if nf < 64 && fr.written>>uint(nf) != 0 {
		return fmt.Errorf("frame %d: written bits %#x beyond its %d fields", i, fr.written, nf)
	}
	if profileOf(fr.tab) == 0 {
		for j := max(fr.pos+1, 0); j < nf; j++ {
			if fr.isWritten(j) {
				return fmt.Errorf("frame %d: field %s written, after the current field %d", i, lay.Fields[j].FullName, fr.pos)
			}
		}
	} else if fr.phase != phaseUnknown {
		// Number order: nothing numbered above the current field (the
		// unknown fields' phase does not say which field came last).
		above := protowire.Number(0)
		if cur := fr.current(); cur != nil {
			above = cur.Number
		}
		for j := range nf {
			if fr.isWritten(j) && lay.Fields[j].Number > above {
				return fmt.Errorf("frame %d: field %s written, numbered above the current field's %d", i, lay.Fields[j].FullName, above)
			}
		}
	}
	for _, o := range lay.Oneofs {
		c := 0
		for j := o.First; j < o.End; j++ {
			if fr.isWritten(j) {
				c++
			}
		}
		if c > 1 {
			return fmt.Errorf("frame %d: %d members of oneof %s written", i, c, o.Name)
		}
	}
	if fr.entry && (nf != 2 || fr.isWritten(1) && !fr.isWritten(0)) {
		return fmt.Errorf("frame %d: map entry with %d fields, written %#x", i, nf, fr.written)
	}
	if fr.count < 0 {
		return fmt.Errorf("frame %d: %d elements", i, fr.count)
	}
	switch {
	case fr.pack < -1:
		return fmt.Errorf("frame %d: packed record at %d", i, fr.pack)
	case fr.pack >= 0:
		f := fr.current()
		if f == nil || !profileOf(fr.tab).packs(f) {
			return fmt.Errorf("frame %d: packed record open for a field not packed", i)
		}
		head := fr.pack - fr.packWidth - len(f.PackedTag)
		if fr.packWidth < 1 || fr.packWidth > 5 || head < fr.start || fr.pack > len(w.buf) {
			return fmt.Errorf("frame %d: packed record at %d (%d bytes reserved) outside the body [%d:%d]", i, fr.pack, fr.packWidth, fr.start, len(w.buf))
		}
		if !bytes.Equal(w.buf[head:head+len(f.PackedTag)], f.PackedTag) {
			return fmt.Errorf("frame %d: packed record of field %s without its tag", i, f.FullName)
		}
		if r := w.buf[fr.pack-fr.packWidth : fr.pack]; !zeros(r) {
			return fmt.Errorf("frame %d: reserved length prefix % x of the packed record written while open", i, r)
		}
	}
	return nil
}

// fastError checks that the fast paths are on exactly when they may be:
// on the innermost frame, with no error, open, no packed record open,
// before unknown fields, and not in a map entry unless its key is written
// (a BeginEntry fast path).
func (w *Writer) fastError() error {
	n := len(w.frames)
	var top *wframe
	if n > 0 {
		top = &w.frames[n-1]
	}
	may := w.err == nil && w.state == stateOpen && top != nil && top.pack < 0 && top.phase != phaseUnknown
	if w.fast == nil {
		if may && !top.entry {
			return fmt.Errorf("fast paths off in frame %d, which they may write", n-1)
		}
		return nil
	}
	if !may || w.fast != top || top.entry && !top.isWritten(0) {
		return fmt.Errorf("fast paths on a frame they may not write (error %v, state %d)", w.err, w.state)
	}
	return nil
}

// statsError checks the counts of moves.
func (w *Writer) statsError() error {
	s := w.stats
	size := len(w.buf) - w.base
	if s.Moves < 0 || s.MovedBytes < 0 || s.Moves == 0 && s.MovedBytes != 0 || s.MovedBytes > s.Moves*size {
		return fmt.Errorf("%d moves of %d bytes in a message of %d bytes", s.Moves, s.MovedBytes, size)
	}
	// With one byte reserved, only bodies of 128 bytes or more move.
	if w.opts.Lengths == LengthOneByte && s.MovedBytes < s.Moves<<7 {
		return fmt.Errorf("%d moves of %d bytes with one byte reserved", s.Moves, s.MovedBytes)
	}
	return nil
}

// tableError checks table t against its layout: the index is the
// layout's, the slots follow it (slot p+1 is field p's, slot 0 the zero
// slot), the flags are the layout's.
func tableError(t *wtable) error {
	lay := t.Layout
	nf := len(lay.Fields)
	if tableFor(lay, profileOf(t)) != t {
		return fmt.Errorf("table of %s for profile %v not its layout's", lay.FullName, profileOf(t))
	}
	if len(t.Fields) != nf || t.Entry != lay.MapEntry || t.MessageSet != lay.MessageSet || t.Wide != (nf > 64) {
		return fmt.Errorf("table of %s: flags or records disagree with the layout", lay.FullName)
	}
	if t.HasRequired != lay.Required {
		return fmt.Errorf("table of %s: required fields %v, the layout says %v", lay.FullName, t.HasRequired, lay.Required)
	}
	if !sameSlice(t.NumIndex, lay.NumberIndex()) {
		return fmt.Errorf("table of %s: index by number not the layout's", lay.FullName)
	}
	if len(t.Slots) != nf+1 || t.Slots[0].F != nil || t.Slots[0].Fast != 0 {
		return fmt.Errorf("table of %s: %d slots for %d fields, or a zero slot in use", lay.FullName, len(t.Slots), nf)
	}
	for p := range lay.Fields {
		s, f := &t.Slots[p+1], &lay.Fields[p]
		if s.F != f || int(s.Idx) != p || s.Rec != &t.Fields[p] {
			return fmt.Errorf("table of %s: slot %d not field %d's", lay.FullName, p+1, p)
		}
		if c := s.Child.Load(); c != nil && c != t.Fields[p].Child.Load() {
			return fmt.Errorf("table of %s: slot %d has another child table than field %d", lay.FullName, p+1, p)
		}
		if c := t.Fields[p].Child.Load(); c != nil && c.Profile != t.Profile {
			return fmt.Errorf("table of %s for profile %v: field %d's child table is for %v", lay.FullName, profileOf(t), p, profileOf(c))
		}
	}
	return nil
}

// sameSlice reports whether a and b are the same slice of the same array.
func sameSlice[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

func zeros(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
