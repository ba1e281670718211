package main

import (
	"fmt"
	"math"
	"slices"
	"unicode/utf8"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protowire"
)

// otlpEncoder is a hand-written encoder of an OTLP trace export from the
// generated Go structs, as a person who needs speed and knows the schema
// would write it with protowire: two passes, a first that computes the size
// of every nested message (and validates every string as UTF-8, as proto3
// requires) and a second that writes, taking each length prefix from the
// first pass. Fields come in field-number order, proto3 zero values are
// skipped, and oneof members are written even when zero, so the output is
// that of proto.MarshalOptions{Deterministic: true}. Unknown fields, which
// the generated structs keep out of reach, are not written; the workload has
// none.
//
// Reused, it keeps its table of sizes, and appending into a buffer with room
// it allocates nothing.
type otlpEncoder struct {
	// sizes holds the size of every nested message in pre-order (a parent
	// before its children), filled by the size pass and read back in the
	// same order by the write pass.
	sizes []int
	next  int
	// bad is the full name of the first string field with invalid UTF-8
	// found by the size pass.
	bad string
}

// MarshalAppend appends the encoding of m to b. On error it returns b
// unchanged.
func (e *otlpEncoder) MarshalAppend(b []byte, m *coltracepb.ExportTraceServiceRequest) ([]byte, error) {
	e.sizes, e.next, e.bad = e.sizes[:0], 0, ""
	n := e.sizeRequest(m)
	if e.bad != "" {
		return b, fmt.Errorf("handwritten: string field %s contains invalid UTF-8", e.bad)
	}
	b = slices.Grow(b, n)
	return e.appendRequest(b, m), nil
}

// Tags of fields 1 to 15, of field 16 of wire type fixed32 (two bytes), and
// the sizes of fixed fields with their tag.
const (
	wireVarint  = byte(protowire.VarintType)
	wireFixed64 = byte(protowire.Fixed64Type)
	wireBytes   = byte(protowire.BytesType)
	wireFixed32 = byte(protowire.Fixed32Type)

	tagBytes1     = 1<<3 | wireBytes
	tagBytes2     = 2<<3 | wireBytes
	tagBytes3     = 3<<3 | wireBytes
	tagBytes4     = 4<<3 | wireBytes
	tagBytes5     = 5<<3 | wireBytes
	tagBytes6     = 6<<3 | wireBytes
	tagBytes7     = 7<<3 | wireBytes
	tagBytes9     = 9<<3 | wireBytes
	tagBytes11    = 11<<3 | wireBytes
	tagBytes13    = 13<<3 | wireBytes
	tagBytes15    = 15<<3 | wireBytes
	tagVarint2    = 2<<3 | wireVarint
	tagVarint3    = 3<<3 | wireVarint
	tagVarint4    = 4<<3 | wireVarint
	tagVarint5    = 5<<3 | wireVarint
	tagVarint6    = 6<<3 | wireVarint
	tagVarint8    = 8<<3 | wireVarint
	tagVarint10   = 10<<3 | wireVarint
	tagVarint12   = 12<<3 | wireVarint
	tagVarint14   = 14<<3 | wireVarint
	tagFixed64x1  = 1<<3 | wireFixed64
	tagFixed64x4  = 4<<3 | wireFixed64
	tagFixed64x7  = 7<<3 | wireFixed64
	tagFixed64x8  = 8<<3 | wireFixed64
	tagFixed32x6  = 6<<3 | wireFixed32
	tagFixed32x16 = 16<<3 | wireFixed32 // 0x85 0x01 as a varint

	sizeFixed32 = 1 + 4
	sizeFixed64 = 1 + 8
)

// The size pass. Each sizeX of a nested message reserves its slot in sizes
// before sizing its children, so slots come in pre-order.

func (e *otlpEncoder) reserve() int {
	e.sizes = append(e.sizes, 0)
	return len(e.sizes) - 1
}

// sizeMsg is the size of a nested message field of size n, with its tag.
func sizeMsg(n int) int { return 1 + protowire.SizeVarint(uint64(n)) + n }

