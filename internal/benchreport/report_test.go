package benchreport

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// sampleReport is a hand-made report: a marshal workload, a writer
// workload with the Writer's moves, and a workload of dynamic messages
// only (no proto/generated).
func sampleReport() *Report {
	moves := 241.0
	return &Report{
		Env: Env{CPU: "Test CPU", PhysicalCores: 2, LogicalCores: 4, Features: []string{"AVX2", "BMI2"},
			GoVersion: "go1.26.0", GOOS: "linux", GOARCH: "amd64", GOMAXPROCS: 4, Protobuf: "v1.36.12", Protolayout: "(devel)"},
		Benchtime: "500ms",
		Count:     3,
		Workloads: []WorkloadResult{
			{Name: "otlp", Description: "an export", Size: 68953, Seconds: 24.44, Results: []Result{
				{Contestant: BaseGenerated, NsPerOp: 552336.4, MBPerS: 124.84, BytesPerOp: 73728, AllocsPerOp: 1, VsGenerated: 1, VsDynamic: 0.2149, VsFloor: 0.8151},
				{Contestant: BaseDynamic, NsPerOp: 2519636, MBPerS: 27.36, BytesPerOp: 755240, AllocsPerOp: 22660, VsGenerated: 4.789, VsDynamic: 1, VsFloor: 3.714},
				{Contestant: BaseFloor, NsPerOp: 99.94, MBPerS: 104.8, VsGenerated: 1.22, VsDynamic: 0.27, VsFloor: 1},
				{Contestant: "protolayout/dynamicpb-reuse", NsPerOp: 674487, MBPerS: 102.2, VsGenerated: 123.4, VsDynamic: 0.25, VsFloor: 1234.5},
			}},
			{Name: "writer", Family: FamilyWriter, Description: "from values", Size: 68953, Seconds: 12.6, Results: []Result{
				{Contestant: "writer/learned", NsPerOp: 158797, MBPerS: 434.2, VsHandwritten: 1.06, VsEasyproto: 0.83, VsDynamicpbMarshal: 0.0234, MovesPerMsg: &moves, MovedBytesPerMsg: 43394},
				{Contestant: BaseHandwritten, NsPerOp: 141397, MBPerS: 487.7, VsHandwritten: 1, VsEasyproto: 0.77, VsDynamicpbMarshal: 0.02},
				{Contestant: BaseEasyproto, NsPerOp: 176656, MBPerS: 390.3, VsHandwritten: 1.3, VsEasyproto: 1, VsDynamicpbMarshal: 0.03},
				{Contestant: BaseDynamicpb, NsPerOp: 6782926, MBPerS: 10.2, BytesPerOp: 3540606, AllocsPerOp: 65728, VsHandwritten: 48.73, VsEasyproto: 38.07, VsDynamicpbMarshal: 1},
			}},
			{Name: "mine", Description: "my.Msg, 2 messages", Size: 1500, Seconds: 1, Results: []Result{
				{Contestant: BaseDynamic, NsPerOp: 2000, MBPerS: 750, VsDynamic: 1, VsFloor: 4},
				{Contestant: BaseFloor, NsPerOp: 500, MBPerS: 3000, VsDynamic: 0.25, VsFloor: 1},
			}},
		},
	}
}

const sampleText = `cpu:       Test CPU, 2 physical / 4 logical cores
features:  AVX2 BMI2
go:        go1.26.0 linux/amd64, GOMAXPROCS=4
modules:   github.com/protolayout/protolayout (devel), google.golang.org/protobuf v1.36.12
benchtime: 500ms (default, -benchtime to change) per contestant, median of 3 rounds
ratios:    median over rounds of ns/op divided by the baseline's ns/op in the same round;
           below 1.00x is faster; floor = floor/range
note:      one line
two:       first
           second

otlp: an export, 69 kB (68,953 bytes), measured in 24.4s
  contestant                       ns/op   MB/s     B/op  allocs/op  vs proto/generated  vs proto/dynamicpb  vs floor
  proto/generated                552,336  124.8   73,728          1               1.00x               0.21x     0.82x
  proto/dynamicpb              2,519,636   27.4  755,240     22,660               4.79x               1.00x     3.71x
  floor/range                       99.9  104.8        0          0               1.22x               0.27x     1.00x
  protolayout/dynamicpb-reuse    674,487  102.2        0          0                123x               0.25x    1,235x

writer: from values, 69 kB (68,953 bytes), measured in 12.6s
  contestant             ns/op   MB/s       B/op  allocs/op  vs handwritten  vs easyproto  vs dynamicpb+marshal  moves/msg  moved B/msg
  writer/learned       158,797  434.2          0          0           1.06x         0.83x                 0.02x        241       43,394
  handwritten          141,397  487.7          0          0           1.00x         0.77x                 0.02x          -            -
  easyproto            176,656  390.3          0          0           1.30x         1.00x                 0.03x          -            -
  dynamicpb+marshal  6,782,926   10.2  3,540,606     65,728          48.73x        38.07x                 1.00x          -            -

mine: my.Msg, 2 messages, 1.5 kB (1,500 bytes), measured in 1.0s
  contestant       ns/op    MB/s  B/op  allocs/op  vs proto/dynamicpb  vs floor
  proto/dynamicpb  2,000   750.0     0          0               1.00x     4.00x
  floor/range        500  3000.0     0          0               0.25x     1.00x
`

