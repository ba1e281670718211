package lifetime_test

import (
	"bytes"
	"flag"
	"runtime"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/codec/grpccodec"
	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/internal/layout"
	"github.com/protolayout/protolayout/internal/reloadtest"
)

var reloads = flag.Int("reloads", 5000, "schema loads of TestReloadHeapFlat (the Taskfile's reload task runs 50,000)")

const (
	exportName = "opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest"
	setName    = "google.protobuf.FileDescriptorSet"
	// extension numbers of google.protobuf.FileOptions declared by extFile
	extLabel = 50001
	extTag   = 50002
	extTags  = 50003
)

// extFile declares extensions of descriptor.proto's FileOptions, so that
// every load brings extension types of its own.
func extFile() *descriptorpb.FileDescriptorProto {
	opt := descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()
	rep := descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum()
	str := descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum()
	msg := descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum()
	i32 := descriptorpb.FieldDescriptorProto_TYPE_INT32.Enum()
	ext := func(name string, num int32, label *descriptorpb.FieldDescriptorProto_Label, typ *descriptorpb.FieldDescriptorProto_Type, typeName string) *descriptorpb.FieldDescriptorProto {
		f := &descriptorpb.FieldDescriptorProto{Name: proto.String(name), Number: proto.Int32(num), Label: label, Type: typ,
			Extendee: proto.String(".google.protobuf.FileOptions")}
		if typeName != "" {
			f.TypeName = proto.String(typeName)
		}
		return f
	}
	return &descriptorpb.FileDescriptorProto{
		Name:       proto.String("lifetime/ext.proto"),
		Package:    proto.String("lifetime"),
		Syntax:     proto.String("proto2"),
		Dependency: []string{"google/protobuf/descriptor.proto"},
		MessageType: []*descriptorpb.DescriptorProto{{
			Name: proto.String("Tag"),
			Field: []*descriptorpb.FieldDescriptorProto{
				{Name: proto.String("name"), Number: proto.Int32(1), Label: opt, Type: str},
				{Name: proto.String("ids"), Number: proto.Int32(2), Label: rep, Type: i32},
			},
		}},
		Extension: []*descriptorpb.FieldDescriptorProto{
			ext("label", extLabel, opt, str, ""),
			ext("tag", extTag, opt, msg, ".lifetime.Tag"),
			ext("tags", extTags, rep, msg, ".lifetime.Tag"),
		},
	}
}

// schema returns the files every load builds anew: the OTLP trace
// service and its imports, descriptor.proto, and extFile. It also
// returns the encoding of that set as a FileDescriptorSet whose last
// file's options set the three extensions (as unknown fields, which each
// load's types then resolve to its own extension types).
func schema() (*descriptorpb.FileDescriptorSet, []byte) {
	set := reloadtest.FileSet(coltracepb.File_opentelemetry_proto_collector_trace_v1_trace_service_proto,
		descriptorpb.File_google_protobuf_descriptor_proto)
	x := extFile()
	set.File = append(set.File, x)

	tag := func(name string, ids ...int32) []byte {
		b := protowire.AppendTag(nil, 1, protowire.BytesType)
		b = protowire.AppendString(b, name)
		for _, id := range ids {
			b = protowire.AppendTag(b, 2, protowire.VarintType)
			b = protowire.AppendVarint(b, uint64(id))
		}
		return b
	}
	var raw []byte
	raw = protowire.AppendTag(raw, extLabel, protowire.BytesType)
	raw = protowire.AppendString(raw, "reloaded")
	raw = protowire.AppendTag(raw, extTag, protowire.BytesType)
	raw = protowire.AppendBytes(raw, tag("one", 1, 2, 3))
	for _, n := range []string{"a", "b"} {
		raw = protowire.AppendTag(raw, extTags, protowire.BytesType)
		raw = protowire.AppendBytes(raw, tag(n, 7))
	}
	withOpts := proto.Clone(set).(*descriptorpb.FileDescriptorSet)
	last := withOpts.File[len(withOpts.File)-1]
	last.Options = new(descriptorpb.FileOptions)
	last.Options.ProtoReflect().SetUnknown(raw)
	b, err := proto.Marshal(withOpts)
	if err != nil {
		panic(err)
	}
	return set, b
}

