package benchreport

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"
)

// ProgressMode says how Run shows its progress.
type ProgressMode int

const (
	// ProgressAuto draws a progress bar when Options.Progress is a
	// terminal, and shows nothing otherwise (a log or a pipe stays
	// quiet).
	ProgressAuto ProgressMode = iota
	// ProgressBar always draws the bar.
	ProgressBar
	// ProgressLines always writes the lines.
	ProgressLines
)

// Options are Run's settings.
type Options struct {
	// Count is the number of rounds, each running every contestant of a
	// workload once; at least 1.
	Count int
	// Benchtime is the time (or Nx iterations) of each contestant's
	// round, as go test's -benchtime; "" leaves testing's setting as it is
	// (1s unless changed).
	Benchtime string
	// Progress receives the progress (standard error, typically); nil
	// for none.
	Progress io.Writer
	// ProgressMode chooses between the bar and the lines.
	ProgressMode ProgressMode
	// Prefix starts each progress line, as "benchmarks: "; "" for none.
	Prefix string
	// Held is the number of decoded messages kept at once to measure
	// the memory a decoder's message holds (HeldBytes), after the timed
	// rounds; 0 means DefaultHeld.
	Held int
}

// Run verifies every case (the error wraps ErrVerify and names the first
// that fails, except for a contestant that it tolerates, whose failure goes
// into its Result.Wrong), then times them: the cases of each workload (consecutive
// cases with the same Workload) run in Count rounds, each round running
// every contestant of the workload once, back to back, with
// testing.Benchmark. Each contestant's median round is reported, and each
// ratio is the median of the ratios within a round (see PairedRatio).
// After a workload's rounds, each decoder whose messages can be held
// together (Contestant.Holds) is measured for the memory one decoded
// message holds (Case.HeldBytes).
func Run(cases []*Case, o Options) (*Report, error) {
	if o.Count < 1 {
		return nil, fmt.Errorf("-count must be at least 1, not %d", o.Count)
	}
	if len(cases) == 0 {
		return nil, errors.New("no cases to run")
	}
	for _, c := range cases {
		c.wrong = ""
		if err := c.Verify(); err != nil {
			if !c.Contestant.Tolerate {
				return nil, fmt.Errorf("%w: %v", ErrVerify, err)
			}
			c.wrong = err.Error()
		}
	}
	benchtime, restore, err := setBenchtime(o.Benchtime)
	if err != nil {
		return nil, err
	}
	defer restore()

	rep := &Report{Env: Environment(), Benchtime: benchtime, Count: o.Count}
	p := newProgress(o, len(cases)*o.Count)
	defer p.finish()
	for len(cases) > 0 {
		n := 1
		for n < len(cases) && cases[n].Workload == cases[0].Workload {
			n++
		}
		res, err := measure(cases[:n], o.Count, o.Held, p)
		if err != nil {
			return nil, err
		}
		rep.Workloads = append(rep.Workloads, res)
		cases = cases[n:]
	}
	return rep, nil
}

// setBenchtime sets the benchmark time testing.Benchmark uses, which it
// reads from the -test.benchtime flag, and returns the time in force and a
// func that puts the previous value back.
func setBenchtime(v string) (benchtime string, restore func(), err error) {
	testing.Init() // registers -test.benchtime outside go test; no-op inside
	f := flag.Lookup("test.benchtime")
	if f == nil {
		return "", nil, errors.New("testing did not register -test.benchtime")
	}
	old := f.Value.String()
	if v == "" {
		return old, func() {}, nil
	}
	if err := f.Value.Set(v); err != nil {
		return "", nil, fmt.Errorf("-benchtime: %v", err)
	}
	return v, func() { _ = f.Value.Set(old) }, nil
}

// measure times the cases of one workload, count rounds of each with the
// contestants interleaved, and keeps each contestant's median round; then
// it measures the memory held by the decoders that allow it, keeping held
// messages at once (DefaultHeld for 0).
func measure(cs []*Case, count, held int, p *progress) (WorkloadResult, error) {
	w := cs[0].Workload
	rounds := make([][]testing.BenchmarkResult, len(cs))
	start := time.Now()
	for r := range count {
		p.round(w, r, count, len(cs))
		for i, c := range cs {
			p.contestant(c, r, count)
			res := testing.Benchmark(c.Benchmark)
			if res.N == 0 {
				return WorkloadResult{}, fmt.Errorf("%s: the benchmark failed", c.Name())
			}
			rounds[i] = append(rounds[i], res)
			p.done()
		}
	}
	out := WorkloadResult{
		Name:        w.Name,
		Family:      w.Family,
		Description: w.Description,
		Size:        w.Size(),
		Seconds:     time.Since(start).Seconds(),
	}
	for i, c := range cs {
		out.Results = append(out.Results, summarize(c.Contestant.Name, rounds[i]))
		out.Results[i].Wrong = c.wrong
		if c.Contestant.Decode != nil && c.Contestant.Holds {
			b, err := c.HeldBytes(held)
			if err != nil {
				return WorkloadResult{}, fmt.Errorf("%s: memory held: %v", c.Name(), err)
			}
			out.Results[i].HeldBytesPerOp = &b
		}
	}
	index := func(name string) int {
		return slices.IndexFunc(cs, func(c *Case) bool { return c.Contestant.Name == name })
	}
	for i := range out.Results {
		r := &out.Results[i]
		for _, col := range familyColumns(w.Family) {
			if base := index(col.baseline); base >= 0 {
				*col.field(r) = PairedRatio(rounds[i], rounds[base])
			}
		}
	}
	return out, nil
}

