package encoder_test

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/protolayout/protolayout/encoder"
)

// TestWriterGrowsWithinTheLimit feeds a Writer 1 MiB strings until it
// refuses one with ErrSizeExceeded, and checks what it allocated on the
// way: its buffer grows by at most what the size limit still allows, so
// the bytes allocated stay under 2.5 times the limit (doubling past the
// limit would have allocated about 4 times it).
func TestWriterGrowsWithinTheLimit(t *testing.T) {
	const limit = 16 << 20
	chunk := strings.Repeat("x", 1<<20)
	w := encoder.NewWriter(test3Desc, encoder.WriterOptions{MaxSize: limit})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	n := 0
	for w.Err() == nil && n < 64 {
		w.String(44, chunk) // repeated_string
		n++
	}
	runtime.ReadMemStats(&after)
	if !errors.Is(w.Err(), encoder.ErrSizeExceeded) || n != 16 {
		t.Fatalf("after %d strings of 1 MiB under a 16 MiB limit: %v", n, w.Err())
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 5*limit/2 {
		t.Fatalf("the Writer allocated %d MiB to write %d MiB under a %d MiB limit", alloc>>20, n-1, limit>>20)
	}
}

// TestWriterBufferIsLazy checks that NewWriter allocates no buffer: a
// Writer used with ResetAppend allocates nothing beyond what NewWriter
// does, and one writing into its own buffer allocates that buffer, one
// allocation, on its first write.
func TestWriterBufferIsLazy(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	buf := make([]byte, 0, 1024)
	write := func(w *encoder.Writer) {
		w.Int32(1, 7)
		w.String(14, "hello")
		if _, err := w.Finish(); err != nil {
			t.Fatal(err)
		}
	}
	newOnly := testing.AllocsPerRun(100, func() { encoder.NewWriter(test3Desc) })
	appendUse := testing.AllocsPerRun(100, func() {
		w := encoder.NewWriter(test3Desc)
		w.ResetAppend(buf[:0])
		write(w)
	})
	ownUse := testing.AllocsPerRun(100, func() { write(encoder.NewWriter(test3Desc)) })
	if appendUse != newOnly {
		t.Errorf("NewWriter, ResetAppend and a message: %v allocations; NewWriter alone: %v", appendUse, newOnly)
	}
	if ownUse != newOnly+1 {
		t.Errorf("NewWriter and a message in its own buffer: %v allocations, want NewWriter's %v and the buffer", ownUse, newOnly)
	}
	// Back from ResetAppend to its own buffer, a Writer allocates it on
	// the first write, and keeps it.
	w := encoder.NewWriter(test3Desc)
	w.ResetAppend(buf[:0])
	write(w)
	if n := testing.AllocsPerRun(100, func() { w.Reset(); write(w) }); n != 0 {
		t.Errorf("a reused Writer allocated %v times per message", n)
	}
	// An empty message before the buffer exists is empty, not nil.
	if b, err := encoder.NewWriter(test3Desc).Finish(); b == nil || len(b) != 0 || err != nil {
		t.Errorf("empty message: %v, %v", b, err)
	}
}

// BenchmarkWriterNewAppend measures a Writer made for one message
// appended to the caller's buffer: NewWriter allocates no buffer.
func BenchmarkWriterNewAppend(b *testing.B) {
	buf := make([]byte, 0, 1024)
	b.ReportAllocs()
	for b.Loop() {
		w := encoder.NewWriter(test3Desc)
		w.ResetAppend(buf[:0])
		w.Int32(1, 7)
		w.String(14, "hello")
		buf, _ = w.Finish()
	}
}