// export is an OTLP export of a few spans with attributes.
func export() []byte {
	req := &coltracepb.ExportTraceServiceRequest{}
	rs := &tracepb.ResourceSpans{}
	ss := &tracepb.ScopeSpans{Scope: &commonpb.InstrumentationScope{Name: "lifetime"}}
	for i := range 20 {
		ss.Spans = append(ss.Spans, &tracepb.Span{
			TraceId: bytes.Repeat([]byte{byte(i)}, 16), SpanId: bytes.Repeat([]byte{byte(i + 1)}, 8),
			Name: "op", StartTimeUnixNano: uint64(i) * 1000, EndTimeUnixNano: uint64(i)*1000 + 7,
			Attributes: []*commonpb.KeyValue{
				{Key: "k", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: "v"}}},
				{Key: "n", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: int64(i)}}},
			},
		})
	}
	rs.ScopeSpans = append(rs.ScopeSpans, ss)
	req.ResourceSpans = append(req.ResourceSpans, rs)
	b, err := proto.Marshal(req)
	if err != nil {
		panic(err)
	}
	return b
}

// loader loads the schema again and again and encodes with every part:
// encoder.Marshal and Size, a long-lived Encoder, a fresh Writer, and a
// long-lived gRPC codec, checking the bytes on some loads.
type loader struct {
	t       testing.TB
	set     *descriptorpb.FileDescriptorSet
	setRaw  []byte
	export  []byte
	enc     *encoder.Encoder
	codec   *grpccodec.Codec
	written []byte // the Writer's output on the first load
}

func newLoader(t testing.TB) *loader {
	set, raw := schema()
	return &loader{
		t: t, set: set, setRaw: raw, export: export(),
		enc:   encoder.NewEncoder(encoder.MarshalOptions{Deterministic: true}),
		codec: grpccodec.New(grpccodec.Options{}),
	}
}

// load is one load; check compares every output with proto.Marshal's.
// The descriptors and messages of the load are dropped when it returns
// (the long-lived Encoder and codec keep nothing of them).
func (l *loader) load(check bool) {
	t := l.t
	files, err := protodesc.NewFiles(l.set)
	if err != nil {
		t.Fatal(err)
	}
	types := dynamicpb.NewTypes(files)
	find := func(name protoreflect.FullName) protoreflect.MessageDescriptor {
		d, err := files.FindDescriptorByName(name)
		if err != nil {
			t.Fatal(err)
		}
		return d.(protoreflect.MessageDescriptor)
	}
	exportMD, setMD := find(exportName), find(setName)

	req := dynamicpb.NewMessage(exportMD)
	set := dynamicpb.NewMessage(setMD)
	if err := proto.Unmarshal(l.export, req); err != nil {
		t.Fatal(err)
	}
	if err := (proto.UnmarshalOptions{Resolver: types}).Unmarshal(l.setRaw, set); err != nil {
		t.Fatal(err)
	}

	reqB, err := encoder.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	if n := encoder.Size(set); n != len(l.setRaw) {
		t.Fatalf("Size = %d, want %d", n, len(l.setRaw))
	}
	setB, err := l.enc.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	bs, err := l.codec.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	back := dynamicpb.NewMessage(exportMD)
	if err := l.codec.Unmarshal(bs, back); err != nil {
		t.Fatal(err)
	}
	bs.Free()

	// A fresh Writer per load: the last file of the set, its options with
	// the three extensions (resolved through this load's types), and one
	// file embedded from this load's messages.
	w := encoder.NewWriter(setMD, encoder.WriterOptions{Extensions: types})
	w.Begin(1) // file
	w.String(1, "lifetime/ext.proto")
	w.Begin(8) // options
	w.String(extLabel, "reloaded")
	w.Begin(extTag)
	w.String(1, "one")
	w.Int32s(2, []int32{1, 2, 3})
	w.End()
	for _, n := range []string{"a", "b"} {
		w.Begin(extTags)
		w.String(1, n)
		w.Int32(2, 7)
		w.End()
	}
	w.End()
	w.End()
	files0 := set.Get(setMD.Fields().ByNumber(1)).List().Get(0).Message().Interface()
	w.Message(1, files0)
	out, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if l.written == nil {
		l.written = bytes.Clone(out)
	} else if !bytes.Equal(out, l.written) {
		t.Fatal("the Writer wrote other bytes on a later load")
	}

	if !check {
		return
	}
	det := proto.MarshalOptions{Deterministic: true}
	for _, c := range []struct {
		name string
		got  []byte
		m    proto.Message
	}{{"encoder.Marshal", reqB, req}, {"Encoder.Marshal", setB, set}, {"gRPC round trip", reqB, back}} {
		want, err := det.Marshal(c.m)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(c.got, want) {
			t.Fatalf("%s: bytes differ from proto.Marshal's", c.name)
		}
	}
	// The extensions were resolved to this load's types, not left unknown.
	opts := set.Get(setMD.Fields().ByNumber(1)).List().Get(len(l.set.File) - 1).Message().
		Get(find("google.protobuf.FileDescriptorProto").Fields().ByNumber(8)).Message()
	if len(opts.GetUnknown()) != 0 {
		t.Fatal("the extensions of FileOptions stayed unknown")
	}
	xt, err := types.FindExtensionByNumber("google.protobuf.FileOptions", extLabel)
	if err != nil || opts.Get(xt.TypeDescriptor()).String() != "reloaded" {
		t.Fatalf("extension %d not set from this load's types: %v", extLabel, err)
	}
	// The Writer's bytes decode to what they describe.
	wm := dynamicpb.NewMessage(setMD)
	if err := (proto.UnmarshalOptions{Resolver: types}).Unmarshal(out, wm); err != nil {
		t.Fatal(err)
	}
	if want, _ := det.Marshal(wm); !bytes.Equal(want, out) {
		t.Fatal("the Writer's output is not in proto.Marshal's order")
	}
}

