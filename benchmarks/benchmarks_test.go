package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/protolayout/protolayout/internal/benchreport"
)

// TestBenchmarks verifies every contestant on every workload, as the
// benchmarks and the report do before timing them; a tolerated
// contestant's failure (another project's decoder) is logged.
func TestBenchmarks(t *testing.T) {
	ws, err := workloads()
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		if len(w.Ref(0)) == 0 {
			t.Errorf("%s: empty workload", w.Name)
		}
		for _, c := range casesOf(w) {
			t.Run(c.Name(), func(t *testing.T) {
				if err := c.Verify(); err != nil {
					if !c.Contestant.Tolerate {
						t.Error(err)
					}
					t.Logf("tolerated: %v", err)
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
		if !bytes.Equal(a.Ref(0), b.Ref(0)) {
			t.Errorf("%s: two builds differ", a.Name)
		}
		if a.dynamic.ProtoReflect().Descriptor() == a.generated.ProtoReflect().Descriptor() {
			t.Errorf("%s: the dynamic twin uses the compiled-in descriptor", a.Name)
		}
	}
}

func BenchmarkMarshal(b *testing.B) {
	all, err := cases(nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range all {
		b.Run(c.Name(), c.Benchmark)
	}
}

// TestReportSmoke runs the report program on a workload of each family
// with a tiny benchmark time, as text, and on one as JSON.
func TestReportSmoke(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run([]string{"-workload", "^(otlp|writer|otlp-decode)$", "-benchtime", "1ms"}, &out, &errs); code != 0 {
		t.Fatalf("exit code %d; stderr:\n%s", code, errs.String())
	}
	text := out.String()
	for _, want := range append([]string{"cpu:", "go:", "modules:", "contestant", "ns/op", "MB/s", "B/op", "allocs/op", "vs proto/generated", "vs floor", "otlp:",
		"writer:", "vs handwritten", "vs easyproto", "vs dynamicpb+marshal", "moves/msg",
		"otlp-decode:", "vs unmarshal/generated", "held B/op"}, names()...) {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "descriptors:") {
		t.Errorf("-workload did not filter:\n%s", text)
	}
	// stderr is not a terminal here: no progress.
	if errs.Len() != 0 {
		t.Errorf("progress on a non-terminal stderr: %q", errs.String())
	}

	out.Reset()
	errs.Reset()
	if code := run([]string{"-workload", "^otlp$", "-benchtime", "3x", "-count", "2", "-json"}, &out, &errs); code != 0 {
		t.Fatalf("-json: exit code %d; stderr:\n%s", code, errs.String())
	}
	var rep benchreport.Report
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

// TestReportDecode runs the decode section with short rounds, as text and
// as JSON, and prints the JSON's tables again with -from.
func TestReportDecode(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run([]string{"-workload", "-decode$", "-benchtime", "3x", "-count", "2", "-json"}, &out, &errs); code != 0 {
		t.Fatalf("exit code %d; stderr:\n%s", code, errs.String())
	}
	var rep benchreport.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("-json output: %v\n%s", err, out.String())
	}
	if len(rep.Workloads) != 8 {
		t.Fatalf("%d workloads, want the eight decode workloads", len(rep.Workloads))
	}
	for _, w := range rep.Workloads {
		if w.Family != benchreport.FamilyUnmarshal || len(w.Results) != len(decodeContestants) {
			t.Fatalf("%s: family %q, %d results", w.Name, w.Family, len(w.Results))
		}
		for _, r := range w.Results {
			if r.Iterations != 3 || len(r.Rounds) != 2 || r.NsPerOp <= 0 || r.VsUnmarshalGenerated <= 0 || r.VsUnmarshalDynamicpb <= 0 || r.VsGenerated != 0 {
				t.Errorf("%s/%s: iterations %d, rounds %v, ratios %v %v (vs proto/generated %v)", w.Name, r.Contestant, r.Iterations, r.Rounds,
					r.VsUnmarshalGenerated, r.VsUnmarshalDynamicpb, r.VsGenerated)
			}
			// Held memory is measured for the decoders whose messages can
			// be held together: not hyperpb's shared arena nor dynamic's
			// reused Decoder, and not the canonical checker, which
			// decodes nothing.
			unheld := strings.HasSuffix(r.Contestant, "-shared") || strings.HasSuffix(r.Contestant, "-reuse") || strings.HasPrefix(r.Contestant, "check/")
			if (r.HeldBytesPerOp == nil) != unheld || !unheld && !raceEnabled && *r.HeldBytesPerOp <= 0 {
				t.Errorf("%s/%s: held %v", w.Name, r.Contestant, r.HeldBytesPerOp)
			}
		}
	}
	file := filepath.Join(t.TempDir(), "decode.json")
	if err := os.WriteFile(file, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := run([]string{"-from", file, "-workload", "^otlp-decode$"}, &out, &errs); code != 0 {
		t.Fatalf("-from: exit code %d; stderr:\n%s", code, errs.String())
	}
	text := out.String()
	for _, want := range []string{"decode:", "\notlp-decode: proto.Unmarshal of the otlp workload", "vs unmarshal/generated", "vs unmarshal/dynamicpb", "held B/op",
		benchreport.BaseUnmarshalGenerated, benchreport.BaseUnmarshalDynamicpb, "unmarshal/dynamic "} {
		if !strings.Contains(text, want) {
			t.Errorf("-from: the table lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "descriptors-decode") || strings.Contains(text, "vs floor") {
		t.Errorf("-from: the tables:\n%s", text)
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
	var rep benchreport.Report
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
			if !strings.HasPrefix(c.Contestant.Name, "writer/") {
				continue
			}
			if _, err := c.Contestant.Encode(0); err != nil {
				t.Fatal(err)
			}
			if n := testing.AllocsPerRun(10, func() { _, _ = c.Contestant.Encode(0) }); n != 0 {
				t.Errorf("%s: %v allocations per message, want 0", c.Name(), n)
			}
		}
	}
}

// svgText parses an SVG file as XML and returns its character data.
func svgText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(bytes.NewReader(b))
	var out []string
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s is not valid XML: %v", path, err)
		}
		if cd, ok := tok.(xml.CharData); ok {
			out = append(out, string(cd))
		}
	}
	return strings.Join(out, " ")
}

// TestReportSVG draws the chart of a quick run, and again from the run's
// -json output with -from, which prints the same tables without
// measuring.
func TestReportSVG(t *testing.T) {
	dir := t.TempDir()
	svg, jsonFile := filepath.Join(dir, "run.svg"), filepath.Join(dir, "run.json")
	var out, errs bytes.Buffer
	if code := run([]string{"-workload", "^(scalar|nested|writer)$", "-benchtime", "1x", "-json", "-svg", svg}, &out, &errs); code != 0 {
		t.Fatalf("exit code %d; stderr:\n%s", code, errs.String())
	}
	if err := os.WriteFile(jsonFile, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	s := svgText(t, svg)
	for _, want := range []string{"scalar", "nested", "writer", "proto/dynamicpb", "writer/learned", "Time relative to proto/generated", "Time relative to handwritten"} {
		if !strings.Contains(s, want) {
			t.Errorf("the chart lacks %q: %s", want, s)
		}
	}
	if strings.Contains(s, "descriptors") {
		t.Errorf("-workload did not filter the chart: %s", s)
	}

	from := filepath.Join(dir, "from.svg")
	out.Reset()
	errs.Reset()
	if code := run([]string{"-from", jsonFile, "-workload", "^(nested|writer)$", "-svg", from}, &out, &errs); code != 0 {
		t.Fatalf("-from: exit code %d; stderr:\n%s", code, errs.String())
	}
	if errs.Len() != 0 {
		t.Errorf("-from measured something: %s", errs.String())
	}
	if text := out.String(); !strings.Contains(text, "\nnested: ") || !strings.Contains(text, "\nwriter: ") || strings.Contains(text, "\nscalar: ") {
		t.Errorf("-from: the tables are not those of nested and writer:\n%s", text)
	}
	if s := svgText(t, from); !strings.Contains(s, "nested") || strings.Contains(s, "scalar") {
		t.Errorf("-from: the chart: %s", s)
	}
	for _, args := range [][]string{{"-from", filepath.Join(dir, "missing.json")}, {"-from", svg}, {"-from", jsonFile, "-svg", filepath.Join(dir, "no", "such", "dir.svg")}} {
		if code := run(args, io.Discard, io.Discard); code == 0 {
			t.Errorf("run(%q) succeeded", args)
		}
	}
}
