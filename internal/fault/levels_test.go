package fault

import (
	"testing"

	"github.com/protolayout/protolayout/internal/layout"
	"github.com/protolayout/protolayout/internal/wire"
)

func TestLevels(t *testing.T) {
	f := &layout.Field{FullName: "p.M.child"}
	check := func(l *Levels[int], p, depth int, entryAbove bool) (bool, Fault) {
		var tr Trail
		stop := l.Check(&tr, f, p, depth, entryAbove)
		c, _, _ := tr.Result(1 << 20)
		return stop, c
	}
	// The depth limit, below the levels followed.
	l := NewLevels[int](3)
	if l.Deep != 3 {
		t.Errorf("Deep = %d, want 3", l.Deep)
	}
	if stop, c := check(&l, 1, 4, false); !stop || c != DepthExceeded {
		t.Errorf("level 4 under MaxDepth 3: %v, %v", stop, c)
	}
	// Past the levels followed, within the limit: stop, no fault.
	l = NewLevels[int](10000)
	if l.Deep != wire.CycleLevel-1 {
		t.Errorf("Deep = %d, want %d", l.Deep, wire.CycleLevel-1)
	}
	if stop, c := check(&l, 1, 101, false); !stop || c != OK {
		t.Errorf("level 101: %v, %v", stop, c)
	}
	// A cycle: the message at CycleLevel met again below it.
	if stop, _ := check(&l, 7, wire.CycleLevel, false); stop {
		t.Error("stopped at the reference level")
	}
	if stop, c := check(&l, 8, wire.CycleLevel+1, false); stop || c != OK {
		t.Errorf("another message below the reference: %v, %v", stop, c)
	}
	if stop, c := check(&l, 7, wire.CycleLevel+5, false); !stop || c != Cycle {
		t.Errorf("the reference again: %v, %v", stop, c)
	}
	// Under a map entry at CycleLevel, its value is the reference, and
	// not compared with itself.
	if stop, _ := check(&l, 9, wire.CycleLevel+1, true); stop {
		t.Error("stopped at an entry's value at the reference level")
	}
	if stop, c := check(&l, 9, wire.CycleLevel+3, false); !stop || c != Cycle {
		t.Errorf("the entry's value again: %v, %v", stop, c)
	}
	// No message is never a cycle.
	l = NewLevels[int](10000)
	check(&l, 0, wire.CycleLevel, false)
	if stop, _ := check(&l, 0, wire.CycleLevel+2, false); stop {
		t.Error("no message taken for a cycle")
	}
	// Past: a level of map entries.
	var tr Trail
	if l.Past(&tr, f, 100) || tr.Failed() {
		t.Error("level 100 is past the levels followed")
	}
	if !l.Past(&tr, f, 101) || tr.Failed() {
		t.Error("level 101 is not past the levels followed, or a fault within the limit")
	}
	l = NewLevels[int](5)
	if !l.Past(&tr, f, 6) || !tr.Failed() {
		t.Error("level 6 under MaxDepth 5 is no depth fault")
	}
}
