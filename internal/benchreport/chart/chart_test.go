package chart

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/protolayout/protolayout/internal/benchreport"
)

// report is a hand-made report of two marshal workloads, a writer
// workload and an unmarshal workload.
func report() *benchreport.Report {
	return &benchreport.Report{
		Env:       benchreport.Env{CPU: "Test CPU", GoVersion: "go1.26.0", GOOS: "linux", GOARCH: "amd64"},
		Benchtime: "500ms",
		Count:     3,
		Workloads: []benchreport.WorkloadResult{
			{Name: "alpha-workload", Results: []benchreport.Result{
				{Contestant: benchreport.BaseGenerated, VsGenerated: 1},
				{Contestant: benchreport.BaseDynamic, VsGenerated: 4.79},
				{Contestant: benchreport.BaseFloor, VsGenerated: 0.00066},
			}},
			{Name: "beta-workload", Results: []benchreport.Result{
				{Contestant: benchreport.BaseGenerated, VsGenerated: 1},
				{Contestant: "protolayout/dynamicpb-reuse", VsGenerated: 0.25},
			}},
			{Name: "writer-workload", Family: benchreport.FamilyWriter, Results: []benchreport.Result{
				{Contestant: "writer/learned", VsHandwritten: 1.06},
				{Contestant: benchreport.BaseHandwritten, VsHandwritten: 1},
			}},
			{Name: "decode-workload", Family: benchreport.FamilyUnmarshal, Results: []benchreport.Result{
				{Contestant: benchreport.BaseUnmarshalGenerated, VsUnmarshalGenerated: 1},
				{Contestant: benchreport.BaseUnmarshalDynamicpb, VsUnmarshalGenerated: 2.87},
				{Contestant: "unmarshal/dynamic", VsUnmarshalGenerated: 1.37},
			}},
		},
	}
}

// texts parses svg as XML and returns its character data, joined by
// spaces.
func texts(t *testing.T, svg []byte) string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(svg))
	var out []string
	root := ""
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not valid XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tok.Name.Local
			}
		case xml.CharData:
			if s := strings.TrimSpace(string(tok)); s != "" {
				out = append(out, s)
			}
		}
	}
	if root != "svg" {
		t.Fatalf("root element %q, want svg", root)
	}
	return strings.Join(out, " ")
}

// TestWriteSVG checks that the chart is valid XML with an svg root, and
// names the workloads, the contestants, the baselines and the ratios.
func TestWriteSVG(t *testing.T) {
	var out bytes.Buffer
	if err := WriteSVG(&out, report()); err != nil {
		t.Fatal(err)
	}
	s := texts(t, out.Bytes())
	for _, want := range []string{
		"alpha-workload", "beta-workload", "writer-workload", "decode-workload",
		"proto/dynamicpb", "floor/range", "protolayout/dynamicpb-reuse", "writer/learned", "unmarshal/dynamicpb", "unmarshal/dynamic",
		"Time relative to proto/generated", "Time relative to handwritten", "Time relative to unmarshal/generated",
		"Test CPU", "median of 3 paired rounds",
		"4.79x", "0.25x", "0.00066x", "1.06x", "2.87x", "1.37x", "1x",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the chart lacks %q; its text: %s", want, s)
		}
	}
	// The baseline's own bar is the reference line, not a bar.
	if strings.Contains(s, "1.00x") {
		t.Errorf("the chart draws a baseline against itself: %s", s)
	}
}

// TestWriteSVGBaselines checks that a panel without proto/generated takes
// proto/dynamicpb, and that a report with nothing to draw is refused.
func TestWriteSVGBaselines(t *testing.T) {
	rep := &benchreport.Report{Workloads: []benchreport.WorkloadResult{{Name: "mine", Results: []benchreport.Result{
		{Contestant: benchreport.BaseDynamic, VsDynamic: 1},
		{Contestant: "protolayout/dynamicpb", VsDynamic: 0.3},
	}}}}
	var out bytes.Buffer
	if err := WriteSVG(&out, rep); err != nil {
		t.Fatal(err)
	}
	if s := texts(t, out.Bytes()); !strings.Contains(s, "Time relative to proto/dynamicpb") || !strings.Contains(s, "0.30x") {
		t.Errorf("the chart of a dynamic-only report: %s", s)
	}
	rep.Workloads[0].Results = rep.Workloads[0].Results[:1]
	if err := WriteSVG(io.Discard, rep); err == nil {
		t.Error("a report with no ratio to draw was drawn")
	}
	if err := WriteSVG(io.Discard, &benchreport.Report{}); err == nil {
		t.Error("an empty report was drawn")
	}
}