// sizeStr is the size of a string field with its tag, and checks it is
// UTF-8. Implicit-presence fields skip empty strings before calling it.
func (e *otlpEncoder) sizeStr(s, field string) int {
	if !utf8.ValidString(s) && e.bad == "" {
		e.bad = field
	}
	return 1 + protowire.SizeBytes(len(s))
}

func sizeBytes(b []byte) int { return 1 + protowire.SizeBytes(len(b)) }

func sizeVarint(v uint64) int { return 1 + protowire.SizeVarint(v) }

func (e *otlpEncoder) sizeRequest(m *coltracepb.ExportTraceServiceRequest) int {
	n := 0
	for _, rs := range m.GetResourceSpans() {
		n += sizeMsg(e.sizeResourceSpans(rs))
	}
	return n
}

func (e *otlpEncoder) sizeResourceSpans(m *tracepb.ResourceSpans) int {
	slot, n := e.reserve(), 0
	if r := m.GetResource(); r != nil {
		n += sizeMsg(e.sizeResource(r))
	}
	for _, ss := range m.GetScopeSpans() {
		n += sizeMsg(e.sizeScopeSpans(ss))
	}
	if s := m.GetSchemaUrl(); s != "" {
		n += e.sizeStr(s, "opentelemetry.proto.trace.v1.ResourceSpans.schema_url")
	}
	e.sizes[slot] = n
	return n
}

func (e *otlpEncoder) sizeResource(m *resourcepb.Resource) int {
	slot, n := e.reserve(), 0
	n += e.sizeAttributes(m.GetAttributes())
	if v := m.GetDroppedAttributesCount(); v != 0 {
		n += sizeVarint(uint64(v))
	}
	for _, ref := range m.GetEntityRefs() {
		n += sizeMsg(e.sizeEntityRef(ref))
	}
	e.sizes[slot] = n
	return n
}

func (e *otlpEncoder) sizeEntityRef(m *commonpb.EntityRef) int {
	slot, n := e.reserve(), 0
	if s := m.GetSchemaUrl(); s != "" {
		n += e.sizeStr(s, "opentelemetry.proto.common.v1.EntityRef.schema_url")
	}
	if s := m.GetType(); s != "" {
		n += e.sizeStr(s, "opentelemetry.proto.common.v1.EntityRef.type")
	}
	for _, s := range m.GetIdKeys() {
		n += e.sizeStr(s, "opentelemetry.proto.common.v1.EntityRef.id_keys")
	}
	for _, s := range m.GetDescriptionKeys() {
		n += e.sizeStr(s, "opentelemetry.proto.common.v1.EntityRef.description_keys")
	}
	e.sizes[slot] = n
	return n
}

func (e *otlpEncoder) sizeScopeSpans(m *tracepb.ScopeSpans) int {
	slot, n := e.reserve(), 0
	if s := m.GetScope(); s != nil {
		n += sizeMsg(e.sizeScope(s))
	}
	for _, s := range m.GetSpans() {
		n += sizeMsg(e.sizeSpan(s))
	}
	if s := m.GetSchemaUrl(); s != "" {
		n += e.sizeStr(s, "opentelemetry.proto.trace.v1.ScopeSpans.schema_url")
	}
	e.sizes[slot] = n
	return n
}

func (e *otlpEncoder) sizeScope(m *commonpb.InstrumentationScope) int {
	slot, n := e.reserve(), 0
	if s := m.GetName(); s != "" {
		n += e.sizeStr(s, "opentelemetry.proto.common.v1.InstrumentationScope.name")
	}
	if s := m.GetVersion(); s != "" {
		n += e.sizeStr(s, "opentelemetry.proto.common.v1.InstrumentationScope.version")
	}
	n += e.sizeAttributes(m.GetAttributes())
	if v := m.GetDroppedAttributesCount(); v != 0 {
		n += sizeVarint(uint64(v))
	}
	e.sizes[slot] = n
	return n
}

