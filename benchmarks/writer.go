package main

import (
	"fmt"
	"testing"

	"github.com/VictoriaMetrics/easyproto"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/benchmarks/internal/otlpvalues"
	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/internal/benchreport"
)

// The writer family: the OTLP export of the otlp workload, written from
// plain values. The values are the generated Go structs of the otlp
// workload, walked by plain Go code (field by field, no protoreflect), and
// every contestant turns them into the same bytes:
//
//	writer/learned      one reused encoder.Writer, LengthLearned (default)
//	writer/onebyte      one reused encoder.Writer, LengthOneByte
//	handwritten         the hand-written protowire encoder of handwritten.go
//	easyproto           one reused easyproto.Marshaler, fields in order
//	dynamicpb+marshal   build a dynamicpb message, then proto.Marshal
//
// The Writer runs against the descriptor loaded at run time (the dynamic
// twin's), as a proxy would; the dynamicpb message is built on the same
// descriptor.

// familyWriter names the writer family of workloads and contestants;
// the empty family is the marshal family (every other workload).
const familyWriter = benchreport.FamilyWriter

// Baselines of the writer family's ratio columns.
const (
	baseHandwritten = benchreport.BaseHandwritten
	baseEasyproto   = benchreport.BaseEasyproto
	baseDynamicpb   = benchreport.BaseDynamicpb
)

// writerWorkload is the otlp workload's message, to be written from
// values.
func writerWorkload() (*workload, error) {
	w, err := otlpWorkload()
	if err != nil {
		return nil, err
	}
	w.Name = "writer"
	w.Description = "the otlp workload written from values (" + w.Description + ")"
	w.Family = familyWriter
	return w, nil
}

// otlpRequest returns the workload's values, the generated structs.
func otlpRequest(w *workload) (*coltracepb.ExportTraceServiceRequest, error) {
	req, ok := w.generated.(*coltracepb.ExportTraceServiceRequest)
	if !ok {
		return nil, fmt.Errorf("the writer family writes an OTLP trace export, not %T", w.generated)
	}
	return req, nil
}

// failing is a contestant that always fails with err.
func failing(name string, err error) benchreport.Contestant {
	return benchreport.Contestant{Name: name, Encode: func(int) ([]byte, error) { return nil, err }}
}

// writerContestant writes the workload through one reused Writer with the
// given length strategy, and reports its length moves per message.
func writerContestant(s encoder.LengthStrategy) func(name string, w *workload) benchreport.Contestant {
	return func(name string, w *workload) benchreport.Contestant {
		req, err := otlpRequest(w)
		if err != nil {
			return failing(name, err)
		}
		wr := encoder.NewWriter(w.dynamic.ProtoReflect().Descriptor(), encoder.WriterOptions{Lengths: s})
		return benchreport.Contestant{
			Name: name,
			Encode: func(int) ([]byte, error) {
				wr.Reset()
				otlpvalues.WriteRequest(wr, req)
				return wr.Finish()
			},
			Metrics: func(b *testing.B) {
				// Every message is the same, so the last one's moves are
				// each one's (in the steady state the learned widths
				// reach).
				st := wr.Stats()
				b.ReportMetric(float64(st.Moves), benchreport.MetricMoves)
				b.ReportMetric(float64(st.MovedBytes), benchreport.MetricMovedBytes)
			},
		}
	}
}

var writerContestants = []contestant{
	{name: "writer/learned", family: familyWriter, prepare: writerContestant(encoder.LengthLearned)},
	{name: "writer/onebyte", family: familyWriter, prepare: writerContestant(encoder.LengthOneByte)},
	{name: baseHandwritten, family: familyWriter, prepare: handwrittenContestant},
	{name: baseEasyproto, family: familyWriter, prepare: func(name string, w *workload) benchreport.Contestant {
		req, err := otlpRequest(w)
		if err != nil {
			return failing(name, err)
		}
		var m easyproto.Marshaler
		var buf []byte
		return benchreport.Contestant{Name: name, Encode: func(int) ([]byte, error) {
			m.Reset()
			epRequest(m.MessageMarshaler(), req)
			buf = m.Marshal(buf[:0])
			return buf, nil
		}}
	}},
	{name: baseDynamicpb, family: familyWriter, prepare: func(name string, w *workload) benchreport.Contestant {
		req, err := otlpRequest(w)
		if err != nil {
			return failing(name, err)
		}
		b := newDynBuilder(w.dynamic.ProtoReflect().Descriptor())
		o := proto.MarshalOptions{Deterministic: true}
		return benchreport.Contestant{Name: name, Encode: func(int) ([]byte, error) { return o.Marshal(b.request(req)) }}
	}},
}

