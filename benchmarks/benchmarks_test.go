package main

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
)

// TestBenchmarks verifies every contestant on every workload, as the
// benchmarks and the report do before timing them.
func TestBenchmarks(t *testing.T) {
	ws, err := workloads()
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		if len(w.ref) == 0 {
			t.Errorf("%s: empty workload", w.name)
		}
		for _, c := range casesOf(w) {
			t.Run(c.name(), func(t *testing.T) {
				if err := c.verify(); err != nil {
					t.Error(err)
				}
			})
		}
	}
}

// TestWorkloadsDeterministic checks that building the workloads again gives
// the same bytes, so that runs stay comparable.
func TestWorkloadsDeterministic(t *testing.T) {
	for _, build := range builders {
		a, err := build()
		if err != nil {
			t.Fatal(err)
		}
		b, err := build()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.ref, b.ref) {
			t.Errorf("%s: two builds differ", a.name)
		}
		if a.dynamic.ProtoReflect().Descriptor() == a.generated.ProtoReflect().Descriptor() {
			t.Errorf("%s: the dynamic twin uses the compiled-in descriptor", a.name)
		}
	}
}

// TestHasMaps checks which workloads have maps, which decides how
// protolayout/generated is verified.
func TestHasMaps(t *testing.T) {
	ws, err := workloads()
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		if want := w.name == "collections"; w.hasMaps != want {
			t.Errorf("%s: hasMaps = %v, want %v", w.name, w.hasMaps, want)
		}
	}
}

func BenchmarkMarshal(b *testing.B) {
	all, err := cases(nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range all {
		b.Run(c.name(), c.body)
	}
}

// TestReportSmoke runs the report program on one workload with a tiny
// benchmark time, as text and as JSON.
func TestReportSmoke(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run([]string{"-workload", "^(otlp|writer)$", "-benchtime", "1ms"}, &out, &errs); code != 0 {
		t.Fatalf("exit code %d; stderr:\n%s", code, errs.String())
	}
	text := out.String()
	for _, want := range append([]string{"cpu:", "go:", "modules:", "contestant", "ns/op", "MB/s", "B/op", "allocs/op", "vs proto/generated", "vs floor", "otlp:",
		"writer:", "vs handwritten", "vs easyproto", "vs dynamicpb+marshal", "moves/msg"}, names()...) {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "descriptors:") {
		t.Errorf("-workload did not filter:\n%s", text)
	}
	if !strings.Contains(errs.String(), "otlp") {
		t.Errorf("no progress line on stderr: %q", errs.String())
	}

	out.Reset()
	errs.Reset()
	if code := run([]string{"-workload", "^otlp$", "-benchtime", "3x", "-count", "2", "-json"}, &out, &errs); code != 0 {
		t.Fatalf("-json: exit code %d; stderr:\n%s", code, errs.String())
	}
	var rep jsonReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("-json output: %v\n%s", err, out.String())
	}
	if len(rep.Workloads) != 1 || len(rep.Workloads[0].Results) != len(contestants) { // all of the marshal family apply to otlp
		t.Fatalf("-json: unexpected shape:\n%s", out.String())
	}
	var gen []float64
	for _, r := range rep.Workloads[0].Results {
		if r.Contestant == baseGenerated {
			gen = r.Rounds
		}
	}
	for _, r := range rep.Workloads[0].Results {
		if r.Iterations != 3 || len(r.Rounds) != 2 || r.NsPerOp <= 0 {
			t.Errorf("-json: %s: iterations %d, rounds %v, ns/op %v", r.Contestant, r.Iterations, r.Rounds, r.NsPerOp)
		}
		if r.VsGenerated <= 0 || r.VsDynamic <= 0 || r.VsFloor <= 0 {
			t.Errorf("-json: %s: ratios %v %v %v", r.Contestant, r.VsGenerated, r.VsDynamic, r.VsFloor)
		}
		// With two rounds the paired ratio is the mean of the two
		// rounds' ratios.
		if len(gen) == 2 && len(r.Rounds) == 2 {
			want := (r.Rounds[0]/gen[0] + r.Rounds[1]/gen[1]) / 2
			if math.Abs(r.VsGenerated-want) > 1e-9*want {
				t.Errorf("-json: %s: vs generated %v, want the mean of the rounds' ratios %v", r.Contestant, r.VsGenerated, want)
			}
		}
	}
}

// TestPairedRatio checks that ratios are taken within rounds, then their
// median: a contestant that is twice the baseline in two rounds of three
// is 2x, whatever the medians of the two columns say.
func TestPairedRatio(t *testing.T) {
	res := func(ns ...int) []testing.BenchmarkResult {
		var out []testing.BenchmarkResult
		for _, n := range ns {
			out = append(out, testing.BenchmarkResult{N: 10, T: time.Duration(10 * n)})
		}
		return out
	}
	for _, c := range []struct {
		a, base []testing.BenchmarkResult
		want    float64
	}{
		{res(100, 200, 300), res(50, 400, 150), 2}, // ratios 2, 0.5, 2; medians 200/150
		{res(100, 300), res(100, 100), 2},          // ratios 1, 3: the mean of the middle two
		{res(100), res(400), 0.25},                 // one round
		{res(100, 200, 300), res(50, 100), 2},      // rounds beyond the shorter are left out
		{res(100, 200), res(0, 100), 2},            // a round with no time is left out
		{res(100), res(0), 0},                      // no ratio at all
		{res(), res(), 0},                          //
		{res(90, 110, 100, 95), res(100, 100, 100, 100), 0.975},
	} {
		if got := pairedRatio(c.a, c.base); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("pairedRatio(%v, %v) = %v, want %v", c.a, c.base, got, c.want)
		}
	}
}

func TestReportBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-workload", "("},
		{"-workload", "^nothing$"},
		{"-count", "0"},
		{"-benchtime", "soon"},
		{"extra"},
	} {
		var out, errs bytes.Buffer
		if code := run(args, &out, &errs); code == 0 {
			t.Errorf("run(%q) succeeded", args)
		}
	}
}

func names() []string {
	var out []string
	for _, c := range allContestants {
		out = append(out, c.name)
	}
	return out
}

// TestReportWriterJSON checks the writer family's JSON: its ratios and the
// Writers' moves.
func TestReportWriterJSON(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run([]string{"-workload", "^writer$", "-benchtime", "3x", "-json"}, &out, &errs); code != 0 {
		t.Fatalf("exit code %d; stderr:\n%s", code, errs.String())
	}
	var rep jsonReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("-json output: %v\n%s", err, out.String())
	}
	if len(rep.Workloads) != 1 || rep.Workloads[0].Family != familyWriter || len(rep.Workloads[0].Results) != len(writerContestants) {
		t.Fatalf("unexpected shape:\n%s", out.String())
	}
	for _, r := range rep.Workloads[0].Results {
		if r.VsHandwritten <= 0 || r.VsEasyproto <= 0 || r.VsDynamicpbMarshal <= 0 || r.VsGenerated != 0 {
			t.Errorf("%s: ratios %v %v %v (vs generated %v)", r.Contestant, r.VsHandwritten, r.VsEasyproto, r.VsDynamicpbMarshal, r.VsGenerated)
		}
		if isWriter := strings.HasPrefix(r.Contestant, "writer/"); isWriter != (r.MovesPerMsg != nil) {
			t.Errorf("%s: moves per message %v", r.Contestant, r.MovesPerMsg)
		}
	}
}

// TestWriterAllocs checks that the Writer contestants allocate nothing per
// message once warm.
func TestWriterAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	ws, err := workloads()
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		for _, c := range casesOf(w) {
			if c.writer == nil {
				continue
			}
			if _, err := c.marshal(); err != nil {
				t.Fatal(err)
			}
			if n := testing.AllocsPerRun(10, func() { _, _ = c.marshal() }); n != 0 {
				t.Errorf("%s: %v allocations per message, want 0", c.name(), n)
			}
		}
	}
}

// TestVerifyCatches checks that verify rejects wrong output, both byte for
// byte and by decoding.
func TestVerifyCatches(t *testing.T) {
	ws, err := workloads()
	if err != nil {
		t.Fatal(err)
	}
	w := ws[0]
	flipped := bytes.Clone(w.ref)
	flipped[len(flipped)-1] ^= 1
	digest := bytes.Clone(w.digest)
	digest[0] ^= 1
	for _, tc := range []struct {
		name  string
		check check
		out   []byte
	}{
		{"exact/flipped", checkExact, flipped},
		{"exact/short", checkExact, w.ref[:len(w.ref)-1]},
		{"decoded/flipped", checkDecoded, flipped},
		{"decoded/short", checkDecoded, w.ref[:len(w.ref)-1]},
		{"digest/flipped", checkDigest, digest},
		{"digest/encoding", checkDigest, w.ref},
	} {
		c := &benchCase{
			workload:   w,
			contestant: contestant{name: tc.name, check: tc.check},
			marshal:    func() ([]byte, error) { return tc.out, nil },
		}
		if err := c.verify(); err == nil {
			t.Errorf("%s: verify accepted wrong output", tc.name)
		} else {
			t.Logf("%s: %v", tc.name, err)
		}
	}
}

// The check for protolayout without Deterministic accepts map entries in
// any order, and nothing else out of order.
func TestVerifyMapOrder(t *testing.T) {
	ws, err := workloads()
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(ws, func(w *workload) bool { return w.name == "collections" })
	if i < 0 {
		t.Fatal("no collections workload")
	}
	w := ws[i]
	var recs [][]byte
	for rest := w.ref; len(rest) > 0; {
		_, _, n := protowire.ConsumeField(rest)
		if n < 0 {
			t.Fatal("reference does not parse")
		}
		recs = append(recs, rest[:n])
		rest = rest[n:]
	}
	if len(recs) != 152 {
		t.Fatalf("%d records, want 152", len(recs))
	}
	// The map entries reversed within each map (fields 4 and 5, after 50
	// strings of field 3 and the two packed lists).
	reversed := slices.Clone(recs)
	slices.Reverse(reversed[52:102])
	slices.Reverse(reversed[102:152])
	// The two packed lists swapped: decodes to the same message.
	swapped := slices.Clone(recs)
	swapped[0], swapped[1] = swapped[1], swapped[0]
	for _, tc := range []struct {
		name string
		out  []byte
		ok   bool
	}{
		{"reference", w.ref, true},
		{"map entries reversed", bytes.Join(reversed, nil), true},
		{"fields swapped", bytes.Join(swapped, nil), false},
		{"entries of two maps mixed", bytes.Join(append(append(slices.Clone(recs[:101]), recs[102], recs[101]), recs[103:]...), nil), false},
	} {
		c := &benchCase{
			workload:   w,
			contestant: contestant{name: tc.name, check: checkExactUpToMapOrder},
			marshal:    func() ([]byte, error) { return tc.out, nil },
		}
		if err := c.verify(); (err == nil) != tc.ok {
			t.Errorf("%s: verify says %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}
