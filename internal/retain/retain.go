// Package retain decides how much scratch space a reused encoder keeps
// between calls: enough that a long-lived Encoder (or a pooled one)
// allocates nothing per call in the steady state, whatever the shape of
// the messages it encodes, and no more than its recent work justifies.
//
// A Budget remembers the largest output of the recent calls (the last
// Window calls that came after it, or a larger one since), and allows
// PerByte bytes of scratch for each byte of it, at least Floor and at most
// Max. Scratch beyond the budget is dropped when a call ends. So an Encoder
// that once encoded a huge message and then only small ones gives the
// huge scratch back after Window calls; one that keeps encoding large
// messages keeps what they need.
package retain

const (
	// Floor is the scratch always kept: what messages of up to about a
	// hundred kilobytes need.
	Floor = 4 << 20
	// PerByte is the scratch kept per byte of the largest recent output.
	// The size pass records about 40 bytes per value and per nested
	// message, and the walk keeps a frame per open level, so a message of
	// tiny values (one-byte numbers, empty messages) needs up to about
	// 40 bytes of scratch per byte of output.
	PerByte = 48
	// Max bounds the scratch kept, whatever the outputs: enough for
	// outputs of 16 MiB of the densest shapes.
	Max = 1 << 30
	// Window is how many calls a large output is remembered for.
	Window = 16
)

// Budget tracks recent outputs. The zero Budget is ready to use.
type Budget struct {
	peak  int // the largest recent output, in bytes
	calls int // calls since peak was set
}

// Observe records a call whose output was n bytes (or would have been,
// for a call that failed after sizing) and returns the scratch, in bytes,
// worth keeping until the next call.
func (b *Budget) Observe(n int) int {
	if n >= b.peak || b.calls >= Window {
		b.peak, b.calls = n, 0
	} else {
		b.calls++
	}
	if b.peak > Max/PerByte { // and peak*PerByte could overflow int
		return Max
	}
	return max(Floor, b.peak*PerByte)
}

// Keep reports whether scratch of the given size in bytes fits in what is
// left of budget, and if it does takes it from budget.
func Keep(budget *int, bytes int) bool {
	if bytes <= *budget {
		*budget -= bytes
		return true
	}
	return false
}