// easyproto, from the same values. easyproto writes whatever it is given,
// so the walk does what the schema asks: it skips implicit-presence zeros,
// writes oneof members whatever their value, and calls in field-number
// order, which makes the output equal to the reference byte for byte. It
// does not validate UTF-8 (easyproto has no schema to tell it to).

func epRequest(mm *easyproto.MessageMarshaler, req *coltracepb.ExportTraceServiceRequest) {
	for _, rs := range req.ResourceSpans {
		m := mm.AppendMessage(1)
		if r := rs.Resource; r != nil {
			rm := m.AppendMessage(1)
			epAttrs(rm, 1, r.Attributes)
			epUint(rm, 2, uint64(r.DroppedAttributesCount))
			for _, ref := range r.EntityRefs {
				em := rm.AppendMessage(3)
				epString(em, 1, ref.SchemaUrl)
				epString(em, 2, ref.Type)
				for _, s := range ref.IdKeys {
					em.AppendString(3, s)
				}
				for _, s := range ref.DescriptionKeys {
					em.AppendString(4, s)
				}
			}
		}
		for _, ss := range rs.ScopeSpans {
			sm := m.AppendMessage(2)
			if sc := ss.Scope; sc != nil {
				cm := sm.AppendMessage(1)
				epString(cm, 1, sc.Name)
				epString(cm, 2, sc.Version)
				epAttrs(cm, 3, sc.Attributes)
				epUint(cm, 4, uint64(sc.DroppedAttributesCount))
			}
			for _, s := range ss.Spans {
				epSpan(sm.AppendMessage(2), s)
			}
			epString(sm, 3, ss.SchemaUrl)
		}
		epString(m, 3, rs.SchemaUrl)
	}
}

func epSpan(m *easyproto.MessageMarshaler, s *tracepb.Span) {
	epBytes(m, 1, s.TraceId)
	epBytes(m, 2, s.SpanId)
	epString(m, 3, s.TraceState)
	epBytes(m, 4, s.ParentSpanId)
	epString(m, 5, s.Name)
	epUint(m, 6, uint64(int64(s.Kind)))
	epFixed64(m, 7, s.StartTimeUnixNano)
	epFixed64(m, 8, s.EndTimeUnixNano)
	epAttrs(m, 9, s.Attributes)
	epUint(m, 10, uint64(s.DroppedAttributesCount))
	for _, e := range s.Events {
		em := m.AppendMessage(11)
		epFixed64(em, 1, e.TimeUnixNano)
		epString(em, 2, e.Name)
		epAttrs(em, 3, e.Attributes)
		epUint(em, 4, uint64(e.DroppedAttributesCount))
	}
	epUint(m, 12, uint64(s.DroppedEventsCount))
	for _, l := range s.Links {
		lm := m.AppendMessage(13)
		epBytes(lm, 1, l.TraceId)
		epBytes(lm, 2, l.SpanId)
		epString(lm, 3, l.TraceState)
		epAttrs(lm, 4, l.Attributes)
		epUint(lm, 5, uint64(l.DroppedAttributesCount))
		if l.Flags != 0 {
			lm.AppendFixed32(6, l.Flags)
		}
	}
	epUint(m, 14, uint64(s.DroppedLinksCount))
	if st := s.Status; st != nil {
		stm := m.AppendMessage(15)
		epString(stm, 2, st.Message)
		epUint(stm, 3, uint64(int64(st.Code)))
	}
	if s.Flags != 0 {
		m.AppendFixed32(16, s.Flags)
	}
}

func epAttrs(m *easyproto.MessageMarshaler, num uint32, kvs []*commonpb.KeyValue) {
	for _, kv := range kvs {
		km := m.AppendMessage(num)
		epString(km, 1, kv.Key)
		if v := kv.Value; v != nil {
			epAnyValue(km.AppendMessage(2), v)
		}
		epUint(km, 3, uint64(int64(kv.KeyStrindex)))
	}
}

func epAnyValue(m *easyproto.MessageMarshaler, v *commonpb.AnyValue) {
	switch x := v.Value.(type) {
	case *commonpb.AnyValue_StringValue:
		m.AppendString(1, x.StringValue)
	case *commonpb.AnyValue_BoolValue:
		m.AppendBool(2, x.BoolValue)
	case *commonpb.AnyValue_IntValue:
		m.AppendInt64(3, x.IntValue)
	case *commonpb.AnyValue_DoubleValue:
		m.AppendDouble(4, x.DoubleValue)
	case *commonpb.AnyValue_ArrayValue:
		am := m.AppendMessage(5)
		for _, e := range x.ArrayValue.Values {
			epAnyValue(am.AppendMessage(1), e)
		}
	case *commonpb.AnyValue_KvlistValue:
		epAttrs(m.AppendMessage(6), 1, x.KvlistValue.Values)
	case *commonpb.AnyValue_BytesValue:
		m.AppendBytes(7, x.BytesValue)
	case *commonpb.AnyValue_StringValueStrindex:
		m.AppendInt32(8, x.StringValueStrindex)
	}
}