func (e *otlpEncoder) sizeSpan(m *tracepb.Span) int {
	slot, n := e.reserve(), 0
	if b := m.GetTraceId(); len(b) > 0 {
		n += sizeBytes(b)
	}
	if b := m.GetSpanId(); len(b) > 0 {
		n += sizeBytes(b)
	}
	if s := m.GetTraceState(); s != "" {
		n += e.sizeStr(s, "opentelemetry.proto.trace.v1.Span.trace_state")
	}
	if b := m.GetParentSpanId(); len(b) > 0 {
		n += sizeBytes(b)
	}
	if s := m.GetName(); s != "" {
		n += e.sizeStr(s, "opentelemetry.proto.trace.v1.Span.name")
	}
	if v := m.GetKind(); v != 0 {
		n += sizeVarint(uint64(int64(v)))
	}
	if m.GetStartTimeUnixNano() != 0 {
		n += sizeFixed64
	}
	if m.GetEndTimeUnixNano() != 0 {
		n += sizeFixed64
	}
	n += e.sizeAttributes(m.GetAttributes())
	if v := m.GetDroppedAttributesCount(); v != 0 {
		n += sizeVarint(uint64(v))
	}
	for _, ev := range m.GetEvents() {
		n += sizeMsg(e.sizeEvent(ev))
	}
	if v := m.GetDroppedEventsCount(); v != 0 {
		n += sizeVarint(uint64(v))
	}
	for _, l := range m.GetLinks() {
		n += sizeMsg(e.sizeLink(l))
	}
	if v := m.GetDroppedLinksCount(); v != 0 {
		n += sizeVarint(uint64(v))
	}
	if s := m.GetStatus(); s != nil {
		n += sizeMsg(e.sizeStatus(s))
	}
	if m.GetFlags() != 0 {
		n += 1 + sizeFixed32 // field 16: a two-byte tag
	}
	e.sizes[slot] = n
	return n
}

func (e *otlpEncoder) sizeEvent(m *tracepb.Span_Event) int {
	slot, n := e.reserve(), 0
	if m.GetTimeUnixNano() != 0 {
		n += sizeFixed64
	}
	if s := m.GetName(); s != "" {
		n += e.sizeStr(s, "opentelemetry.proto.trace.v1.Span.Event.name")
	}
	n += e.sizeAttributes(m.GetAttributes())
	if v := m.GetDroppedAttributesCount(); v != 0 {
		n += sizeVarint(uint64(v))
	}
	e.sizes[slot] = n
	return n
}

func (e *otlpEncoder) sizeLink(m *tracepb.Span_Link) int {
	slot, n := e.reserve(), 0
	if b := m.GetTraceId(); len(b) > 0 {
		n += sizeBytes(b)
	}
	if b := m.GetSpanId(); len(b) > 0 {
		n += sizeBytes(b)
	}
	if s := m.GetTraceState(); s != "" {
		n += e.sizeStr(s, "opentelemetry.proto.trace.v1.Span.Link.trace_state")
	}
	n += e.sizeAttributes(m.GetAttributes())
	if v := m.GetDroppedAttributesCount(); v != 0 {
		n += sizeVarint(uint64(v))
	}
	if m.GetFlags() != 0 {
		n += sizeFixed32
	}
	e.sizes[slot] = n
	return n
}

func (e *otlpEncoder) sizeStatus(m *tracepb.Status) int {
	slot, n := e.reserve(), 0
	if s := m.GetMessage(); s != "" {
		n += e.sizeStr(s, "opentelemetry.proto.trace.v1.Status.message")
	}
	if v := m.GetCode(); v != 0 {
		n += sizeVarint(uint64(int64(v)))
	}
	e.sizes[slot] = n
	return n
}

// sizeAttributes is the size of a repeated KeyValue field with its tags.
func (e *otlpEncoder) sizeAttributes(kvs []*commonpb.KeyValue) int {
	n := 0
	for _, kv := range kvs {
		n += sizeMsg(e.sizeKeyValue(kv))
	}
	return n
}

func (e *otlpEncoder) sizeKeyValue(m *commonpb.KeyValue) int {
	slot, n := e.reserve(), 0
	if s := m.GetKey(); s != "" {
		n += e.sizeStr(s, "opentelemetry.proto.common.v1.KeyValue.key")
	}
	if v := m.GetValue(); v != nil {
		n += sizeMsg(e.sizeAnyValue(v))
	}
	if v := m.GetKeyStrindex(); v != 0 {
		n += sizeVarint(uint64(int64(v)))
	}
	e.sizes[slot] = n
	return n
}