// liveHeap returns the live heap after collections have released what the
// program dropped: cleanups (which remove the layout cache's entries) run
// after a collection, on a goroutine of their own, and what they release
// goes with the next one.
func liveHeap() uint64 {
	var ms runtime.MemStats
	best := ^uint64(0)
	for i := 0; i < 8; i++ {
		runtime.GC()
		time.Sleep(2 * time.Millisecond)
		runtime.ReadMemStats(&ms)
		if ms.HeapAlloc < best {
			best = ms.HeapAlloc
		} else if i >= 3 {
			break
		}
	}
	return best
}

// TestReloadHeapFlat loads the schema -reloads times and checks that the
// live heap after the last load is within 1 MiB of the live heap after
// load 500: everything cached per descriptor goes with its schema.
func TestReloadHeapFlat(t *testing.T) {
	n := *reloads
	if testing.Short() {
		n = min(n, 1500)
	}
	const warm = 500
	l := newLoader(t)
	var base uint64
	var baseCached int
	start := time.Now()
	for i := range n {
		l.load(i == 0 || i%997 == 0)
		if i+1 == warm {
			base, baseCached = liveHeap(), layout.Cached()
		}
	}
	end, endCached := liveHeap(), layout.Cached()
	growth := int64(end) - int64(base)
	t.Logf("%d loads in %v; live heap %.2f MiB after %d loads, %.2f MiB after %d (%+d B, %+.1f B per load); layouts cached %d then %d",
		n, time.Since(start).Round(time.Millisecond), float64(base)/(1<<20), warm, float64(end)/(1<<20), n,
		growth, float64(growth)/float64(n-warm), baseCached, endCached)
	if growth > 1<<20 {
		t.Fatalf("the live heap grew by %d bytes over %d loads", growth, n-warm)
	}
	// Each load's layouts are released: what stays cached is bounded by
	// a few loads' worth, not by the number of loads.
	if endCached > baseCached+200 {
		t.Fatalf("%d layouts cached after %d loads, %d after %d", endCached, n, baseCached, warm)
	}
}

// TestLiveSchemaKeepsLayouts checks the other side: while the program
// holds a schema, its layouts stay cached and are reused, however many
// collections pass.
func TestLiveSchemaKeepsLayouts(t *testing.T) {
	set, raw := schema()
	files, err := protodesc.NewFiles(set)
	if err != nil {
		t.Fatal(err)
	}
	d, err := files.FindDescriptorByName(setName)
	if err != nil {
		t.Fatal(err)
	}
	md := d.(protoreflect.MessageDescriptor)
	m := dynamicpb.NewMessage(md)
	if err := (proto.UnmarshalOptions{Resolver: dynamicpb.NewTypes(files)}).Unmarshal(raw, m); err != nil {
		t.Fatal(err)
	}
	m = nil // only the descriptors stay alive
	encode := func() {
		m := dynamicpb.NewMessage(md)
		if err := (proto.UnmarshalOptions{Resolver: dynamicpb.NewTypes(files)}).Unmarshal(raw, m); err != nil {
			t.Fatal(err)
		}
		if _, err := encoder.Marshal(m); err != nil {
			t.Fatal(err)
		}
	}
	encode()
	before := layout.Builds()
	for range 5 {
		liveHeap()
		encode()
	}
	if n := layout.Builds() - before; n != 0 {
		t.Fatalf("%d layouts built again for a schema the program still holds", n)
	}
	runtime.KeepAlive(files)
	runtime.KeepAlive(md)
}