// PairedRatio is the median, over rounds, of a's time per operation
// divided by base's in the same round (the mean of the middle two for an
// even count); rounds beyond the shorter slice, and rounds where base took
// no time, are left out, and with none left it is 0. A round runs every
// contestant of a workload back to back, so each ratio compares runs made
// under the same load of the machine; the median of those ratios moves
// less with a shared machine's load than the ratio of two medians taken
// from different rounds.
func PairedRatio(a, base []testing.BenchmarkResult) float64 {
	rs := make([]float64, 0, len(a))
	for r := range min(len(a), len(base)) {
		if b := nsPerOp(base[r]); b > 0 {
			rs = append(rs, nsPerOp(a[r])/b)
		}
	}
	if len(rs) == 0 {
		return 0
	}
	slices.Sort(rs)
	m := len(rs) / 2
	if len(rs)%2 == 0 {
		return (rs[m-1] + rs[m]) / 2
	}
	return rs[m]
}

// nsPerOp is a result's time per iteration, unrounded.
func nsPerOp(r testing.BenchmarkResult) float64 {
	if r.N == 0 {
		return 0
	}
	return float64(r.T.Nanoseconds()) / float64(r.N)
}

// summarize reports the median round of one contestant (the lower median
// for an even count).
func summarize(name string, rounds []testing.BenchmarkResult) Result {
	sorted := slices.Clone(rounds)
	slices.SortStableFunc(sorted, func(a, b testing.BenchmarkResult) int {
		x, y := nsPerOp(a), nsPerOp(b)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	med := sorted[(len(sorted)-1)/2]
	out := Result{
		Contestant:  name,
		Iterations:  med.N,
		NsPerOp:     nsPerOp(med),
		BytesPerOp:  med.AllocedBytesPerOp(),
		AllocsPerOp: med.AllocsPerOp(),
	}
	if out.NsPerOp > 0 {
		out.MBPerS = float64(med.Bytes) * 1e3 / out.NsPerOp
	}
	if moves, ok := med.Extra[MetricMoves]; ok {
		out.MovesPerMsg = &moves
		out.MovedBytesPerMsg = med.Extra[MetricMovedBytes]
	}
	for _, r := range rounds {
		out.Rounds = append(out.Rounds, nsPerOp(r))
	}
	return out
}

// progress shows how far Run is: a bar over every contestant round, or a
// line per workload (per round with several).
type progress struct {
	w      io.Writer // nil: nothing to show
	prefix string
	bar    *progressbar.ProgressBar
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

func newProgress(o Options, total int) *progress {
	p := &progress{w: o.Progress, prefix: o.Prefix}
	if p.w == nil {
		return p
	}
	if o.ProgressMode == ProgressAuto && !isTerminal(p.w) {
		p.w = nil
		return p
	}
	if o.ProgressMode == ProgressBar || o.ProgressMode == ProgressAuto {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetWidth(20),
			progressbar.OptionShowCount(),
			progressbar.OptionSetItsString("rounds"),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionSetRenderBlankState(true),
			progressbar.OptionClearOnFinish(),
		)
	}
	return p
}

// round marks the start of round r of count of the workload w, which has
// n contestants.
func (p *progress) round(w *Workload, r, count, n int) {
	if p.w == nil || p.bar != nil {
		return
	}
	size := humanize.Bytes(uint64(w.Size()))
	if count > 1 {
		fmt.Fprintf(p.w, "%s%s (%s): round %d/%d of %d contestants\n", p.prefix, w.Name, size, r+1, count, n)
	} else {
		fmt.Fprintf(p.w, "%s%s (%s): %d contestants\n", p.prefix, w.Name, size, n)
	}
}

// contestant marks the start of c's round r of count.
func (p *progress) contestant(c *Case, r, count int) {
	if p.bar == nil {
		return
	}
	desc := c.Name()
	if count > 1 {
		desc = fmt.Sprintf("%s (round %d/%d)", desc, r+1, count)
	}
	p.bar.Describe(desc)
}

// done marks a contestant round done.
func (p *progress) done() {
	if p.bar != nil {
		_ = p.bar.Add(1)
	}
}

// finish clears the bar.
func (p *progress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
		_ = p.bar.Clear()
	}
}
