package fault

import (
	"github.com/protolayout/protolayout/internal/layout"
	"github.com/protolayout/protolayout/internal/wire"
)

// Levels is a recursive encoder's check of nesting: the depth limit, the
// levels it follows on the goroutine stack, and messages that contain
// themselves, found by the walker's rule (wire.CycleLevel) where the
// walker finds them. P identifies a message (its address); its zero
// value is none.
//
// The encoder calls Check for each message it enters past level Deep,
// and Past for a level that holds no message (a map's entries).
type Levels[P comparable] struct {
	// Deep is the level past which Check is called: the lower of Limit
	// and the level before wire.CycleLevel.
	Deep int
	// Limit is the deepest level the encoder follows (MaxDepth, at most
	// wire.MaxStackDepth), MaxDepth the caller's depth limit.
	Limit, MaxDepth int
	// ref is the message of the current path at wire.CycleLevel (or,
	// when that level is a map entry, the entry's value).
	ref P
}

// NewLevels returns the check for an encoder under the depth limit
// maxDepth, which it follows on the goroutine stack up to
// wire.MaxStackDepth levels.
func NewLevels[P comparable](maxDepth int) Levels[P] {
	var l Levels[P]
	l.Init(maxDepth)
	return l
}

// Init makes l, a zero Levels, NewLevels(maxDepth), in place.
func (l *Levels[P]) Init(maxDepth int) {
	limit := min(maxDepth, wire.MaxStackDepth)
	l.Deep, l.Limit, l.MaxDepth = min(limit, wire.CycleLevel-1), limit, maxDepth
}

// Check reports whether the encoder stops at the message p of field f at
// level depth (past Deep): past the levels it follows (the walk takes
// the message), or, as the walker finds them, past the depth limit or
// back at the message the walker compares with (a fault of f, recorded
// in t). entryAbove says the level above is a map entry, whose value at
// wire.CycleLevel+1 is the message compared with.
func (l *Levels[P]) Check(t *Trail, f *layout.Field, p P, depth int, entryAbove bool) bool {
	var none P
	switch {
	case depth > l.MaxDepth:
		t.Fail(DepthExceeded, f, 0)
	case depth > l.Limit:
	case depth == wire.CycleLevel, depth == wire.CycleLevel+1 && entryAbove:
		l.ref = p
		return false
	case depth > wire.CycleLevel && p != none && p == l.ref:
		t.Fail(Cycle, f, 0)
	default:
		return false
	}
	return true
}

// Past reports whether level depth, which holds no message (the entries
// of the map field f), is past the levels the encoder follows, and
// records in t the depth fault of f if it is past the depth limit.
func (l *Levels[P]) Past(t *Trail, f *layout.Field, depth int) bool {
	if depth <= l.Limit {
		return false
	}
	if depth > l.MaxDepth {
		t.Fail(DepthExceeded, f, 0)
	}
	return true
}
