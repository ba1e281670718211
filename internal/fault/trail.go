package fault

import (
	"github.com/protolayout/protolayout/internal/layout"
	"github.com/protolayout/protolayout/internal/wire"
)

// Trail is where an encoder that recurses over a message (the engine,
// the direct encoder of package dynamic) records a fault its size pass
// finds, with the path to it, so that the error names the field where
// the walk would name it, without the message being walked again.
//
// The encoder records the fault where it finds it (Fail); then, as the
// fault passes up through each level on its way out, the level records
// the step that led into it (Enter, EnterEntry) and the bytes it had
// counted before it (Up). An encoder records a fault only where the
// walk, which stops at the first fault in emission order, would report
// the same one; any cause the walk would meet first makes it give up
// instead, except one it cannot see from where the fault is: the walk's
// running sums, checked against the size limit item by item. The sum of
// the bytes the levels counted bounds every running sum of the walk at
// that point, and Result keeps the fault only if it is within the limit.
//
// A size fault (SizeExceeded, recorded by Exceeded) is the walk's where
// the bytes each level had counted before the step the fault passed
// through (its running sum at that point) are within the limit, each
// level on its own, as the walk checks them: Result keeps it only then.
//
// An encoder that meets a fault in an order other than the walk's (a
// map's entries, in map order, where the walk sorts them) sets it aside
// (Save), looks for an earlier one, and keeps one of the two (Restore,
// Drop).
//
// A nil *Trail records nothing. The zero Trail is empty; Reset empties
// it for the next call, dropping what it refers to.
type Trail struct {
	code  Fault
	field *layout.Field
	spent uint64
	// level is what the level the fault is passing up through has
	// counted so far, peak the most any level it passed had counted.
	level, peak uint64
	// steps are the levels passed, innermost first: those of the faults
	// set aside (Save) before base, the recorded fault's from base on.
	steps []step
	base  int
}

// Saved is a fault set aside by Trail.Save.
type Saved struct {
	code        Fault
	field       *layout.Field
	spent       uint64
	level, peak uint64
	base, end   int
}

// step is a level a fault passed up through: a message entered through
// field f (as element index, or -1), a map entry of field f (its key),
// or, with f nil, a map entry's value message, which the entry names.
type step struct {
	f     *layout.Field
	index int32
	entry bool
	kw    uint64
	ks    string
}

// Fail records fault c of field f (nil for none), found after n bytes
// counted at its level, and returns false, for the caller to return.
func (t *Trail) Fail(c Fault, f *layout.Field, n int) bool {
	if t != nil {
		t.code, t.field, t.spent = c, f, uint64(n)
		t.level, t.peak = uint64(n), 0
	}
	return false
}

// Exceeded records the size limit passed at item f (nil for a
// message's unknown bytes) of a level that had counted n bytes before
// it (see Crossing), and returns false, for the caller to return.
func (t *Trail) Exceeded(f *layout.Field, n int) bool {
	return t.Fail(SizeExceeded, f, n)
}

// Failed reports whether a fault is recorded.
func (t *Trail) Failed() bool { return t != nil && t.code != OK }

// Up adds n bytes counted at a level the fault passes up through.
func (t *Trail) Up(n int) {
	if t.Failed() {
		t.spent += uint64(n)
		t.level += uint64(n)
	}
}

// push records step s, ending the level the fault was passing up
// through: the next counts bytes of the level that holds it, which starts
// with level bytes. (Not inlined: it is off the size passes' common
// path, which inline Enter.)
//
//go:noinline
func (t *Trail) push(s step, level uint64) {
	t.steps = append(t.steps, s)
	t.peak = max(t.peak, t.level)
	t.level = level
}

// Counted is a level's check after counting one of its parts, x bytes,
// in a count of n bytes within limit: ok false means the part failed,
// and its fault (if any) passes up with the n bytes the level had
// counted (Up); otherwise it reports whether the x bytes fit (wire.Fits).
func (t *Trail) Counted(n, x int, ok bool, limit int) bool {
	if !ok {
		t.Up(n)
		return false
	}
	return wire.Fits(n, x, limit)
}

// Enter records the level the fault passes up through: a message entered
// through field f, as element index (or -1).
func (t *Trail) Enter(f *layout.Field, index int) {
	if t.Failed() {
		t.push(step{f: f, index: int32(index)}, 0)
	}
}

// EnterEntry records the entry of map field f, of key word kw or string
// key ks, that the fault passes up through; value says the fault came
// from the entry's message value.
func (t *Trail) EnterEntry(f *layout.Field, kw uint64, ks string, value bool) {
	if !t.Failed() {
		return
	}
	if value {
		// The entry had counted its key before its value: no more
		// than the key's tag, a length and ten bytes of a number or
		// the string key's bytes.
		t.push(step{index: -1}, uint64(len(f.MapKey.Tag)+15+len(ks)))
	}
	t.push(step{f: f, index: -1, entry: true, kw: kw, ks: ks}, 0)
}