func epString(m *easyproto.MessageMarshaler, num uint32, s string) {
	if s != "" {
		m.AppendString(num, s)
	}
}

func epBytes(m *easyproto.MessageMarshaler, num uint32, b []byte) {
	if len(b) > 0 {
		m.AppendBytes(num, b)
	}
}

func epUint(m *easyproto.MessageMarshaler, num uint32, v uint64) {
	if v != 0 {
		m.AppendUint64(num, v)
	}
}

func epFixed64(m *easyproto.MessageMarshaler, num uint32, v uint64) {
	if v != 0 {
		m.AppendFixed64(num, v)
	}
}

// dynamicpb, from the same values: a producer without the Writer builds a
// dynamicpb message on the run-time descriptor, with every field
// descriptor resolved once (dynType), then marshals it.

// dynType is one message type of the schema, its fields indexed by number.
type dynType struct {
	md protoreflect.MessageDescriptor
	f  [17]protoreflect.FieldDescriptor
}

func newDynType(md protoreflect.MessageDescriptor) *dynType {
	t := &dynType{md: md}
	fields := md.Fields()
	for i := range fields.Len() {
		if fd := fields.Get(i); int(fd.Number()) < len(t.f) {
			t.f[fd.Number()] = fd
		}
	}
	return t
}

// child returns the type of the message in field num of t.
func (t *dynType) child(num int) *dynType { return newDynType(t.f[num].Message()) }

// dynBuilder builds the dynamicpb message of an export.
type dynBuilder struct {
	req, resourceSpans, resource, entityRef, scopeSpans, scope   *dynType
	span, event, link, status, keyValue, anyValue, array, kvlist *dynType
}

func newDynBuilder(md protoreflect.MessageDescriptor) *dynBuilder {
	b := &dynBuilder{req: newDynType(md)}
	b.resourceSpans = b.req.child(1)
	b.resource = b.resourceSpans.child(1)
	b.entityRef = b.resource.child(3)
	b.scopeSpans = b.resourceSpans.child(2)
	b.scope = b.scopeSpans.child(1)
	b.span = b.scopeSpans.child(2)
	b.event = b.span.child(11)
	b.link = b.span.child(13)
	b.status = b.span.child(15)
	b.keyValue = b.span.child(9)
	b.anyValue = b.keyValue.child(2)
	b.array = b.anyValue.child(5)
	b.kvlist = b.anyValue.child(6)
	return b
}

func setString(m protoreflect.Message, t *dynType, num int, s string) {
	if s != "" {
		m.Set(t.f[num], protoreflect.ValueOfString(s))
	}
}

func setBytes(m protoreflect.Message, t *dynType, num int, v []byte) {
	if len(v) > 0 {
		m.Set(t.f[num], protoreflect.ValueOfBytes(v))
	}
}

func setUint32(m protoreflect.Message, t *dynType, num int, v uint32) {
	if v != 0 {
		m.Set(t.f[num], protoreflect.ValueOfUint32(v))
	}
}

func setUint64(m protoreflect.Message, t *dynType, num int, v uint64) {
	if v != 0 {
		m.Set(t.f[num], protoreflect.ValueOfUint64(v))
	}
}

func setEnum(m protoreflect.Message, t *dynType, num int, v int32) {
	if v != 0 {
		m.Set(t.f[num], protoreflect.ValueOfEnum(protoreflect.EnumNumber(v)))
	}
}

// addMessage appends a new message to list field num of m and returns it.
func addMessage(m protoreflect.Message, t *dynType, num int) protoreflect.Message {
	l := m.Mutable(t.f[num]).List()
	e := l.NewElement()
	l.Append(e)
	return e.Message()
}

func (b *dynBuilder) request(req *coltracepb.ExportTraceServiceRequest) proto.Message {
	m := dynamicpb.NewMessage(b.req.md)
	for _, rs := range req.ResourceSpans {
		rm := addMessage(m, b.req, 1)
		if r := rs.Resource; r != nil {
			t := b.resource
			pm := rm.Mutable(b.resourceSpans.f[1]).Message()
			b.attrs(pm, t, 1, r.Attributes)
			setUint32(pm, t, 2, r.DroppedAttributesCount)
			for _, ref := range r.EntityRefs {
				em := addMessage(pm, t, 3)
				setString(em, b.entityRef, 1, ref.SchemaUrl)
				setString(em, b.entityRef, 2, ref.Type)
				for i, keys := range [][]string{ref.IdKeys, ref.DescriptionKeys} {
					if len(keys) == 0 {
						continue
					}
					l := em.Mutable(b.entityRef.f[3+i]).List()
					for _, s := range keys {
						l.Append(protoreflect.ValueOfString(s))
					}
				}
			}
		}
		for _, ss := range rs.ScopeSpans {
			sm := addMessage(rm, b.resourceSpans, 2)
			if sc := ss.Scope; sc != nil {
				t := b.scope
				cm := sm.Mutable(b.scopeSpans.f[1]).Message()
				setString(cm, t, 1, sc.Name)
				setString(cm, t, 2, sc.Version)
				b.attrs(cm, t, 3, sc.Attributes)
				setUint32(cm, t, 4, sc.DroppedAttributesCount)
			}
			for _, s := range ss.Spans {
				b.span1(addMessage(sm, b.scopeSpans, 2), s)
			}
			setString(sm, b.scopeSpans, 3, ss.SchemaUrl)
		}
		setString(rm, b.resourceSpans, 3, rs.SchemaUrl)
	}
	return m
}

