package main

import (
	"cmp"
	_ "embed"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"

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
	"github.com/protolayout/protolayout/internal/benchreport"
	"github.com/protolayout/protolayout/internal/fileset"
)

// Seeds of the PCG generator behind the OTLP workload. Changing them
// changes the message, so results before and after are not comparable.
const (
	seed1 = 0x70726f746f6c6179 // "protolay"
	seed2 = 0x6f75742062656e63 // "out benc"
)

// workload is one message to encode, in three twins with the same content:
// a generated message, a dynamicpb message over descriptors loaded at run
// time from a serialized FileDescriptorSet, as a proxy that learns its
// schemas on the wire would hold them, and a message of protolayout's
// package dynamic over the same descriptors. The harness's workload holds the
// generated message as the reference: its Ref(0) is
// proto.MarshalOptions{Deterministic: true}.Marshal(generated), the bytes
// every encoder must reproduce, and its Digest(0) what a read of every
// populated field adds up to. Its Family is benchreport.FamilyMarshal
// (contestants encode the message objects) or benchreport.FamilyWriter
// (contestants encode the generated structs' values, read as plain Go
// values).
type workload struct {
	*benchreport.Workload
	generated proto.Message
	dynamic   proto.Message // a *dynamicpb.Message
	dynmsg    proto.Message // a *dynamic.Message
}

// builders build the workloads, in report order.
var builders = []func() (*workload, error){
	otlpWorkload, descriptorsWorkload,
	scalarWorkload, textWorkload, nestedWorkload, collectionsWorkload, largeWorkload,
	writerWorkload,
	decodeWorkload(otlpWorkload), decodeWorkload(descriptorsWorkload),
	decodeWorkload(scalarWorkload), decodeWorkload(textWorkload), decodeWorkload(nestedWorkload),
	decodeWorkload(collectionsWorkload), decodeWorkload(largeWorkload),
	decodeWorkload(sourceInfoWorkload),
}

