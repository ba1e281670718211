package encoder_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"unicode/utf8"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/protobuftest"
)

// The OTLP workload of the Writer benchmarks: an ExportTraceServiceRequest
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

// writeOTLP writes req through w, field by field from plain values, as a
// producer holding the data in its own structures would.
func writeOTLP(w *encoder.Writer, req *coltracepb.ExportTraceServiceRequest) {
	for _, rs := range req.ResourceSpans {
		w.Begin(1)
		if r := rs.Resource; r != nil {
			w.Begin(1)
			writeAttrs(w, 1, r.Attributes)
			w.Uint32(2, r.DroppedAttributesCount)
			w.End()
		}
		for _, ss := range rs.ScopeSpans {
			w.Begin(2)
			if sc := ss.Scope; sc != nil {
				w.Begin(1)
				w.String(1, sc.Name)
				w.String(2, sc.Version)
				writeAttrs(w, 3, sc.Attributes)
				w.Uint32(4, sc.DroppedAttributesCount)
				w.End()
			}
			for _, s := range ss.Spans {
				w.Begin(2)
				w.Bytes(1, s.TraceId)
				w.Bytes(2, s.SpanId)
				w.String(3, s.TraceState)
				w.Bytes(4, s.ParentSpanId)
				w.String(5, s.Name)
				w.Enum(6, protoreflect.EnumNumber(s.Kind))
				w.Uint64(7, s.StartTimeUnixNano)
				w.Uint64(8, s.EndTimeUnixNano)
				writeAttrs(w, 9, s.Attributes)
				w.Uint32(10, s.DroppedAttributesCount)
				for _, e := range s.Events {
					w.Begin(11)
					w.Uint64(1, e.TimeUnixNano)
					w.String(2, e.Name)
					writeAttrs(w, 3, e.Attributes)
					w.Uint32(4, e.DroppedAttributesCount)
					w.End()
				}
				w.Uint32(12, s.DroppedEventsCount)
				for _, l := range s.Links {
					w.Begin(13)
					w.Bytes(1, l.TraceId)
					w.Bytes(2, l.SpanId)
					w.String(3, l.TraceState)
					writeAttrs(w, 4, l.Attributes)
					w.Uint32(5, l.DroppedAttributesCount)
					w.Uint32(6, l.Flags)
					w.End()
				}
				w.Uint32(14, s.DroppedLinksCount)
				if st := s.Status; st != nil {
					w.Begin(15)
					w.String(2, st.Message)
					w.Enum(3, protoreflect.EnumNumber(st.Code))
					w.End()
				}
				w.Uint32(16, s.Flags)
				w.End()
			}
			w.String(3, ss.SchemaUrl)
			w.End()
		}
		w.String(3, rs.SchemaUrl)
		w.End()
	}
}

func writeAttrs(w *encoder.Writer, num protowire.Number, kvs []*commonpb.KeyValue) {
	for _, kv := range kvs {
		w.Begin(num)
		w.String(1, kv.Key)
		if kv.Value != nil {
			w.Begin(2)
			writeAnyValue(w, kv.Value)
			w.End()
		}
		w.End()
	}
}

