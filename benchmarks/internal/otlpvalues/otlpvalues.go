// Package otlpvalues writes an OTLP trace export request through the
// value Writer from plain Go values (the fields of the generated OTLP
// structs, read as ordinary Go values, not through protoreflect): the
// workload the Writer's tests (internal/otlptest) and the benchmark program
// share.
package otlpvalues

import (
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/protolayout/protolayout/encoder"
)

// WriteRequest writes req with w, which must be a Writer for
// opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest (from
// any schema load). Field numbers are the schema's; the Writer checks each
// against the descriptor, skips implicit-presence zeros and validates
// UTF-8.
func WriteRequest(w *encoder.Writer, req *coltracepb.ExportTraceServiceRequest) {
	for _, rs := range req.ResourceSpans {
		w.Begin(1)
		if r := rs.Resource; r != nil {
			w.Begin(1)
			writeAttrs(w, 1, r.Attributes)
			w.Uint32(2, r.DroppedAttributesCount)
			for _, ref := range r.EntityRefs {
				w.Begin(3)
				w.String(1, ref.SchemaUrl)
				w.String(2, ref.Type)
				w.Strings(3, ref.IdKeys)
				w.Strings(4, ref.DescriptionKeys)
				w.End()
			}
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
				writeSpan(w, s)
			}
			w.String(3, ss.SchemaUrl)
			w.End()
		}
		w.String(3, rs.SchemaUrl)
		w.End()
	}
}

func writeSpan(w *encoder.Writer, s *tracepb.Span) {
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

func writeAttrs(w *encoder.Writer, num protowire.Number, kvs []*commonpb.KeyValue) {
	for _, kv := range kvs {
		w.Begin(num)
		w.String(1, kv.Key)
		if v := kv.Value; v != nil {
			w.Begin(2)
			writeAnyValue(w, v)
			w.End()
		}
		w.Int32(3, kv.KeyStrindex)
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
	case *commonpb.AnyValue_StringValueStrindex:
		w.Int32(8, x.StringValueStrindex)
	}
}
