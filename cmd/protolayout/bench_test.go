package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	collectorpb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// benchContestants are the rows every bench table has.
var benchContestants = []string{
	"proto/dynamicpb", "proto/dynamicpb-det", "floor/range", "floor/has-get",
	"protolayout/dynamicpb", "protolayout/dynamicpb-reuse", "protolayout/dynamicpb-det",
}

// quick are the flags that keep a bench run short.
var quick = []string{"-benchtime", "1x", "-count", "1"}

// TestBenchOTLP runs bench as a user would on an OpenTelemetry collector's
// traffic: the trace service's descriptor set (as buf build -o writes it)
// and a file of exports as JSON lines; it prints the ratios and draws the
// chart.
func TestBenchOTLP(t *testing.T) {
	dir := t.TempDir()
	set := filepath.Join(dir, "otlp.binpb")
	if err := os.WriteFile(set, descriptorSetOf(t, (&collectorpb.ExportTraceServiceRequest{}).ProtoReflect().Descriptor().ParentFile()), 0o644); err != nil {
		t.Fatal(err)
	}
	var lines bytes.Buffer
	for i := range 4 {
		b, err := protojson.Marshal(otlpExport(i))
		if err != nil {
			t.Fatal(err)
		}
		lines.Write(b)
		lines.WriteByte('\n')
	}
	exports := filepath.Join(dir, "exports.jsonl")
	if err := os.WriteFile(exports, lines.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	svg := filepath.Join(dir, "chart.svg")
	const typ = "opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest"
	out := string(ok(t, nil, append([]string{"bench", "-descriptors", set, "-type", typ, "-messages", exports, "-svg", svg}, quick...)...))
	for _, want := range append([]string{typ + ": 4 messages from exports.jsonl", "vs proto/dynamicpb", "vs floor", "ns/op", "B/op", "allocs/op"}, benchContestants...) {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "vs proto/generated") {
		t.Errorf("a ratio to generated code, which bench does not run:\n%s", out)
	}
	checkSVG(t, svg, typ)
}

// TestBenchFormats runs bench on the test schema's messages as JSON lines
// and as length-delimited binary, with both ways of giving the schema, as
// tables and as JSON.
func TestBenchFormats(t *testing.T) {
	dir := t.TempDir()
	msgs := []proto.Message{
		parse(t, "test.v3.Thing", "json", readFile(t, "thing.json")),
		parse(t, "test.v3.Thing", "text", readFile(t, "thing.txtpb")),
	}
	var jsonl, delimited bytes.Buffer
	for _, m := range msgs {
		b, err := protojson.MarshalOptions{Resolver: testTypes}.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		jsonl.Write(b)
		jsonl.WriteString("\n\n") // blank lines are skipped
		w := marshalDeterministic(t, m)
		delimited.Write(protowire.AppendVarint(nil, uint64(len(w))))
		delimited.Write(w)
	}
	files := map[string][]byte{"things.jsonl": jsonl.Bytes(), "things.binpb": delimited.Bytes()}
	for name, data := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for how, schema := range schemaArgs() {
			args := append(append([]string{"bench", "-type", "test.v3.Thing", "-messages", path}, schema...), quick...)
			out := string(ok(t, nil, args...))
			if want := "test.v3.Thing: 2 messages from " + name; !strings.Contains(out, want) {
				t.Errorf("%s, -%s: the report lacks %q:\n%s", name, how, want, out)
			}
			var rep struct {
				Workloads []struct {
					Name    string
					Size    int `json:"size_bytes"`
					Results []struct {
						Contestant string
						NsPerOp    float64 `json:"ns_per_op"`
					}
				}
			}
			js := ok(t, nil, append(args, "-json")...)
			if err := json.Unmarshal(js, &rep); err != nil {
				t.Fatalf("%s, -%s: -json output: %v\n%s", name, how, err, js)
			}
			if len(rep.Workloads) != 1 || len(rep.Workloads[0].Results) != len(benchContestants) {
				t.Fatalf("%s, -%s: -json report %+v", name, how, rep)
			}
			size := 0
			for _, m := range msgs {
				size += len(marshalDeterministic(t, m))
			}
			if got := rep.Workloads[0].Size; got != size {
				t.Errorf("%s, -%s: size %d, want the messages' %d bytes", name, how, got, size)
			}
			for i, r := range rep.Workloads[0].Results {
				if r.Contestant != benchContestants[i] {
					t.Errorf("%s, -%s: contestant %d is %q, want %q", name, how, i, r.Contestant, benchContestants[i])
				}
			}
		}
	}
}

