package layout_test

import (
	"math/bits"
	"reflect"
	"sync"
	"testing"

	"github.com/protolayout/protolayout/internal/layout"
)

// TestWriterRecordsKeptOnce checks that a layout and an extension's
// record keep the first Writer record set, whichever goroutine sets it,
// and hand every caller that one.
func TestWriterRecordsKeptOnce(t *testing.T) {
	l := layout.Of(load(t, orderProto).Messages().ByName("M"))
	if l.WriterTable() != nil {
		t.Fatal("a new layout holds a Writer table")
	}
	var f layout.Field
	if f.WriterExt() != nil {
		t.Fatal("a new record holds a Writer record")
	}
	const n = 8
	tables := make([]*layout.WriterTable, n)
	exts := make([]*layout.WriterExt, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			tables[i] = l.SetWriterTable(&layout.WriterTable{Layout: l})
			exts[i] = f.SetWriterExt(&layout.WriterExt{F: &f})
		})
	}
	wg.Wait()
	for i := range n {
		if tables[i] != l.WriterTable() || exts[i] != f.WriterExt() {
			t.Fatalf("caller %d got another record than the one kept", i)
		}
	}
}

// TestLearnedWidth checks the learned width's guess: 1 with no samples,
// then the width recorded most often, the smaller on ties, with width 5
// counted as 4.
func TestLearnedWidth(t *testing.T) {
	var s layout.LearnedWidth
	if g := s.Guess(); g != 1 {
		t.Fatalf("no samples: guess %d, want 1", g)
	}
	for _, c := range []struct{ w, want int }{{2, 2}, {3, 2}, {3, 3}, {5, 3}, {4, 3}, {4, 4}, {1, 4}, {1, 4}, {1, 1}} {
		s.Record(c.w)
		if g := s.Guess(); g != c.want {
			t.Fatalf("after recording %d: guess %d, want %d", c.w, g, c.want)
		}
	}
	for range 600 { // past a counter's 255: the counters halve and keep their order
		s.Record(2)
	}
	if g := s.Guess(); g != 2 {
		t.Fatalf("after many 2s: guess %d, want 2", g)
	}
}

// TestWriterSlotSize checks that a Writer slot takes 64 bytes where
// pointers take 8, so that the fast paths index the slots with a shift.
func TestWriterSlotSize(t *testing.T) {
	if bits.UintSize != 64 {
		t.Skip("the slot is sized for 64-bit pointers")
	}
	if n := reflect.TypeFor[layout.WriterSlot]().Size(); n != 64 {
		t.Errorf("a slot takes %d bytes, want 64", n)
	}
}
