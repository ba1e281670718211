package benchreport

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

// results returns benchmark results of 10 iterations taking 10*ns each,
// so ns per operation.
func results(ns ...int) []testing.BenchmarkResult {
	var out []testing.BenchmarkResult
	for _, n := range ns {
		out = append(out, testing.BenchmarkResult{N: 10, T: time.Duration(10 * n)})
	}
	return out
}

// TestPairedRatio checks that ratios are taken within rounds, then their
// median: a contestant that is twice the baseline in two rounds of three
// is 2x, whatever the medians of the two columns say.
func TestPairedRatio(t *testing.T) {
	for _, c := range []struct {
		a, base []testing.BenchmarkResult
		want    float64
	}{
		{results(100, 200, 300), results(50, 400, 150), 2}, // ratios 2, 0.5, 2; medians 200/150
		{results(100, 300), results(100, 100), 2},          // ratios 1, 3: the mean of the middle two
		{results(100), results(400), 0.25},                 // one round
		{results(100, 200, 300), results(50, 100), 2},      // rounds beyond the shorter are left out
		{results(100, 200), results(0, 100), 2},            // a round with no time is left out
		{results(100), results(0), 0},                      // no ratio at all
		{results(), results(), 0},                          //
		{results(90, 110, 100, 95), results(100, 100, 100, 100), 0.975},
		{results(30, 10, 20, 40, 50), results(10, 10, 10, 10, 10), 3}, // odd count: the middle one
	} {
		if got := PairedRatio(c.a, c.base); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("PairedRatio(%v, %v) = %v, want %v", c.a, c.base, got, c.want)
		}
	}
}

