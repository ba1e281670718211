package main

import (
	"bytes"
	"math"
	"strings"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/protolayout/protolayout/internal/benchreport"
)

// TestZeroAllocs checks that the floor contestants, and the hand-written
// encoder appending into a buffer with room, allocate nothing per call.
func TestZeroAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	ws, err := workloads()
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		for _, c := range casesOf(w) {
			if c.Contestant.Check != benchreport.CheckDigest && c.Contestant.Name != "handwritten" {
				continue
			}
			if _, err := c.Contestant.Encode(0); err != nil { // warm up: grow buffers
				t.Fatal(err)
			}
			if n := testing.AllocsPerRun(20, func() { _, _ = c.Contestant.Encode(0) }); n != 0 {
				t.Errorf("%s: %v allocs per call, want 0", c.Name(), n)
			}
		}
	}
}

// TestFloorReadsWhatGeneratedHolds checks both floor traversals against the
// digest on the generated twins too, where Range and Has+Get go through
// the generated code's reflection instead of dynamicpb.
func TestFloorReadsWhatGeneratedHolds(t *testing.T) {
	ws, err := workloads()
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		for _, hasGet := range []bool{false, true} {
			got, err := benchreport.ReadFloor("floor", hasGet, []proto.Message{w.generated}).Encode(0)
			if err != nil || !bytes.Equal(got, w.Digest(0)) {
				t.Errorf("%s, hasGet %v: read %x (%v), want %x", w.Name, hasGet, got, err, w.Digest(0))
			}
		}
	}
}

// fullRequest sets every field of every message of the OTLP trace schema,
// with the edge cases of the wire format: zero oneof members, negative
// enums and int32s (ten-byte varints), field 16, an empty nested message.
func fullRequest() *coltracepb.ExportTraceServiceRequest {
	kv := func(k string, v *commonpb.AnyValue) *commonpb.KeyValue { return &commonpb.KeyValue{Key: k, Value: v} }
	values := []*commonpb.AnyValue{
		{Value: &commonpb.AnyValue_StringValue{StringValue: ""}},
		{Value: &commonpb.AnyValue_StringValue{StringValue: "ünïcødé ✓"}},
		{Value: &commonpb.AnyValue_BoolValue{BoolValue: false}},
		{Value: &commonpb.AnyValue_BoolValue{BoolValue: true}},
		{Value: &commonpb.AnyValue_IntValue{IntValue: 0}},
		{Value: &commonpb.AnyValue_IntValue{IntValue: math.MinInt64}},
		{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: 0}},
		{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: math.Copysign(0, -1)}},
		{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: math.Inf(1)}},
		{Value: &commonpb.AnyValue_BytesValue{BytesValue: nil}},
		{Value: &commonpb.AnyValue_BytesValue{BytesValue: []byte{0, 1, 2}}},
		{Value: &commonpb.AnyValue_StringValueStrindex{StringValueStrindex: -3}},
		{Value: &commonpb.AnyValue_ArrayValue{ArrayValue: &commonpb.ArrayValue{}}},
		{Value: &commonpb.AnyValue_KvlistValue{KvlistValue: &commonpb.KeyValueList{}}},
		{},
	}
	attrs := []*commonpb.KeyValue{
		{KeyStrindex: -1},
		{Key: "empty", Value: &commonpb.AnyValue{}},
		kv("array", &commonpb.AnyValue{Value: &commonpb.AnyValue_ArrayValue{ArrayValue: &commonpb.ArrayValue{Values: values}}}),
		kv("kvlist", &commonpb.AnyValue{Value: &commonpb.AnyValue_KvlistValue{KvlistValue: &commonpb.KeyValueList{
			Values: []*commonpb.KeyValue{kv("a", values[1]), kv("b", values[5]), {KeyStrindex: 7}},
		}}}),
	}
	for i, v := range values {
		attrs = append(attrs, kv(string(rune('a'+i)), v))
	}
	span := &tracepb.Span{
		TraceId:                make([]byte, 16),
		SpanId:                 []byte{1, 2, 3, 4, 5, 6, 7, 8},
		TraceState:             "a=b",
		ParentSpanId:           []byte{8},
		Flags:                  math.MaxUint32,
		Name:                   "name",
		Kind:                   -1,
		StartTimeUnixNano:      1,
		EndTimeUnixNano:        math.MaxUint64,
		Attributes:             attrs,
		DroppedAttributesCount: 1,
		Events: []*tracepb.Span_Event{
			{TimeUnixNano: 5, Name: "ev", Attributes: attrs[:3], DroppedAttributesCount: 300},
			{},
		},
		DroppedEventsCount: 2,
		Links: []*tracepb.Span_Link{
			{TraceId: []byte{9}, SpanId: []byte{10}, TraceState: "x", Attributes: attrs[2:4], DroppedAttributesCount: 3, Flags: 0x100},
			{},
		},
		DroppedLinksCount: math.MaxUint32,
		Status:            &tracepb.Status{Message: "ok", Code: tracepb.Status_STATUS_CODE_ERROR},
	}
	return &coltracepb.ExportTraceServiceRequest{ResourceSpans: []*tracepb.ResourceSpans{
		{
			Resource: &resourcepb.Resource{
				Attributes:             attrs[:2],
				DroppedAttributesCount: 4,
				EntityRefs: []*commonpb.EntityRef{
					{SchemaUrl: "s", Type: "service", IdKeys: []string{"a", ""}, DescriptionKeys: []string{"", "b"}},
					{},
				},
			},
			ScopeSpans: []*tracepb.ScopeSpans{
				{
					Scope:     &commonpb.InstrumentationScope{Name: "n", Version: "v", Attributes: attrs[:1], DroppedAttributesCount: 6},
					Spans:     []*tracepb.Span{span, {}, {Status: &tracepb.Status{}}},
					SchemaUrl: "u",
				},
				{Scope: &commonpb.InstrumentationScope{}},
			},
			SchemaUrl: "url",
		},
		{},
	}}
}