// TestBenchErrors checks that bad flags and bad message files give one
// clear line and the right exit status.
func TestBenchErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := marshalDeterministic(t, parse(t, "test.v3.Thing", "json", readFile(t, "thing.json")))
	delim := func(bs ...[]byte) []byte {
		var out []byte
		for _, b := range bs {
			out = protowire.AppendBytes(out, b)
		}
		return out
	}
	badJSON := write("bad.jsonl", []byte("{\"id\": \"1\"}\n{\"id\": \n"))
	unknownField := write("unknown.jsonl", []byte("{\"nope\": 1}\n"))
	empty := write("empty.jsonl", []byte("\n\n"))
	cut := write("cut.binpb", delim(good, good)[:len(good)+5])
	notProto := write("garbage.binpb", delim([]byte{0xff, 0xff}))
	schema := []string{"-proto", protoDir, "-type", "test.v3.Thing"}
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no -messages", append([]string{"bench"}, schema...), exitUsage, "protolayout: bench: -messages FILE is required"},
		{"-count 0", append([]string{"bench", "-messages", empty, "-count", "0"}, schema...), exitUsage, "protolayout: bench: -count must be at least 1, not 0"},
		{"a missing file", append([]string{"bench", "-messages", filepath.Join(dir, "none.jsonl")}, schema...), exitError, "protolayout: reading the messages: open "},
		{"bad JSON", append([]string{"bench", "-messages", badJSON}, schema...), exitError, "protolayout: " + badJSON + ":2: parsing test.v3.Thing from JSON: "},
		{"an unknown field", append([]string{"bench", "-messages", unknownField}, schema...), exitError, "protolayout: " + unknownField + ":1: parsing test.v3.Thing from JSON: "},
		{"no messages", append([]string{"bench", "-messages", empty}, schema...), exitError, "protolayout: " + empty + ": no messages"},
		{"a cut-off message", append([]string{"bench", "-messages", cut}, schema...), exitError, fmt.Sprintf("protolayout: %s: message 2 at byte %d: its length prefix says", cut, len(delim(good)))},
		{"bytes that do not decode", append([]string{"bench", "-messages", notProto}, schema...), exitError, "protolayout: " + notProto + ": message 1 at byte 0: decoding test.v3.Thing: "},
		{"no -type", []string{"bench", "-proto", protoDir, "-messages", empty}, exitUsage, "protolayout: "},
	} {
		r := protolayout(t, nil, c.args...)
		stderr := string(r.stderr)
		if r.code != c.code || !strings.HasPrefix(stderr, c.want) || strings.Count(stderr, "\n") != 1 || len(r.stdout) != 0 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d and one line starting %q", c.name, r.code, r.stdout, stderr, c.code, c.want)
		}
	}
}

// checkSVG checks that path holds well-formed SVG that names want.
func checkSVG(t *testing.T, path, want string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(b))
	root := ""
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the chart is not well-formed XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	if root != "svg" || !bytes.Contains(b, []byte(want)) {
		t.Errorf("the chart's root element is %q (want svg), names %q: %v", root, want, bytes.Contains(b, []byte(want)))
	}
}

// descriptorSetOf returns the encoded FileDescriptorSet of fd and its
// imports.
func descriptorSetOf(t *testing.T, fd protoreflect.FileDescriptor) []byte {
	t.Helper()
	b, err := proto.Marshal(fileSetOf(fd))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// otlpExport is a small trace export, the ith of a file.
func otlpExport(i int) *collectorpb.ExportTraceServiceRequest {
	str := func(k, v string) *commonpb.KeyValue {
		return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
	}
	var spans []*tracepb.Span
	for s := range 3 + i {
		spans = append(spans, &tracepb.Span{
			TraceId:           bytes.Repeat([]byte{byte(i + 1)}, 16),
			SpanId:            bytes.Repeat([]byte{byte(s + 1)}, 8),
			Name:              fmt.Sprintf("GET /items/%d", s),
			Kind:              tracepb.Span_SPAN_KIND_SERVER,
			StartTimeUnixNano: 1_700_000_000_000_000_000 + uint64(s)*1000,
			EndTimeUnixNano:   1_700_000_000_000_500_000 + uint64(s)*1000,
			Attributes:        []*commonpb.KeyValue{str("http.method", "GET"), {Key: "http.status_code", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: 200}}}},
			Status:            &tracepb.Status{Code: tracepb.Status_STATUS_CODE_OK},
		})
	}
	return &collectorpb.ExportTraceServiceRequest{ResourceSpans: []*tracepb.ResourceSpans{{
		Resource:   &resourcepb.Resource{Attributes: []*commonpb.KeyValue{str("service.name", "checkout")}},
		ScopeSpans: []*tracepb.ScopeSpans{{Scope: &commonpb.InstrumentationScope{Name: "otel-go"}, Spans: spans}},
	}}}
}