// TestWriteText checks the header and the tables of a hand-made report,
// character for character: the columns of each family, only those whose
// baseline ran, and the number formats.
func TestWriteText(t *testing.T) {
	var out bytes.Buffer
	err := WriteText(&out, sampleReport(), TextOptions{DefaultBenchtime: "500ms", Notes: []Note{{Label: "note", Text: "one line"}, {Label: "two", Text: "first\nsecond"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != sampleText {
		t.Errorf("got:\n%s\nwant:\n%s", got, sampleText)
	}
}

// TestWriteTextDefaults checks the default notes, one round, no default
// benchtime and no features.
func TestWriteTextDefaults(t *testing.T) {
	rep := sampleReport()
	rep.Count, rep.Env.Features = 1, nil
	var out bytes.Buffer
	if err := WriteText(&out, rep, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"benchtime: 500ms per contestant, 1 round\n",
		"features:  none of note\n",
		"ratios:    ns/op divided by the baseline's ns/op; below 1.00x is faster; floor = floor/range\n",
		"floor:     floor/* only read every populated field of the messages through protoreflect;\n           they write nothing",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("lacks %q:\n%s", want, out.String())
		}
	}
}

// TestReportJSON checks the JSON field names, which programs read.
func TestReportJSON(t *testing.T) {
	b, err := json.Marshal(sampleReport())
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{`"env":{"cpu":"Test CPU","physical_cores":2,"logical_cores":4,"features":["AVX2","BMI2"],"go_version":"go1.26.0","goos":"linux","goarch":"amd64","gomaxprocs":4,"protobuf_version":"v1.36.12","protolayout_version":"(devel)"}`,
		`"benchtime":"500ms","count":3,"workloads":[{"name":"otlp","description":"an export","size_bytes":68953,"seconds":24.44,"results":[{"contestant":"proto/generated","iterations":0,"ns_per_op":552336.4,"mb_per_s":124.84,"bytes_per_op":73728,"allocs_per_op":1,"vs_proto_generated":1,"vs_proto_dynamic":0.2149,"vs_floor":0.8151,"rounds_ns_per_op":null}`,
		`{"name":"writer","family":"writer",`,
		`"vs_proto_generated":0,"vs_proto_dynamic":0,"vs_floor":0,"vs_handwritten":1.06,"vs_easyproto":0.83,"vs_dynamicpb_marshal":0.0234,"moves_per_msg":241,"moved_bytes_per_msg":43394,`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("JSON lacks %s:\n%s", want, s)
		}
	}
	var back Report
	if err := json.Unmarshal(b, &back); err != nil || back.Workloads[1].Results[0].Ratio(BaseEasyproto) != 0.83 {
		t.Errorf("round trip: %v, %+v", err, back)
	}
}

// TestRatioAndFormat checks Result.Ratio's baselines and FormatRatio.
func TestRatioAndFormat(t *testing.T) {
	r := &Result{VsGenerated: 1, VsDynamic: 2, VsFloor: 3, VsHandwritten: 4, VsEasyproto: 5, VsDynamicpbMarshal: 6, VsUnmarshalGenerated: 7, VsUnmarshalDynamicpb: 8}
	for i, b := range []string{BaseGenerated, BaseDynamic, BaseFloor, BaseHandwritten, BaseEasyproto, BaseDynamicpb, BaseUnmarshalGenerated, BaseUnmarshalDynamicpb, "other"} {
		want := float64(i + 1)
		if b == "other" {
			want = 0
		}
		if got := r.Ratio(b); got != want {
			t.Errorf("Ratio(%q) = %v, want %v", b, got, want)
		}
	}
	for r, want := range map[float64]string{0: "-", 0.004: "0.00x", 0.125: "0.12x", 1: "1.00x", 99.994: "99.99x", 99.996: "100.00x", 100: "100x", 1234.5: "1,235x"} {
		if got := FormatRatio(r); got != want {
			t.Errorf("FormatRatio(%v) = %q, want %q", r, got, want)
		}
	}
	if got := strings.Join(Baselines(FamilyWriter), " "); got != "handwritten easyproto dynamicpb+marshal" {
		t.Errorf("Baselines(writer) = %s", got)
	}
	if got := strings.Join(Baselines(FamilyUnmarshal), " "); got != "unmarshal/generated unmarshal/dynamicpb" {
		t.Errorf("Baselines(unmarshal) = %s", got)
	}
}