func (b *dynBuilder) span1(m protoreflect.Message, s *tracepb.Span) {
	t := b.span
	setBytes(m, t, 1, s.TraceId)
	setBytes(m, t, 2, s.SpanId)
	setString(m, t, 3, s.TraceState)
	setBytes(m, t, 4, s.ParentSpanId)
	setString(m, t, 5, s.Name)
	setEnum(m, t, 6, int32(s.Kind))
	setUint64(m, t, 7, s.StartTimeUnixNano)
	setUint64(m, t, 8, s.EndTimeUnixNano)
	b.attrs(m, t, 9, s.Attributes)
	setUint32(m, t, 10, s.DroppedAttributesCount)
	for _, e := range s.Events {
		em := addMessage(m, t, 11)
		setUint64(em, b.event, 1, e.TimeUnixNano)
		setString(em, b.event, 2, e.Name)
		b.attrs(em, b.event, 3, e.Attributes)
		setUint32(em, b.event, 4, e.DroppedAttributesCount)
	}
	setUint32(m, t, 12, s.DroppedEventsCount)
	for _, l := range s.Links {
		lm := addMessage(m, t, 13)
		setBytes(lm, b.link, 1, l.TraceId)
		setBytes(lm, b.link, 2, l.SpanId)
		setString(lm, b.link, 3, l.TraceState)
		b.attrs(lm, b.link, 4, l.Attributes)
		setUint32(lm, b.link, 5, l.DroppedAttributesCount)
		setUint32(lm, b.link, 6, l.Flags)
	}
	setUint32(m, t, 14, s.DroppedLinksCount)
	if st := s.Status; st != nil {
		stm := m.Mutable(t.f[15]).Message()
		setString(stm, b.status, 2, st.Message)
		setEnum(stm, b.status, 3, int32(st.Code))
	}
	setUint32(m, t, 16, s.Flags)
}

func (b *dynBuilder) attrs(m protoreflect.Message, t *dynType, num int, kvs []*commonpb.KeyValue) {
	for _, kv := range kvs {
		km := addMessage(m, t, num)
		setString(km, b.keyValue, 1, kv.Key)
		if v := kv.Value; v != nil {
			b.anyValue1(km.Mutable(b.keyValue.f[2]).Message(), v)
		}
		if kv.KeyStrindex != 0 {
			km.Set(b.keyValue.f[3], protoreflect.ValueOfInt32(kv.KeyStrindex))
		}
	}
}

func (b *dynBuilder) anyValue1(m protoreflect.Message, v *commonpb.AnyValue) {
	f := &b.anyValue.f
	switch x := v.Value.(type) {
	case *commonpb.AnyValue_StringValue:
		m.Set(f[1], protoreflect.ValueOfString(x.StringValue))
	case *commonpb.AnyValue_BoolValue:
		m.Set(f[2], protoreflect.ValueOfBool(x.BoolValue))
	case *commonpb.AnyValue_IntValue:
		m.Set(f[3], protoreflect.ValueOfInt64(x.IntValue))
	case *commonpb.AnyValue_DoubleValue:
		m.Set(f[4], protoreflect.ValueOfFloat64(x.DoubleValue))
	case *commonpb.AnyValue_ArrayValue:
		am := m.Mutable(f[5]).Message()
		for _, e := range x.ArrayValue.Values {
			b.anyValue1(addMessage(am, b.array, 1), e)
		}
	case *commonpb.AnyValue_KvlistValue:
		b.attrs(m.Mutable(f[6]).Message(), b.kvlist, 1, x.KvlistValue.Values)
	case *commonpb.AnyValue_BytesValue:
		m.Set(f[7], protoreflect.ValueOfBytes(x.BytesValue))
	case *commonpb.AnyValue_StringValueStrindex:
		m.Set(f[8], protoreflect.ValueOfInt32(x.StringValueStrindex))
	}
}