func (e *otlpEncoder) sizeAnyValue(m *commonpb.AnyValue) int {
	slot, n := e.reserve(), 0
	if m != nil {
		switch v := m.Value.(type) {
		case *commonpb.AnyValue_StringValue:
			n = e.sizeStr(v.StringValue, "opentelemetry.proto.common.v1.AnyValue.string_value")
		case *commonpb.AnyValue_BoolValue:
			n = 2
		case *commonpb.AnyValue_IntValue:
			n = sizeVarint(uint64(v.IntValue))
		case *commonpb.AnyValue_DoubleValue:
			n = sizeFixed64
		case *commonpb.AnyValue_ArrayValue:
			n = sizeMsg(e.sizeValues(v.ArrayValue.GetValues()))
		case *commonpb.AnyValue_KvlistValue:
			n = sizeMsg(e.sizeKvlist(v.KvlistValue.GetValues()))
		case *commonpb.AnyValue_BytesValue:
			n = sizeBytes(v.BytesValue)
		case *commonpb.AnyValue_StringValueStrindex:
			n = sizeVarint(uint64(int64(v.StringValueStrindex)))
		}
	}
	e.sizes[slot] = n
	return n
}

// sizeValues is the size of an ArrayValue's contents.
func (e *otlpEncoder) sizeValues(vs []*commonpb.AnyValue) int {
	slot, n := e.reserve(), 0
	for _, v := range vs {
		n += sizeMsg(e.sizeAnyValue(v))
	}
	e.sizes[slot] = n
	return n
}

// sizeKvlist is the size of a KeyValueList's contents.
func (e *otlpEncoder) sizeKvlist(kvs []*commonpb.KeyValue) int {
	slot := e.reserve()
	n := e.sizeAttributes(kvs)
	e.sizes[slot] = n
	return n
}

// The write pass. The caller of each appendX of a nested message has
// written its tag; appendX writes the length prefix, the next slot of
// sizes, then the fields.

func (e *otlpEncoder) appendLen(b []byte) []byte {
	n := e.sizes[e.next]
	e.next++
	return protowire.AppendVarint(b, uint64(n))
}

