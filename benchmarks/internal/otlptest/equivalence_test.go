package otlptest_test

import (
	"slices"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	collogs "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	colmetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"

	"github.com/protolayout/protolayout/protobuftest"
)

// TestOTLPEquivalence encodes random OTLP export requests (traces, metrics,
// logs) in generated and runtime-loaded dynamic form.
func TestOTLPEquivalence(t *testing.T) {
	for _, g := range []proto.Message{
		&coltrace.ExportTraceServiceRequest{},
		&colmetrics.ExportMetricsServiceRequest{},
		&collogs.ExportLogsServiceRequest{},
	} {
		md := g.ProtoReflect().Descriptor()
		mt, types := runtimeType(t, md)
		for seed := range seeds() / 3 {
			m := g.ProtoReflect().Type().New().Interface()
			protobuftest.Fill(m.ProtoReflect(), seed, protobuftest.RandOptions{MaxDepth: 6, MaxList: 3})
			d := twinOf(t, m, mt, types)
			protobuftest.Equivalent(t, protobuftest.CheckOptions{Deterministic: true}, nil, m)
			protobuftest.Equivalent(t, protobuftest.CheckOptions{Deterministic: true}, types, d)
			if t.Failed() {
				t.Fatalf("%s seed %d", md.FullName(), seed)
			}
		}
	}
}

// TestOTLPDescriptorSetEquivalence is the encoder's
// TestDescriptorSetEquivalence (the FileDescriptorSet of every file linked
// into the test binary, generated and dynamic) over this test binary, which
// links the OTLP schema's files, as the encoder's did before its OTLP tests
// moved here.
func TestOTLPDescriptorSetEquivalence(t *testing.T) {
	set := &descriptorpb.FileDescriptorSet{}
	var paths []string
	protoregistry.GlobalFiles.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		paths = append(paths, fd.Path())
		return true
	})
	slices.Sort(paths)
	for _, p := range paths {
		fd, _ := protoregistry.GlobalFiles.FindFileByPath(p)
		set.File = append(set.File, protodesc.ToFileDescriptorProto(fd))
	}
	if len(set.File) < 20 {
		t.Fatalf("only %d files registered", len(set.File))
	}
	mt, types := runtimeType(t, set.ProtoReflect().Descriptor())
	d := twinOf(t, set, mt, types)
	protobuftest.Equivalent(t, protobuftest.CheckOptions{Deterministic: true}, nil, set)
	protobuftest.Equivalent(t, protobuftest.CheckOptions{Deterministic: true}, types, d)
	// Each file on its own, too.
	for i, f := range set.File {
		protobuftest.Equivalent(t, protobuftest.CheckOptions{}, nil, f)
		if t.Failed() {
			t.Fatalf("file %d (%s)", i, f.GetName())
		}
	}
}

// The helpers below are the encoder's (encoder/equivalence_test.go).

// seeds is the encoder tests' count of random messages per test schema
// message; TestOTLPEquivalence draws a third of it per request type.
func seeds() uint64 {
	if testing.Short() {
		return 30
	}
	return 300
}

// runtimeType loads md's file and its dependencies anew, as a proxy loads a
// FileDescriptorSet, and returns a dynamic type of the fresh descriptor.
func runtimeType(t testing.TB, md protoreflect.MessageDescriptor) (protoreflect.MessageType, *protoregistry.Types) {
	t.Helper()
	set := &descriptorpb.FileDescriptorSet{}
	seen := map[string]bool{}
	var add func(fd protoreflect.FileDescriptor)
	add = func(fd protoreflect.FileDescriptor) {
		if seen[fd.Path()] {
			return
		}
		seen[fd.Path()] = true
		for i := range fd.Imports().Len() {
			add(fd.Imports().Get(i).FileDescriptor)
		}
		set.File = append(set.File, protodesc.ToFileDescriptorProto(fd))
	}
	add(md.ParentFile())
	files, err := protodesc.NewFiles(set)
	if err != nil {
		t.Fatal(err)
	}
	d, err := files.FindDescriptorByName(md.FullName())
	if err != nil {
		t.Fatal(err)
	}
	types := new(protoregistry.Types)
	files.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		registerAll(types, fd.Messages(), fd.Extensions())
		return true
	})
	return dynamicpb.NewMessageType(d.(protoreflect.MessageDescriptor)), types
}

func registerAll(types *protoregistry.Types, msgs protoreflect.MessageDescriptors, exts protoreflect.ExtensionDescriptors) {
	for i := range exts.Len() {
		_ = types.RegisterExtension(dynamicpb.NewExtensionType(exts.Get(i)))
	}
	for i := range msgs.Len() {
		md := msgs.Get(i)
		_ = types.RegisterMessage(dynamicpb.NewMessageType(md))
		registerAll(types, md.Messages(), md.Extensions())
	}
}

// twinOf returns the dynamic twin of g in a runtime-loaded schema.
func twinOf(t testing.TB, g proto.Message, mt protoreflect.MessageType, types *protoregistry.Types) proto.Message {
	t.Helper()
	b, err := proto.MarshalOptions{Deterministic: true, AllowPartial: true}.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	d := mt.New().Interface()
	if err := (proto.UnmarshalOptions{AllowPartial: true, Resolver: types}).Unmarshal(b, d); err != nil {
		t.Fatal(err)
	}
	return d
}