// TestSummarize checks the median round (the lower median for an even
// count), MB/s, and the Writer's metrics.
func TestSummarize(t *testing.T) {
	rounds := results(300, 100, 400, 200)
	for i := range rounds {
		rounds[i].Bytes = 1000
		rounds[i].MemAllocs, rounds[i].MemBytes = uint64(10*(i+1)), uint64(640*(i+1))
	}
	rounds[1].Extra = map[string]float64{MetricMoves: 7, MetricMovedBytes: 70}
	rounds[3].Extra = map[string]float64{MetricMoves: 3, MetricMovedBytes: 30}
	r := summarize("c", rounds)
	// Sorted: 100, 200, 300, 400; the lower median is 200, round 3.
	if r.NsPerOp != 200 || r.Iterations != 10 || r.AllocsPerOp != 4 || r.BytesPerOp != 256 {
		t.Errorf("median round: ns/op %v, iterations %d, allocs/op %d, B/op %d; want 200, 10, 4, 256", r.NsPerOp, r.Iterations, r.AllocsPerOp, r.BytesPerOp)
	}
	if r.MBPerS != 5000 { // 1000 bytes in 200 ns
		t.Errorf("MB/s %v, want 5000", r.MBPerS)
	}
	if r.MovesPerMsg == nil || *r.MovesPerMsg != 3 || r.MovedBytesPerMsg != 30 {
		t.Errorf("moves %v, moved %v; want the median round's 3 and 30", r.MovesPerMsg, r.MovedBytesPerMsg)
	}
	if want := []float64{300, 100, 400, 200}; !equalFloats(r.Rounds, want) {
		t.Errorf("rounds %v, want %v in the order run", r.Rounds, want)
	}
	if r := summarize("c", results(100, 300, 200)); r.NsPerOp != 200 || r.MovesPerMsg != nil {
		t.Errorf("odd count: ns/op %v (want 200), moves %v (want none)", r.NsPerOp, r.MovesPerMsg)
	}
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// smallCases is the dynamic workload of two small Structs.
func smallCases(t *testing.T) []*Case {
	t.Helper()
	_, cases, err := DynamicWorkload("small", []proto.Message{nestedStruct(t), &structpb.Struct{Fields: map[string]*structpb.Value{"k": structpb.NewBoolValue(true)}}})
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

// TestRun times the dynamic workload in two rounds of three iterations
// and checks the report's shape, its ratios against the rounds, and the
// progress lines.
func TestRun(t *testing.T) {
	var progress bytes.Buffer
	cases := smallCases(t)
	rep, err := Run(cases, Options{Count: 2, Benchtime: "3x", Progress: &progress, ProgressMode: ProgressLines, Prefix: "test: "})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Count != 2 || rep.Benchtime != "3x" || len(rep.Workloads) != 1 {
		t.Fatalf("report: count %d, benchtime %q, %d workloads", rep.Count, rep.Benchtime, len(rep.Workloads))
	}
	w := rep.Workloads[0]
	if w.Name != "small" || w.Size != cases[0].Workload.Size() || len(w.Results) != len(cases) {
		t.Fatalf("workload %q, size %d, %d results", w.Name, w.Size, len(w.Results))
	}
	var dyn, floor []float64
	for _, r := range w.Results {
		switch r.Contestant {
		case BaseDynamic:
			dyn = r.Rounds
		case BaseFloor:
			floor = r.Rounds
		}
	}
	for _, r := range w.Results {
		if r.Iterations != 3 || len(r.Rounds) != 2 || r.NsPerOp <= 0 {
			t.Errorf("%s: iterations %d, rounds %v, ns/op %v", r.Contestant, r.Iterations, r.Rounds, r.NsPerOp)
		}
		if r.VsGenerated != 0 || r.VsHandwritten != 0 {
			t.Errorf("%s: a ratio to a baseline that did not run", r.Contestant)
		}
		// With two rounds the paired ratio is the mean of the two
		// rounds' ratios.
		if want := (r.Rounds[0]/dyn[0] + r.Rounds[1]/dyn[1]) / 2; math.Abs(r.VsDynamic-want) > 1e-9*want {
			t.Errorf("%s: vs proto/dynamicpb %v, want %v", r.Contestant, r.VsDynamic, want)
		}
		if want := (r.Rounds[0]/floor[0] + r.Rounds[1]/floor[1]) / 2; math.Abs(r.VsFloor-want) > 1e-9*want {
			t.Errorf("%s: vs floor %v, want %v", r.Contestant, r.VsFloor, want)
		}
	}
	want := "test: small (" // then the size
	if lines := strings.Split(strings.TrimSpace(progress.String()), "\n"); len(lines) != 2 ||
		!strings.HasPrefix(lines[0], want) || !strings.HasSuffix(lines[0], "round 1/2 of 7 contestants") ||
		!strings.HasSuffix(lines[1], "round 2/2 of 7 contestants") {
		t.Errorf("progress lines:\n%s", progress.String())
	}
}

// TestRunProgressQuiet checks that the default mode shows nothing where
// the progress goes to something other than a terminal.
func TestRunProgressQuiet(t *testing.T) {
	var progress bytes.Buffer
	if _, err := Run(smallCases(t)[:2], Options{Count: 2, Benchtime: "1x", Progress: &progress}); err != nil {
		t.Fatal(err)
	}
	if progress.Len() != 0 {
		t.Errorf("progress on a buffer:\n%q", progress.String())
	}
}

// TestRunProgressBar checks that the bar, forced onto a buffer, counts
// the contestant rounds and names the contestant.
func TestRunProgressBar(t *testing.T) {
	var progress bytes.Buffer
	cases := smallCases(t)[:2]
	if _, err := Run(cases, Options{Count: 2, Benchtime: "1x", Progress: &progress, ProgressMode: ProgressBar}); err != nil {
		t.Fatal(err)
	}
	out := progress.String()
	for _, want := range []string{"small/proto/dynamicpb (round 1/2)", "small/proto/dynamicpb-det (round 2/2)", "75%", "(3/4)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the bar lacks %q:\n%q", want, out)
		}
	}
	if strings.Contains(out, "contestants\n") {
		t.Errorf("the bar came with the lines:\n%q", out)
	}
}

// TestRunVerifyFails checks that Run refuses a wrong contestant before
// timing anything.
func TestRunVerifyFails(t *testing.T) {
	cases := smallCases(t)
	timed := false
	bad := &Case{Workload: cases[0].Workload, Contestant: Contestant{Name: "bad", Check: CheckExact, Encode: func(int) ([]byte, error) {
		return []byte{1}, nil
	}}}
	spy := &Case{Workload: cases[0].Workload, Contestant: cases[0].Contestant}
	enc := spy.Contestant.Encode
	calls := 0
	spy.Contestant.Encode = func(i int) ([]byte, error) {
		calls++
		if calls > 4 { // two passes over two messages verify it
			timed = true
		}
		return enc(i)
	}
	_, err := Run([]*Case{spy, bad}, Options{Count: 1, Benchtime: "1x"})
	if !errors.Is(err, ErrVerify) || !strings.Contains(err.Error(), "small/bad: call 1 message 0") {
		t.Errorf("Run says %v, want a verification failure of small/bad", err)
	}
	if timed {
		t.Error("a contestant was timed before every case was verified")
	}
	for _, o := range []Options{{Count: 0}, {Count: 1, Benchtime: "soon"}} {
		if _, err := Run(cases, o); err == nil {
			t.Errorf("Run(%+v) succeeded", o)
		}
	}
	if _, err := Run(nil, Options{Count: 1}); err == nil {
		t.Error("Run of no cases succeeded")
	}
}
