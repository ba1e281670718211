// Package progress shows a progress bar, with the time elapsed and an
// estimate of the time left, for the long runs of the protolayout command:
// reading a large input, or a benchmark's iterations.
//
// A Bar draws only when its writer is a terminal and only once the run has
// lasted longer than its delay (DefaultDelay, 2 seconds): a short run, or
// one whose stderr goes to a file or a pipe, writes nothing at all. On a
// terminal the bar is erased when Finish is called, so that what the command
// prints afterwards starts on a clean line.
package progress

import (
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// DefaultDelay is how long a run lasts before its bar appears, when
// Options.Delay is 0.
const DefaultDelay = 2 * time.Second

// Options configures a Bar.
type Options struct {
	// Description is printed before the bar, such as "reading stdin".
	Description string
	// Total is the count at which the work is done (bytes with Bytes),
	// or -1 when it is not known: the bar is then a spinner with the
	// count and the time elapsed, and no estimate.
	Total int64
	// Bytes shows the count and the rate as sizes (kB, MB/s) rather than
	// as iterations.
	Bytes bool
	// Delay is how long the run lasts before the bar appears; 0 means
	// DefaultDelay, and a negative delay shows it at once.
	Delay time.Duration
}

// isTerminal reports whether w is a terminal; tests replace it.
var isTerminal = func(w io.Writer) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}

// Bar reports the progress of one run. The zero Bar and a nil *Bar are
// quiet and valid to use. A Bar is safe for concurrent use.
type Bar struct {
	mu   sync.Mutex
	bar  *progressbar.ProgressBar // nil when quiet
	done bool
}

// New returns a Bar that draws on w once the run has lasted o.Delay, if w
// is a terminal (an *os.File such as os.Stderr that is one), and is quiet
// otherwise. The run starts now.
func New(w io.Writer, o Options) *Bar {
	if !isTerminal(w) {
		return &Bar{}
	}
	delay := o.Delay
	if delay == 0 {
		delay = DefaultDelay
	}
	total := o.Total
	if total < 0 {
		total = -1
	}
	opts := []progressbar.Option{
		progressbar.OptionSetWriter(&gate{w: w, open: time.Now().Add(delay)}),
		progressbar.OptionSetDescription(o.Description),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionShowCount(),
		progressbar.OptionThrottle(100 * time.Millisecond),
		progressbar.OptionSetWidth(30),
		progressbar.OptionClearOnFinish(),
	}
	if o.Bytes {
		opts = append(opts, progressbar.OptionShowBytes(true))
	} else {
		opts = append(opts, progressbar.OptionShowIts())
	}
	return &Bar{bar: progressbar.NewOptions64(total, opts...)}
}

// Add counts n more units (bytes with Options.Bytes) done.
func (b *Bar) Add(n int64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.bar != nil && !b.done {
		b.bar.Add64(n) // the error is the writer's, and a bar has nothing to do with it
	}
}

// Reader returns a reader that reads from r and counts the bytes read.
func (b *Bar) Reader(r io.Reader) io.Reader {
	return &reader{r: r, b: b}
}

// Finish ends the run: the bar, if it was drawn, is erased. Later calls of
// Add and Finish do nothing.
func (b *Bar) Finish() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.bar == nil || b.done {
		return
	}
	b.done = true
	b.bar.Finish() // fills the bar, which clears it (OptionClearOnFinish)
	b.bar.Exit()   // stops the spinner of an unknown total
}

type reader struct {
	r io.Reader
	b *Bar
}

func (r *reader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.b.Add(int64(n))
	return n, err
}

// gate passes writes on to w from the time open on, and drops those before:
// the bar keeps its own count and clock from the start of the run (so its
// rate and estimate are right when it appears) but draws nothing until the
// run has lasted the delay.
type gate struct {
	w    io.Writer
	open time.Time
}

func (g *gate) Write(p []byte) (int, error) {
	if time.Now().Before(g.open) {
		return len(p), nil
	}
	return g.w.Write(p)
}