func appendStr(b []byte, tag byte, s string) []byte {
	b = append(b, tag)
	b = protowire.AppendVarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendBytes(b []byte, tag byte, v []byte) []byte {
	b = append(b, tag)
	b = protowire.AppendVarint(b, uint64(len(v)))
	return append(b, v...)
}

func appendVarint(b []byte, tag byte, v uint64) []byte {
	return protowire.AppendVarint(append(b, tag), v)
}

func appendFixed64(b []byte, tag byte, v uint64) []byte {
	return protowire.AppendFixed64(append(b, tag), v)
}

func (e *otlpEncoder) appendRequest(b []byte, m *coltracepb.ExportTraceServiceRequest) []byte {
	for _, rs := range m.GetResourceSpans() {
		b = e.appendResourceSpans(append(b, tagBytes1), rs)
	}
	return b
}

func (e *otlpEncoder) appendResourceSpans(b []byte, m *tracepb.ResourceSpans) []byte {
	b = e.appendLen(b)
	if r := m.GetResource(); r != nil {
		b = e.appendResource(append(b, tagBytes1), r)
	}
	for _, ss := range m.GetScopeSpans() {
		b = e.appendScopeSpans(append(b, tagBytes2), ss)
	}
	if s := m.GetSchemaUrl(); s != "" {
		b = appendStr(b, tagBytes3, s)
	}
	return b
}

func (e *otlpEncoder) appendResource(b []byte, m *resourcepb.Resource) []byte {
	b = e.appendLen(b)
	b = e.appendAttributes(b, tagBytes1, m.GetAttributes())
	if v := m.GetDroppedAttributesCount(); v != 0 {
		b = appendVarint(b, tagVarint2, uint64(v))
	}
	for _, ref := range m.GetEntityRefs() {
		b = e.appendEntityRef(append(b, tagBytes3), ref)
	}
	return b
}

func (e *otlpEncoder) appendEntityRef(b []byte, m *commonpb.EntityRef) []byte {
	b = e.appendLen(b)
	if s := m.GetSchemaUrl(); s != "" {
		b = appendStr(b, tagBytes1, s)
	}
	if s := m.GetType(); s != "" {
		b = appendStr(b, tagBytes2, s)
	}
	for _, s := range m.GetIdKeys() {
		b = appendStr(b, tagBytes3, s)
	}
	for _, s := range m.GetDescriptionKeys() {
		b = appendStr(b, tagBytes4, s)
	}
	return b
}

func (e *otlpEncoder) appendScopeSpans(b []byte, m *tracepb.ScopeSpans) []byte {
	b = e.appendLen(b)
	if s := m.GetScope(); s != nil {
		b = e.appendScope(append(b, tagBytes1), s)
	}
	for _, s := range m.GetSpans() {
		b = e.appendSpan(append(b, tagBytes2), s)
	}
	if s := m.GetSchemaUrl(); s != "" {
		b = appendStr(b, tagBytes3, s)
	}
	return b
}

func (e *otlpEncoder) appendScope(b []byte, m *commonpb.InstrumentationScope) []byte {
	b = e.appendLen(b)
	if s := m.GetName(); s != "" {
		b = appendStr(b, tagBytes1, s)
	}
	if s := m.GetVersion(); s != "" {
		b = appendStr(b, tagBytes2, s)
	}
	b = e.appendAttributes(b, tagBytes3, m.GetAttributes())
	if v := m.GetDroppedAttributesCount(); v != 0 {
		b = appendVarint(b, tagVarint4, uint64(v))
	}
	return b
}

func (e *otlpEncoder) appendSpan(b []byte, m *tracepb.Span) []byte {
	b = e.appendLen(b)
	if v := m.GetTraceId(); len(v) > 0 {
		b = appendBytes(b, tagBytes1, v)
	}
	if v := m.GetSpanId(); len(v) > 0 {
		b = appendBytes(b, tagBytes2, v)
	}
	if s := m.GetTraceState(); s != "" {
		b = appendStr(b, tagBytes3, s)
	}
	if v := m.GetParentSpanId(); len(v) > 0 {
		b = appendBytes(b, tagBytes4, v)
	}
	if s := m.GetName(); s != "" {
		b = appendStr(b, tagBytes5, s)
	}
	if v := m.GetKind(); v != 0 {
		b = appendVarint(b, tagVarint6, uint64(int64(v)))
	}
	if v := m.GetStartTimeUnixNano(); v != 0 {
		b = appendFixed64(b, tagFixed64x7, v)
	}
	if v := m.GetEndTimeUnixNano(); v != 0 {
		b = appendFixed64(b, tagFixed64x8, v)
	}
	b = e.appendAttributes(b, tagBytes9, m.GetAttributes())
	if v := m.GetDroppedAttributesCount(); v != 0 {
		b = appendVarint(b, tagVarint10, uint64(v))
	}
	for _, ev := range m.GetEvents() {
		b = e.appendEvent(append(b, tagBytes11), ev)
	}
	if v := m.GetDroppedEventsCount(); v != 0 {
		b = appendVarint(b, tagVarint12, uint64(v))
	}
	for _, l := range m.GetLinks() {
		b = e.appendLink(append(b, tagBytes13), l)
	}
	if v := m.GetDroppedLinksCount(); v != 0 {
		b = appendVarint(b, tagVarint14, uint64(v))
	}
	if s := m.GetStatus(); s != nil {
		b = e.appendStatus(append(b, tagBytes15), s)
	}
	if v := m.GetFlags(); v != 0 {
		b = protowire.AppendFixed32(append(b, tagFixed32x16&0x7f|0x80, tagFixed32x16>>7), v)
	}
	return b
}

func (e *otlpEncoder) appendEvent(b []byte, m *tracepb.Span_Event) []byte {
	b = e.appendLen(b)
	if v := m.GetTimeUnixNano(); v != 0 {
		b = appendFixed64(b, tagFixed64x1, v)
	}
	if s := m.GetName(); s != "" {
		b = appendStr(b, tagBytes2, s)
	}
	b = e.appendAttributes(b, tagBytes3, m.GetAttributes())
	if v := m.GetDroppedAttributesCount(); v != 0 {
		b = appendVarint(b, tagVarint4, uint64(v))
	}
	return b
}

func (e *otlpEncoder) appendLink(b []byte, m *tracepb.Span_Link) []byte {
	b = e.appendLen(b)
	if v := m.GetTraceId(); len(v) > 0 {
		b = appendBytes(b, tagBytes1, v)
	}
	if v := m.GetSpanId(); len(v) > 0 {
		b = appendBytes(b, tagBytes2, v)
	}
	if s := m.GetTraceState(); s != "" {
		b = appendStr(b, tagBytes3, s)
	}
	b = e.appendAttributes(b, tagBytes4, m.GetAttributes())
	if v := m.GetDroppedAttributesCount(); v != 0 {
		b = appendVarint(b, tagVarint5, uint64(v))
	}
	if v := m.GetFlags(); v != 0 {
		b = protowire.AppendFixed32(append(b, tagFixed32x6), v)
	}
	return b
}

func (e *otlpEncoder) appendStatus(b []byte, m *tracepb.Status) []byte {
	b = e.appendLen(b)
	if s := m.GetMessage(); s != "" {
		b = appendStr(b, tagBytes2, s)
	}
	if v := m.GetCode(); v != 0 {
		b = appendVarint(b, tagVarint3, uint64(int64(v)))
	}
	return b
}

// appendAttributes writes a repeated KeyValue field.
func (e *otlpEncoder) appendAttributes(b []byte, tag byte, kvs []*commonpb.KeyValue) []byte {
	for _, kv := range kvs {
		b = e.appendKeyValue(append(b, tag), kv)
	}
	return b
}

func (e *otlpEncoder) appendKeyValue(b []byte, m *commonpb.KeyValue) []byte {
	b = e.appendLen(b)
	if s := m.GetKey(); s != "" {
		b = appendStr(b, tagBytes1, s)
	}
	if v := m.GetValue(); v != nil {
		b = e.appendAnyValue(append(b, tagBytes2), v)
	}
	if v := m.GetKeyStrindex(); v != 0 {
		b = appendVarint(b, tagVarint3, uint64(int64(v)))
	}
	return b
}

func (e *otlpEncoder) appendAnyValue(b []byte, m *commonpb.AnyValue) []byte {
	b = e.appendLen(b)
	if m == nil {
		return b
	}
	switch v := m.Value.(type) {
	case *commonpb.AnyValue_StringValue:
		b = appendStr(b, tagBytes1, v.StringValue)
	case *commonpb.AnyValue_BoolValue:
		b = protowire.AppendVarint(append(b, tagVarint2), protowire.EncodeBool(v.BoolValue))
	case *commonpb.AnyValue_IntValue:
		b = appendVarint(b, tagVarint3, uint64(v.IntValue))
	case *commonpb.AnyValue_DoubleValue:
		b = appendFixed64(b, tagFixed64x4, math.Float64bits(v.DoubleValue))
	case *commonpb.AnyValue_ArrayValue:
		b = e.appendValues(append(b, tagBytes5), v.ArrayValue.GetValues())
	case *commonpb.AnyValue_KvlistValue:
		b = e.appendKvlist(append(b, tagBytes6), v.KvlistValue.GetValues())
	case *commonpb.AnyValue_BytesValue:
		b = appendBytes(b, tagBytes7, v.BytesValue)
	case *commonpb.AnyValue_StringValueStrindex:
		b = appendVarint(b, tagVarint8, uint64(int64(v.StringValueStrindex)))
	}
	return b
}

// appendValues writes an ArrayValue.
func (e *otlpEncoder) appendValues(b []byte, vs []*commonpb.AnyValue) []byte {
	b = e.appendLen(b)
	for _, v := range vs {
		b = e.appendAnyValue(append(b, tagBytes1), v)
	}
	return b
}

// appendKvlist writes a KeyValueList.
func (e *otlpEncoder) appendKvlist(b []byte, kvs []*commonpb.KeyValue) []byte {
	b = e.appendLen(b)
	return e.appendAttributes(b, tagBytes1, kvs)
}