func writeAnyValue(w *encoder.Writer, v *commonpb.AnyValue) {
	switch x := v.Value.(type) {
	case *commonpb.AnyValue_StringValue:
		w.String(1, x.StringValue)
	case *commonpb.AnyValue_BoolValue:
		w.Bool(2, x.BoolValue)
	case *commonpb.AnyValue_IntValue:
		w.Int64(3, x.IntValue)
	case *commonpb.AnyValue_DoubleValue:
		w.Float64(4, x.DoubleValue)
	case *commonpb.AnyValue_ArrayValue:
		w.Begin(5)
		for _, e := range x.ArrayValue.Values {
			w.Begin(1)
			writeAnyValue(w, e)
			w.End()
		}
		w.End()
	case *commonpb.AnyValue_KvlistValue:
		w.Begin(6)
		writeAttrs(w, 1, x.KvlistValue.Values)
		w.End()
	case *commonpb.AnyValue_BytesValue:
		w.Bytes(7, x.BytesValue)
	}
}

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
			writeOTLP(w, req)
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
	if got, want := handWrittenOTLP(nil, req), otlpReference(); !bytes.Equal(got, want) {
		t.Fatalf("the hand-written encoder differs from the reference at %s", protobuftest.FirstDiff(got, want, otlpDesc))
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
			writeOTLP(w, req)
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

// BenchmarkWriterOTLP compares, on the same values, the Writer under each
// length strategy, a hand-written protowire encoder with UTF-8 checks (the
// floor), and building a dynamicpb message then proto.Marshal.
func BenchmarkWriterOTLP(b *testing.B) {
	req := otlpValues()
	size := int64(len(otlpReference()))
	for _, s := range strategies {
		b.Run("writer-"+s.String(), func(b *testing.B) {
			w := encoder.NewWriter(otlpDesc, encoder.WriterOptions{Lengths: s})
			moves := 0
			b.ReportAllocs()
			b.SetBytes(size)
			for b.Loop() {
				w.Reset()
				writeOTLP(w, req)
				if _, err := w.Finish(); err != nil {
					b.Fatal(err)
				}
				moves += w.Stats().Moves
			}
			b.ReportMetric(float64(moves)/float64(b.N), "moves/msg")
		})
	}
	b.Run("handwritten-utf8", func(b *testing.B) {
		var buf []byte
		b.ReportAllocs()
		b.SetBytes(size)
		for b.Loop() {
			buf = handWrittenOTLP(buf[:0], req)
		}
	})
	b.Run("dynamicpb-build-marshal", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(size)
		for b.Loop() {
			if _, err := proto.Marshal(buildDynamicOTLP(req)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// handWrittenOTLP is the floor: a hand-written protowire encoder for the
// same values, with UTF-8 checks on strings, nested lengths reserved as
// one byte and patched (moving the body when longer), no other checks.
func handWrittenOTLP(b []byte, req *coltracepb.ExportTraceServiceRequest) []byte {
	for _, rs := range req.ResourceSpans {
		var m1 int
		b, m1 = hwBegin(b, 1)
		if r := rs.Resource; r != nil {
			var m2 int
			b, m2 = hwBegin(b, 1)
			b = hwAttrs(b, 1, r.Attributes)
			b = hwUint(b, 2, uint64(r.DroppedAttributesCount))
			b = hwEnd(b, m2)
		}
		for _, ss := range rs.ScopeSpans {
			var m2 int
			b, m2 = hwBegin(b, 2)
			if sc := ss.Scope; sc != nil {
				var m3 int
				b, m3 = hwBegin(b, 1)
				b = hwString(b, 1, sc.Name)
				b = hwString(b, 2, sc.Version)
				b = hwAttrs(b, 3, sc.Attributes)
				b = hwUint(b, 4, uint64(sc.DroppedAttributesCount))
				b = hwEnd(b, m3)
			}
			for _, s := range ss.Spans {
				var m3 int
				b, m3 = hwBegin(b, 2)
				b = hwBytes(b, 1, s.TraceId)
				b = hwBytes(b, 2, s.SpanId)
				b = hwString(b, 3, s.TraceState)
				b = hwBytes(b, 4, s.ParentSpanId)
				b = hwString(b, 5, s.Name)
				b = hwUint(b, 6, uint64(s.Kind))
				b = hwFixed64(b, 7, s.StartTimeUnixNano)
				b = hwFixed64(b, 8, s.EndTimeUnixNano)
				b = hwAttrs(b, 9, s.Attributes)
				b = hwUint(b, 10, uint64(s.DroppedAttributesCount))
				for _, e := range s.Events {
					var m4 int
					b, m4 = hwBegin(b, 11)
					b = hwFixed64(b, 1, e.TimeUnixNano)
					b = hwString(b, 2, e.Name)
					b = hwAttrs(b, 3, e.Attributes)
					b = hwUint(b, 4, uint64(e.DroppedAttributesCount))
					b = hwEnd(b, m4)
				}
				b = hwUint(b, 12, uint64(s.DroppedEventsCount))
				for _, l := range s.Links {
					var m4 int
					b, m4 = hwBegin(b, 13)
					b = hwBytes(b, 1, l.TraceId)
					b = hwBytes(b, 2, l.SpanId)
					b = hwString(b, 3, l.TraceState)
					b = hwAttrs(b, 4, l.Attributes)
					b = hwUint(b, 5, uint64(l.DroppedAttributesCount))
					if l.Flags != 0 {
						b = protowire.AppendTag(b, 6, protowire.Fixed32Type)
						b = protowire.AppendFixed32(b, l.Flags)
					}
					b = hwEnd(b, m4)
				}
				b = hwUint(b, 14, uint64(s.DroppedLinksCount))
				if st := s.Status; st != nil {
					var m4 int
					b, m4 = hwBegin(b, 15)
					b = hwString(b, 2, st.Message)
					b = hwUint(b, 3, uint64(st.Code))
					b = hwEnd(b, m4)
				}
				if s.Flags != 0 {
					b = protowire.AppendTag(b, 16, protowire.Fixed32Type)
					b = protowire.AppendFixed32(b, s.Flags)
				}
				b = hwEnd(b, m3)
			}
			b = hwString(b, 3, ss.SchemaUrl)
			b = hwEnd(b, m2)
		}
		b = hwString(b, 3, rs.SchemaUrl)
		b = hwEnd(b, m1)
	}
	return b
}

func hwBegin(b []byte, num protowire.Number) ([]byte, int) {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return append(b, 0), len(b) + 1
}

func hwEnd(b []byte, start int) []byte {
	n := len(b) - start
	if n < 0x80 {
		b[start-1] = byte(n)
		return b
	}
	w := protowire.SizeVarint(uint64(n))
	b = append(b, make([]byte, w-1)...)
	copy(b[start+w-1:], b[start:start+n])
	protowire.AppendVarint(b[start-1:start-1], uint64(n))
	return b
}

func hwAttrs(b []byte, num protowire.Number, kvs []*commonpb.KeyValue) []byte {
	for _, kv := range kvs {
		var m int
		b, m = hwBegin(b, num)
		b = hwString(b, 1, kv.Key)
		if kv.Value != nil {
			var m2 int
			b, m2 = hwBegin(b, 2)
			b = hwAnyValue(b, kv.Value)
			b = hwEnd(b, m2)
		}
		b = hwEnd(b, m)
	}
	return b
}

func hwAnyValue(b []byte, v *commonpb.AnyValue) []byte {
	switch x := v.Value.(type) {
	case *commonpb.AnyValue_StringValue:
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		if !utf8.ValidString(x.StringValue) {
			panic("invalid UTF-8")
		}
		b = protowire.AppendString(b, x.StringValue)
	case *commonpb.AnyValue_BoolValue:
		b = protowire.AppendTag(b, 2, protowire.VarintType)
		b = protowire.AppendVarint(b, protowire.EncodeBool(x.BoolValue))
	case *commonpb.AnyValue_IntValue:
		b = protowire.AppendTag(b, 3, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(x.IntValue))
	case *commonpb.AnyValue_DoubleValue:
		b = protowire.AppendTag(b, 4, protowire.Fixed64Type)
		b = protowire.AppendFixed64(b, math.Float64bits(x.DoubleValue))
	case *commonpb.AnyValue_ArrayValue:
		var m int
		b, m = hwBegin(b, 5)
		for _, e := range x.ArrayValue.Values {
			var m2 int
			b, m2 = hwBegin(b, 1)
			b = hwAnyValue(b, e)
			b = hwEnd(b, m2)
		}
		b = hwEnd(b, m)
	case *commonpb.AnyValue_KvlistValue:
		var m int
		b, m = hwBegin(b, 6)
		b = hwAttrs(b, 1, x.KvlistValue.Values)
		b = hwEnd(b, m)
	case *commonpb.AnyValue_BytesValue:
		b = protowire.AppendTag(b, 7, protowire.BytesType)
		b = protowire.AppendBytes(b, x.BytesValue)
	}
	return b
}

func hwString(b []byte, num protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	if !utf8.ValidString(s) {
		panic("invalid UTF-8") // a real encoder would return an error
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func hwBytes(b []byte, num protowire.Number, s []byte) []byte {
	if len(s) == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, s)
}

func hwUint(b []byte, num protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func hwFixed64(b []byte, num protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.Fixed64Type)
	return protowire.AppendFixed64(b, v)
}

// buildDynamicOTLP builds a dynamicpb message holding the values, as a
// producer without the Writer would before calling proto.Marshal.
func buildDynamicOTLP(req *coltracepb.ExportTraceServiceRequest) proto.Message {
	m := dynamicpb.NewMessage(otlpDesc)
	copyInto(m, req.ProtoReflect())
	return m
}

// copyInto sets every populated field of src into dst, field by field
// through protoreflect, as code filling a dynamicpb message from its own
// values does.
func copyInto(dst protoreflect.Message, src protoreflect.Message) {
	src.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		dfd := dst.Descriptor().Fields().ByNumber(fd.Number())
		switch {
		case fd.IsList():
			l := dst.Mutable(dfd).List()
			sl := v.List()
			for i := range sl.Len() {
				if fd.Message() != nil {
					e := l.NewElement()
					copyInto(e.Message(), sl.Get(i).Message())
					l.Append(e)
				} else {
					l.Append(sl.Get(i))
				}
			}
		case fd.Message() != nil:
			copyInto(dst.Mutable(dfd).Message(), v.Message())
		case fd.Enum() != nil:
			dst.Set(dfd, protoreflect.ValueOfEnum(v.Enum()))
		default:
			dst.Set(dfd, v)
		}
		return true
	})
}