// workloads returns the workloads, built once per process.
var workloads = sync.OnceValues(func() ([]*workload, error) {
	var out []*workload
	for _, build := range builders {
		w, err := build()
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, nil
})

// newWorkload fills in the reference encoding and the dynamic twin of m.
func newWorkload(name, description string, m proto.Message) (*workload, error) {
	w, err := benchreport.NewWorkload(name, description, []proto.Message{m})
	if err != nil {
		return nil, err
	}
	desc, files, err := loadAtRunTime(m.ProtoReflect().Descriptor())
	if err != nil {
		return nil, fmt.Errorf("workload %s: %w", name, err)
	}
	dyn := dynamicpb.NewMessage(desc)
	if err := (proto.UnmarshalOptions{Resolver: dynamicpb.NewTypes(files)}).Unmarshal(w.Ref(0), dyn); err != nil {
		return nil, fmt.Errorf("workload %s: dynamicpb twin: %w", name, err)
	}
	dm := dynamic.NewMessage(desc)
	if err := (proto.UnmarshalOptions{Resolver: dynamic.NewTypes(files)}).Unmarshal(w.Ref(0), dm); err != nil {
		return nil, fmt.Errorf("workload %s: dynamic twin: %w", name, err)
	}
	return &workload{Workload: w, generated: m, dynamic: dyn, dynmsg: dm}, nil
}

// loadAtRunTime returns a fresh descriptor for md, and the files of its
// schema, built from a serialized FileDescriptorSet of md's file and
// all the files it imports, transitively. Nothing in the result is shared
// with the descriptors compiled into this program.
func loadAtRunTime(md protoreflect.MessageDescriptor) (protoreflect.MessageDescriptor, *protoregistry.Files, error) {
	set := new(descriptorpb.FileDescriptorSet)
	for _, fd := range fileset.Closure(md.ParentFile()) {
		set.File = append(set.File, protodesc.ToFileDescriptorProto(fd))
	}

	// Round-trip the set through its wire form, as a schema received from
	// elsewhere would arrive.
	raw, err := proto.Marshal(set)
	if err != nil {
		return nil, nil, fmt.Errorf("encoding the schema of %s: %w", md.FullName(), err)
	}
	loaded := new(descriptorpb.FileDescriptorSet)
	if err := proto.Unmarshal(raw, loaded); err != nil {
		return nil, nil, fmt.Errorf("decoding the schema of %s: %w", md.FullName(), err)
	}
	files, err := protodesc.NewFiles(loaded)
	if err != nil {
		return nil, nil, fmt.Errorf("loading the schema of %s: %w", md.FullName(), err)
	}
	d, err := files.FindDescriptorByName(md.FullName())
	if err != nil {
		return nil, nil, fmt.Errorf("loading the schema of %s: %w", md.FullName(), err)
	}
	desc, ok := d.(protoreflect.MessageDescriptor)
	if !ok {
		return nil, nil, fmt.Errorf("loading the schema of %s: not a message", md.FullName())
	}
	if desc == md {
		return nil, nil, fmt.Errorf("loading the schema of %s: got the compiled-in descriptor back", md.FullName())
	}
	return desc, files, nil
}

// descriptorsWorkload is a FileDescriptorSet of every file linked into
// this program, sorted by path: large, deeply nested, proto2 with many
// optional scalars and strings.
func descriptorsWorkload() (*workload, error) {
	var files []protoreflect.FileDescriptor
	protoregistry.GlobalFiles.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		files = append(files, fd)
		return true
	})
	slices.SortFunc(files, func(a, b protoreflect.FileDescriptor) int { return cmp.Compare(a.Path(), b.Path()) })
	set := new(descriptorpb.FileDescriptorSet)
	for _, fd := range files {
		set.File = append(set.File, protodesc.ToFileDescriptorProto(fd))
	}
	return newWorkload("descriptors",
		fmt.Sprintf("google.protobuf.FileDescriptorSet of %d files", len(files)), set)
}

// sourceInfo is a FileDescriptorSet with source info, as protoc writes
// it for a code generator: testdata/sourceinfo.pb, from
//
//	protoc -I/usr/include --include_source_info --include_imports \
//		--descriptor_set_out=testdata/sourceinfo.pb \
//		google/protobuf/descriptor.proto google/protobuf/type.proto \
//		google/protobuf/api.proto google/protobuf/struct.proto
//
// (protoc 3.21.12, Debian's protobuf-compiler).
//
//go:embed testdata/sourceinfo.pb
var sourceInfo []byte

// sourceInfoWorkload is the decoding of sourceInfo: a descriptor set
// whose bulk is source locations, small messages of two packed lists of
// int32 (a path and a span) and comments. It is a decode workload only.
func sourceInfoWorkload() (*workload, error) {
	set := new(descriptorpb.FileDescriptorSet)
	if err := proto.Unmarshal(sourceInfo, set); err != nil {
		return nil, fmt.Errorf("workload sourceinfo: %w", err)
	}
	return newWorkload("sourceinfo",
		fmt.Sprintf("google.protobuf.FileDescriptorSet of %d files with source info", len(set.File)), set)
}

// Span counts of the OTLP workload.
const (
	otlpResources      = 3
	otlpScopesPerRes   = 2
	otlpSpans          = 100
	otlpTraces         = 12
	otlpBaseTimeUnixNs = 1_767_225_600_000_000_000 // 2026-01-01T00:00:00Z
)

// otlpRoot wraps the spans in the workload's top message, the request of an
// OTLP trace export.
func otlpRoot(rs []*tracepb.ResourceSpans) proto.Message {
	return &coltracepb.ExportTraceServiceRequest{ResourceSpans: rs}
}