// TestHandwrittenEveryField holds the hand-written OTLP encoder to the
// reference on a message that sets every field of the schema.
func TestHandwrittenEveryField(t *testing.T) {
	m := fullRequest()
	want, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var e otlpEncoder
	prefix := []byte("prefix")
	for call := range 2 {
		got, err := e.MarshalAppend(bytes.Clone(prefix), m)
		if err != nil {
			t.Fatalf("call %d: %v", call, err)
		}
		if !bytes.HasPrefix(got, prefix) || !bytes.Equal(got[len(prefix):], want) {
			t.Fatalf("call %d: %d bytes, want %d; first difference at offset %d", call, len(got)-len(prefix), len(want), firstDiff(got[len(prefix):], want))
		}
	}
}

// TestHandwrittenInvalidUTF8 checks that the hand-written encoder refuses
// invalid UTF-8 in every string field where proto.Marshal does, appending
// nothing.
func TestHandwrittenInvalidUTF8(t *testing.T) {
	const bad = "bad \xff"
	for _, tc := range []struct {
		field string
		set   func(m *coltracepb.ExportTraceServiceRequest)
	}{
		{"ResourceSpans.schema_url", func(m *coltracepb.ExportTraceServiceRequest) { m.ResourceSpans[0].SchemaUrl = bad }},
		{"EntityRef.id_keys", func(m *coltracepb.ExportTraceServiceRequest) {
			m.ResourceSpans[0].Resource.EntityRefs[0].IdKeys[1] = bad
		}},
		{"InstrumentationScope.version", func(m *coltracepb.ExportTraceServiceRequest) {
			m.ResourceSpans[0].ScopeSpans[0].Scope.Version = bad
		}},
		{"Span.name", func(m *coltracepb.ExportTraceServiceRequest) { m.ResourceSpans[0].ScopeSpans[0].Spans[0].Name = bad }},
		{"Span.Event.name", func(m *coltracepb.ExportTraceServiceRequest) {
			m.ResourceSpans[0].ScopeSpans[0].Spans[0].Events[0].Name = bad
		}},
		{"Span.Link.trace_state", func(m *coltracepb.ExportTraceServiceRequest) {
			m.ResourceSpans[0].ScopeSpans[0].Spans[0].Links[0].TraceState = bad
		}},
		{"Status.message", func(m *coltracepb.ExportTraceServiceRequest) {
			m.ResourceSpans[0].ScopeSpans[0].Spans[0].Status.Message = bad
		}},
		{"KeyValue.key", func(m *coltracepb.ExportTraceServiceRequest) {
			m.ResourceSpans[0].ScopeSpans[0].Spans[0].Attributes[3].Key = bad
		}},
		{"AnyValue.string_value", func(m *coltracepb.ExportTraceServiceRequest) {
			m.ResourceSpans[0].ScopeSpans[0].Spans[0].Attributes[2].Value.GetArrayValue().Values[0] =
				&commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: bad}}
		}},
	} {
		m := fullRequest()
		tc.set(m)
		if _, err := proto.Marshal(m); err == nil {
			t.Fatalf("%s: proto.Marshal accepted invalid UTF-8; the test is wrong", tc.field)
		}
		var e otlpEncoder
		got, err := e.MarshalAppend([]byte("prefix"), m)
		if err == nil {
			t.Errorf("%s: invalid UTF-8 accepted", tc.field)
			continue
		}
		if string(got) != "prefix" {
			t.Errorf("%s: appended %q on error", tc.field, got)
		}
		if !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%s: error %q does not name the field", tc.field, err)
		}
	}
}

// firstDiff returns the offset of the first byte where a and b differ (the
// shorter one's length if one is a prefix of the other).
func firstDiff(a, b []byte) int {
	i := 0
	for i < min(len(a), len(b)) && a[i] == b[i] {
		i++
	}
	return i
}