// Entry returns the key, word kw or string ks, of the map entry the
// recorded fault last passed up through (EnterEntry); ok is false if
// none is recorded or it last passed another level.
func (t *Trail) Entry() (kw uint64, ks string, ok bool) {
	if !t.Failed() || len(t.steps) == t.base || !t.steps[len(t.steps)-1].entry {
		return 0, "", false
	}
	s := &t.steps[len(t.steps)-1]
	return s.kw, s.ks, true
}

// Save sets the recorded fault aside and empties the trail, for the
// encoder to look for an earlier fault; Restore or Drop then ends the
// search, before the fault passes further up.
func (t *Trail) Save() Saved {
	if t == nil {
		return Saved{}
	}
	s := Saved{code: t.code, field: t.field, spent: t.spent, level: t.level, peak: t.peak, base: t.base, end: len(t.steps)}
	t.code, t.field, t.spent, t.base = OK, nil, 0, len(t.steps)
	t.level, t.peak = 0, 0
	return s
}

// Restore brings back the fault s set aside, dropping any recorded
// since.
func (t *Trail) Restore(s Saved) {
	if t == nil {
		return
	}
	clear(t.steps[s.end:])
	t.steps = t.steps[:s.end]
	t.code, t.field, t.spent, t.base = s.code, s.field, s.spent, s.base
	t.level, t.peak = s.level, s.peak
}

// Drop drops the fault s set aside, keeping the one recorded since, or
// leaving the trail empty if none was.
func (t *Trail) Drop(s Saved) {
	if t == nil {
		return
	}
	n := copy(t.steps[s.base:], t.steps[s.end:])
	clear(t.steps[s.base+n:])
	t.steps = t.steps[:s.base+n]
	t.base = s.base
}

// Result returns the recorded fault, its field and its path, as the walk
// names them, or OK if none is recorded or the bytes counted before it
// pass maxSize (the walk then fails on the size first): for a size fault,
// the bytes of any one level.
func (t *Trail) Result(maxSize int) (Fault, *layout.Field, string) {
	if !t.Failed() {
		return OK, nil, ""
	}
	if t.code == SizeExceeded {
		if max(t.peak, t.level) > uint64(maxSize) {
			return OK, nil, ""
		}
	} else if t.spent > uint64(maxSize) {
		return OK, nil, ""
	}
	steps := t.steps[t.base:]
	f := t.field
	if len(steps) > 0 && steps[0].entry {
		f = nil // the entry's key locates the fault
	}
	n := len(steps)
	path := AppendSteps(nil, n, func(i int) PathStep {
		s := &steps[n-1-i]
		switch {
		case s.entry:
			return PathStep{Field: s.f, Index: -1, Key: func(b []byte) []byte {
				return AppendKey(b, s.f.MapKey.Kind, s.kw, s.ks)
			}}
		case s.f == nil:
			return PathStep{}
		}
		return PathStep{Field: s.f, Index: int(s.index)}
	}, f)
	return t.code, t.field, string(path)
}

// Reset empties t, dropping the references it holds.
func (t *Trail) Reset() {
	if t == nil {
		return
	}
	clear(t.steps)
	t.code, t.field, t.spent, t.steps, t.base = OK, nil, 0, t.steps[:0], 0
	t.level, t.peak = 0, 0
	if cap(t.steps) > 1<<10 {
		t.steps = nil
	}
}

// Crossing finds, among the items of one level counted in the walk's
// order, the one at which the walk's running sum of the level passes
// the size limit: the walk fails there, naming the item's field, unless
// the item is itself a part whose own sum passed the limit first (the
// walk then fails inside it). A Crossing with Limit set, N 0, starts a
// level.
type Crossing struct {
	// Limit is the size limit.
	Limit int
	// N is the bytes counted: before the item that passed the limit,
	// once one has.
	N int
}

// Names reports whether the walk, its running sum passing the limit at
// item f (nil for unknown bytes) of x bytes, names f: unless f is a map
// larger than the limit, one of whose entries may pass it by itself,
// where the walk would name the entry.
func (c *Crossing) Names(f *layout.Field, x int) bool {
	return f == nil || !f.Map || x <= c.Limit
}

// Add counts an item of x bytes and reports whether the running sum
// passes the limit with it.
func (c *Crossing) Add(x int) bool {
	if x > c.Limit-c.N {
		return true
	}
	c.N += x
	return false
}