// otlpWorkload is an OTLP trace export: ~100 spans over a few resources and
// instrumentation scopes, with attributes of every AnyValue kind, events,
// links and statuses, drawn from a fixed seed.
func otlpWorkload() (*workload, error) {
	g := &otlpGen{r: rand.New(rand.NewPCG(seed1, seed2))}
	for range otlpTraces {
		g.traces = append(g.traces, g.bytes(16))
	}
	g.parents = make([][][]byte, otlpTraces)

	var rs []*tracepb.ResourceSpans
	groups := otlpResources * otlpScopesPerRes
	left := otlpSpans
	for ri := range otlpResources {
		res := &tracepb.ResourceSpans{
			Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{
				g.str("service.name", fmt.Sprintf("%s-%s", g.word(), g.word())),
				g.str("service.namespace", "shop"),
				g.str("service.version", fmt.Sprintf("1.%d.%d", g.r.IntN(20), g.r.IntN(100))),
				g.str("service.instance.id", g.hex(16)),
				g.str("host.name", fmt.Sprintf("node-%02d.cluster.local", ri)),
				g.str("telemetry.sdk.language", "go"),
				g.str("telemetry.sdk.name", "opentelemetry"),
				g.kv("process.pid", &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: int64(1000 + g.r.IntN(60000))}}),
			}},
			SchemaUrl: "https://opentelemetry.io/schemas/1.26.0",
		}
		for si := range otlpScopesPerRes {
			groups--
			n := left
			if groups > 0 {
				n = left / (groups + 1)
			}
			left -= n
			ss := &tracepb.ScopeSpans{
				Scope: &commonpb.InstrumentationScope{
					Name:       fmt.Sprintf("go.opentelemetry.io/contrib/instrumentation/%s", g.word()),
					Version:    fmt.Sprintf("0.%d.0", 40+si),
					Attributes: []*commonpb.KeyValue{g.str("scope.kind", g.word())},
				},
				SchemaUrl: "https://opentelemetry.io/schemas/1.24.0",
			}
			for range n {
				ss.Spans = append(ss.Spans, g.span())
			}
			res.ScopeSpans = append(res.ScopeSpans, ss)
		}
		rs = append(rs, res)
	}
	m := otlpRoot(rs)
	return newWorkload("otlp",
		fmt.Sprintf("%s, %d spans", m.ProtoReflect().Descriptor().FullName(), otlpSpans), m)
}

// otlpGen draws the parts of the OTLP workload.
type otlpGen struct {
	r       *rand.Rand
	traces  [][]byte
	parents [][][]byte // span ids so far, per trace
	spans   int
}

var words = []string{
	"alpha", "bravo", "cart", "checkout", "db", "edge", "frontend", "gateway",
	"inventory", "json", "kafka", "ledger", "mysql", "orders", "payment",
	"queue", "redis", "search", "shipping", "user", "ümlaut", "日本",
}

func (g *otlpGen) word() string { return words[g.r.IntN(len(words))] }

func (g *otlpGen) bytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(g.r.Uint32())
	}
	return b
}

func (g *otlpGen) hex(n int) string { return fmt.Sprintf("%x", g.bytes(n)) }

func (g *otlpGen) kv(k string, v *commonpb.AnyValue) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: v}
}

func (g *otlpGen) str(k, v string) *commonpb.KeyValue {
	return g.kv(k, &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}})
}

// Kinds of AnyValue, in the order attrs cycles through them.
const (
	kindString = iota
	kindBool
	kindInt
	kindDouble
	kindArray
	kindKvlist
	kindBytes
	numKinds
)

