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
