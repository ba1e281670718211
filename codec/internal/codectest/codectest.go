// Package codectest holds the payloads of the codec tests and benchmarks:
// an OTLP trace export as a generated message, and as a dynamicpb message
// and a dynamic.Message over descriptors loaded at run time, and messages
// that contain themselves.
package codectest

import (
	"testing"

	"fmt"
	"math/rand/v2"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/dynamic"
	"github.com/protolayout/protolayout/internal/fileset"
)

// Service is the full name of the test service the codec tests register by
// hand (no generated service code): Echo (unary) and Chat (bidirectional
// streaming) return what they receive; Cycle (unary) answers with a
// message that contains itself.
const (
	Service = "protolayout.codectest.Echo"
	Echo    = "/" + Service + "/Echo"
	Chat    = "/" + Service + "/Chat"
	Cycle   = "/" + Service + "/Cycle"
)

// Trace returns an OTLP trace export request of the given number of spans,
// the same for the same arguments.
func Trace(spans int, seed uint64) *coltracepb.ExportTraceServiceRequest {
	r := rand.New(rand.NewPCG(seed, 0x636f646563))
	str := func(k, v string) *commonpb.KeyValue {
		return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
	}
	integer := func(k string, v int64) *commonpb.KeyValue {
		return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: v}}}
	}
	id := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return b
	}
	ss := &tracepb.ScopeSpans{Scope: &commonpb.InstrumentationScope{Name: "checkout", Version: "1.4.2"}}
	trace := id(16)
	for i := range spans {
		start := uint64(1_700_000_000_000_000_000 + r.Int64N(1_000_000_000))
		ss.Spans = append(ss.Spans, &tracepb.Span{
			TraceId:           trace,
			SpanId:            id(8),
			ParentSpanId:      id(8),
			Name:              fmt.Sprintf("GET /api/v1/orders/%d", r.IntN(100000)),
			Kind:              tracepb.Span_SPAN_KIND_SERVER,
			StartTimeUnixNano: start,
			EndTimeUnixNano:   start + uint64(r.Int64N(50_000_000)),
			Attributes: []*commonpb.KeyValue{
				str("http.method", "GET"),
				str("http.route", "/api/v1/orders/{id}"),
				integer("http.status_code", 200+int64(r.IntN(4))*100),
				str("net.peer.name", fmt.Sprintf("10.0.%d.%d", r.IntN(256), r.IntN(256))),
				integer("thread.id", int64(i)),
			},
			Events: []*tracepb.Span_Event{{
				TimeUnixNano: start + 1000,
				Name:         "cache.miss",
				Attributes:   []*commonpb.KeyValue{str("cache.key", fmt.Sprintf("order:%d", r.IntN(1<<20)))},
			}},
			Status: &tracepb.Status{Code: tracepb.Status_STATUS_CODE_OK},
		})
	}
	return &coltracepb.ExportTraceServiceRequest{ResourceSpans: []*tracepb.ResourceSpans{{
		Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{
			str("service.name", "checkout"), str("host.name", "web-7"),
		}},
		ScopeSpans: []*tracepb.ScopeSpans{ss},
	}}}
}

// Load returns the descriptor of d loaded again at run time from a
// serialized FileDescriptorSet of its file and dependencies, as a gateway
// that learns its schemas on the wire holds it: a descriptor of its own,
// unrelated to the generated one.
func Load(d protoreflect.MessageDescriptor) (protoreflect.MessageDescriptor, error) {
	set := &descriptorpb.FileDescriptorSet{}
	for _, f := range fileset.Closure(d.ParentFile()) {
		set.File = append(set.File, protodesc.ToFileDescriptorProto(f))
	}
	b, err := proto.Marshal(set)
	if err != nil {
		return nil, err
	}
	var wire descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(b, &wire); err != nil {
		return nil, err
	}
	files, err := protodesc.NewFiles(&wire)
	if err != nil {
		return nil, err
	}
	found, err := files.FindDescriptorByName(d.FullName())
	if err != nil {
		return nil, err
	}
	md, ok := found.(protoreflect.MessageDescriptor)
	if !ok {
		return nil, fmt.Errorf("%s is not a message", d.FullName())
	}
	return md, nil
}

// Dynamic returns a dynamicpb twin of m over md (see Load), with the same
// contents.
func Dynamic(md protoreflect.MessageDescriptor, m proto.Message) (*dynamicpb.Message, error) {
	b, err := proto.Marshal(m)
	if err != nil {
		return nil, err
	}
	d := dynamicpb.NewMessage(md)
	if err := (proto.UnmarshalOptions{Resolver: protoregistry.GlobalTypes}).Unmarshal(b, d); err != nil {
		return nil, err
	}
	return d, nil
}

// DynamicMessage returns a dynamic.Message twin of m over md (see Load),
// with the same contents, made from dynamic.NewMessageType(md).
func DynamicMessage(md protoreflect.MessageDescriptor, m proto.Message) (*dynamic.Message, error) {
	b, err := proto.Marshal(m)
	if err != nil {
		return nil, err
	}
	d := dynamic.NewMessageType(md).New().Interface().(*dynamic.Message)
	if err := (proto.UnmarshalOptions{Resolver: protoregistry.GlobalTypes}).Unmarshal(b, d); err != nil {
		return nil, err
	}
	return d, nil
}

// CyclicDynamic returns a dynamicpb message over md that contains itself:
// an AnyValue whose array value holds the AnyValue. md must be
// opentelemetry.proto.common.v1.AnyValue.
func CyclicDynamic(md protoreflect.MessageDescriptor) *dynamicpb.Message {
	v := dynamicpb.NewMessage(md)
	cycle(v)
	return v
}

// CyclicDynamicMessage is CyclicDynamic with a dynamic.Message.
func CyclicDynamicMessage(md protoreflect.MessageDescriptor) *dynamic.Message {
	v := dynamic.NewMessage(md)
	cycle(v)
	return v
}

// cycle makes the empty AnyValue v hold itself in its array value.
func cycle(v protoreflect.Message) {
	md := v.Descriptor()
	arrayField := md.Fields().ByName("array_value")
	arr := v.NewField(arrayField).Message()
	values := arr.Descriptor().Fields().ByName("values")
	list := arr.NewField(values).List()
	list.Append(protoreflect.ValueOfMessage(v))
	arr.Set(values, protoreflect.ValueOfList(list))
	v.Set(arrayField, protoreflect.ValueOfMessage(arr))
}

// CyclicGenerated returns a generated message that contains itself: an
// AnyValue whose array value holds the AnyValue. proto.Marshal overflows
// the stack on it (a fatal error no recover catches).
func CyclicGenerated() *commonpb.AnyValue {
	v := &commonpb.AnyValue{}
	v.Value = &commonpb.AnyValue_ArrayValue{ArrayValue: &commonpb.ArrayValue{Values: []*commonpb.AnyValue{v}}}
	return v
}

// SameContent fails t unless a and b, a call's request and response,
// encode to the same bytes deterministically.
func SameContent(t testing.TB, a, b proto.Message) {
	t.Helper()
	ab, err := proto.MarshalOptions{Deterministic: true}.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	bb, err := proto.MarshalOptions{Deterministic: true}.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if string(ab) != string(bb) {
		t.Fatalf("response differs from request: %d vs %d bytes", len(ab), len(bb))
	}
}