// value returns an AnyValue of the given kind; arrays and kvlists hold
// scalars, and one level of nesting below depth 1.
func (g *otlpGen) value(kind, depth int) *commonpb.AnyValue {
	switch kind {
	case kindString:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: fmt.Sprintf("/%s/%s/%d", g.word(), g.word(), g.r.IntN(10000))}}
	case kindBool:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: g.r.IntN(2) == 1}}
	case kindInt:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: g.r.Int64N(1<<40) - 1<<20}}
	case kindDouble:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: g.r.NormFloat64() * 100}}
	case kindBytes:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_BytesValue{BytesValue: g.bytes(4 + g.r.IntN(28))}}
	}
	scalar := func() int {
		if depth < 1 && g.r.IntN(4) == 0 {
			return kindArray + g.r.IntN(2) // one nested array or kvlist
		}
		return []int{kindString, kindBool, kindInt, kindDouble, kindBytes}[g.r.IntN(5)]
	}
	n := 1 + g.r.IntN(4)
	if kind == kindArray {
		a := new(commonpb.ArrayValue)
		for range n {
			a.Values = append(a.Values, g.value(scalar(), depth+1))
		}
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_ArrayValue{ArrayValue: a}}
	}
	l := new(commonpb.KeyValueList)
	for i := range n {
		l.Values = append(l.Values, g.kv(fmt.Sprintf("%s.%d", g.word(), i), g.value(scalar(), depth+1)))
	}
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_KvlistValue{KvlistValue: l}}
}

// attrs returns n attributes; successive calls cycle through every kind.
func (g *otlpGen) attrs(n int) []*commonpb.KeyValue {
	out := make([]*commonpb.KeyValue, 0, n)
	for i := range n {
		kind := (g.spans + i) % numKinds
		out = append(out, g.kv(fmt.Sprintf("app.%s.%s", g.word(), g.word()), g.value(kind, 0)))
	}
	return out
}

func (g *otlpGen) span() *tracepb.Span {
	g.spans++
	ti := g.r.IntN(otlpTraces)
	id := g.bytes(8)
	var parent []byte
	if ps := g.parents[ti]; len(ps) > 0 && g.r.IntN(8) != 0 {
		parent = ps[g.r.IntN(len(ps))]
	}
	g.parents[ti] = append(g.parents[ti], id)

	start := uint64(otlpBaseTimeUnixNs) + g.r.Uint64N(60e9)
	dur := 1000 + g.r.Uint64N(2e9)
	s := &tracepb.Span{
		TraceId:           g.traces[ti],
		SpanId:            id,
		ParentSpanId:      parent,
		Flags:             uint32(tracepb.SpanFlags_SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE_MASK) | 1,
		Name:              fmt.Sprintf("%s %s", []string{"GET", "POST", "SELECT", "publish"}[g.r.IntN(4)], g.word()),
		Kind:              tracepb.Span_SpanKind(1 + g.r.IntN(5)),
		StartTimeUnixNano: start,
		EndTimeUnixNano:   start + dur,
		Attributes:        g.attrs(2 + g.r.IntN(7)),
	}
	if g.r.IntN(3) == 0 {
		s.TraceState = "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"
	}
	if g.r.IntN(10) == 0 {
		s.DroppedAttributesCount = uint32(g.r.IntN(5))
	}
	for range g.r.IntN(4) {
		s.Events = append(s.Events, &tracepb.Span_Event{
			TimeUnixNano: start + g.r.Uint64N(dur),
			Name:         []string{"exception", "message", "retry", "cache.miss"}[g.r.IntN(4)],
			Attributes:   g.attrs(1 + g.r.IntN(3)),
		})
	}
	for range g.r.IntN(3) {
		s.Links = append(s.Links, &tracepb.Span_Link{
			TraceId:    g.traces[g.r.IntN(otlpTraces)],
			SpanId:     g.bytes(8),
			TraceState: "vendor=1",
			Attributes: g.attrs(1 + g.r.IntN(2)),
			Flags:      1,
		})
	}
	switch g.r.IntN(4) {
	case 0:
		s.Status = &tracepb.Status{Code: tracepb.Status_STATUS_CODE_ERROR, Message: fmt.Sprintf("%s: deadline exceeded", g.word())}
	case 1, 2:
		s.Status = &tracepb.Status{Code: tracepb.Status_STATUS_CODE_OK}
	}
	return s
}
