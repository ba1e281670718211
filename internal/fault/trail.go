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
	// steps are the levels passed, innermost first: those of the faults
	// set aside (Save) before base, the recorded fault's from base on.
	steps []step
	base  int
}

// Saved is a fault set aside by Trail.Save.
type Saved struct {
	code      Fault
	field     *layout.Field
	spent     uint64
	base, end int
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
	}
	return false
}

// Failed reports whether a fault is recorded.
func (t *Trail) Failed() bool { return t != nil && t.code != OK }

// Up adds n bytes counted at a level the fault passes up through.
func (t *Trail) Up(n int) {
	if t.Failed() {
		t.spent += uint64(n)
	}
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
		t.steps = append(t.steps, step{f: f, index: int32(index)})
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
		t.steps = append(t.steps, step{index: -1})
	}
	t.steps = append(t.steps, step{f: f, index: -1, entry: true, kw: kw, ks: ks})
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
	s := Saved{code: t.code, field: t.field, spent: t.spent, base: t.base, end: len(t.steps)}
	t.code, t.field, t.spent, t.base = OK, nil, 0, len(t.steps)
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
// pass maxSize (the walk then fails on the size first).
func (t *Trail) Result(maxSize int) (Fault, *layout.Field, string) {
	if !t.Failed() || t.spent > uint64(maxSize) {
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
	if cap(t.steps) > 1<<10 {
		t.steps = nil
	}
}
