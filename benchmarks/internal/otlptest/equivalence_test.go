package otlptest_test

import (
	"slices"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	collogs "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	colmetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"

	"github.com/protolayout/protolayout/internal/reloadtest"
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
		mt, types := reloadtest.Type(t, md)
		for seed := range reloadtest.Seeds() / 3 {
			m := g.ProtoReflect().Type().New().Interface()
			protobuftest.Fill(m.ProtoReflect(), seed, protobuftest.RandOptions{MaxDepth: 6, MaxList: 3})
			d := reloadtest.Twin(t, m, mt, types)
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
	mt, types := reloadtest.Type(t, set.ProtoReflect().Descriptor())
	d := reloadtest.Twin(t, set, mt, types)
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
