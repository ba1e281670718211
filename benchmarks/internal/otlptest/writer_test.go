package otlptest_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/protolayout/protolayout/benchmarks/internal/otlpvalues"
	"github.com/protolayout/protolayout/encoder"
)

// strategies are the length strategies every Writer test runs under (as in
// the encoder's tests).
var strategies = []encoder.LengthStrategy{encoder.LengthLearned, encoder.LengthOneByte}

// raceEnabled is set by race_test.go under the race detector, which
// allocates on its own.
var raceEnabled bool

// The OTLP workload of the Writer's tests (the benchmark program measures
// the same writes, internal/otlpvalues, on its own workload): an ExportTraceServiceRequest
// of 100 spans over 3 resources and 2 scopes each, with attributes of every
// AnyValue kind (nested arrays and kvlists included), events, links and
// statuses, drawn from a fixed seed. The values are read from the generated
// structs as plain Go values; nothing goes through protoreflect.
var otlpValues = sync.OnceValue(func() *coltracepb.ExportTraceServiceRequest {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"cart", "checkout", "db", "edge", "gateway", "kafka", "ledger", "orders", "payment", "redis", "ümlaut", "日本"}
	word := func() string { return words[r.IntN(len(words))] }
	id := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return b
	}
	var value func(kind, depth int) *commonpb.AnyValue
	value = func(kind, depth int) *commonpb.AnyValue {
		switch kind {
		case 0:
			return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: fmt.Sprintf("/%s/%s/%d", word(), word(), r.IntN(10000))}}
		case 1:
			return &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: r.IntN(2) == 1}}
		case 2:
			return &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: r.Int64N(1<<40) - 1<<20}}
		case 3:
			return &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: r.NormFloat64() * 100}}
		case 4:
			return &commonpb.AnyValue{Value: &commonpb.AnyValue_BytesValue{BytesValue: id(4 + r.IntN(28))}}
		}
		inner := func() int {
			if depth < 1 && r.IntN(4) == 0 {
				return 5 + r.IntN(2)
			}
			return r.IntN(5)
		}
		if kind == 5 {
			a := new(commonpb.ArrayValue)
			for range 1 + r.IntN(4) {
				a.Values = append(a.Values, value(inner(), depth+1))
			}
			return &commonpb.AnyValue{Value: &commonpb.AnyValue_ArrayValue{ArrayValue: a}}
		}
		l := new(commonpb.KeyValueList)
		for i := range 1 + r.IntN(4) {
			l.Values = append(l.Values, &commonpb.KeyValue{Key: fmt.Sprintf("%s.%d", word(), i), Value: value(inner(), depth+1)})
		}
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_KvlistValue{KvlistValue: l}}
	}
	spans := 0
	attrs := func(n int) []*commonpb.KeyValue {
		var out []*commonpb.KeyValue
		for i := range n {
			out = append(out, &commonpb.KeyValue{Key: "app." + word() + "." + word(), Value: value((spans+i)%7, 0)})
		}
		return out
	}
	str := func(k, v string) *commonpb.KeyValue {
		return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
	}
	traces := make([][]byte, 12)
	for i := range traces {
		traces[i] = id(16)
	}
	req := new(coltracepb.ExportTraceServiceRequest)
	for ri := range 3 {
		rs := &tracepb.ResourceSpans{
			Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{
				str("service.name", word()+"-"+word()), str("service.version", "1.2.3"),
				str("host.name", fmt.Sprintf("node-%02d.cluster.local", ri)), str("telemetry.sdk.language", "go"),
			}},
			SchemaUrl: "https://opentelemetry.io/schemas/1.26.0",
		}
		for range 2 {
			ss := &tracepb.ScopeSpans{
				Scope:     &commonpb.InstrumentationScope{Name: "go.opentelemetry.io/contrib/" + word(), Version: "0.42.0"},
				SchemaUrl: "https://opentelemetry.io/schemas/1.24.0",
			}
			for range 100 / 6 {
				spans++
				start := uint64(1_767_225_600_000_000_000) + r.Uint64N(60e9)
				s := &tracepb.Span{
					TraceId: traces[r.IntN(len(traces))], SpanId: id(8), Flags: 0x101,
					Name: "GET " + word(), Kind: tracepb.Span_SpanKind(1 + r.IntN(5)),
					StartTimeUnixNano: start, EndTimeUnixNano: start + r.Uint64N(2e9),
					Attributes: attrs(2 + r.IntN(7)),
				}
				if r.IntN(8) != 0 {
					s.ParentSpanId = id(8)
				}
				if r.IntN(3) == 0 {
					s.TraceState = "rojo=00f067aa0ba902b7"
				}
				for range r.IntN(4) {
					s.Events = append(s.Events, &tracepb.Span_Event{TimeUnixNano: start + 1, Name: "retry", Attributes: attrs(1 + r.IntN(3))})
				}
				for range r.IntN(3) {
					s.Links = append(s.Links, &tracepb.Span_Link{TraceId: traces[0], SpanId: id(8), TraceState: "vendor=1", Attributes: attrs(1), Flags: 1})
				}
				switch r.IntN(3) {
				case 0:
					s.Status = &tracepb.Status{Code: tracepb.Status_STATUS_CODE_ERROR, Message: word() + ": deadline exceeded"}
				case 1:
					s.Status = &tracepb.Status{Code: tracepb.Status_STATUS_CODE_OK}
				}
				ss.Spans = append(ss.Spans, s)
			}
			rs.ScopeSpans = append(rs.ScopeSpans, ss)
		}
		req.ResourceSpans = append(req.ResourceSpans, rs)
	}
	return req
})

var otlpDesc = (&coltracepb.ExportTraceServiceRequest{}).ProtoReflect().Descriptor()

// otlpReference is the reference encoding of the workload.
var otlpReference = sync.OnceValue(func() []byte {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(otlpValues())
	if err != nil {
		panic(err)
	}
	return b
})

// TestWriterOTLP writes the OTLP workload from values under each strategy
// and checks the bytes against the reference, and the moves per message
// the benchmark reports.
func TestWriterOTLP(t *testing.T) {
	req, want := otlpValues(), otlpReference()
	for _, s := range strategies {
		w := encoder.NewWriter(otlpDesc, encoder.WriterOptions{Lengths: s})
		for round := range 3 {
			w.Reset()
			otlpvalues.WriteRequest(w, req)
			got, err := w.Finish()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%v round %d: bytes differ from the reference", s, round)
			}
			t.Logf("%v round %d: %d bytes, %d moves, %d bytes moved", s, round, len(got), w.Stats().Moves, w.Stats().MovedBytes)
		}
	}
}

// TestWriterAllocs checks that a reused Writer allocates nothing per
// message in the steady state, on the OTLP workload written from values.
func TestWriterAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	req := otlpValues()
	for _, s := range strategies {
		w := encoder.NewWriter(otlpDesc, encoder.WriterOptions{Lengths: s})
		run := func() {
			w.Reset()
			otlpvalues.WriteRequest(w, req)
			if _, err := w.Finish(); err != nil {
				t.Fatal(err)
			}
		}
		run()
		if n := testing.AllocsPerRun(20, run); n != 0 {
			t.Errorf("%v: %v allocations per message, want 0", s, n)
		}
	}
}
