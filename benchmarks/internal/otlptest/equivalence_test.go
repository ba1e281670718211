package otlptest_test

import (
	"testing"

	"google.golang.org/protobuf/proto"

	collogs "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	colmetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"

	"github.com/protolayout/protolayout/internal/reloadtest"
	"github.com/protolayout/protolayout/internal/reloadtest/settest"
	"github.com/protolayout/protolayout/protobuftest"
)

// TestOTLPEquivalence encodes random OTLP export requests (traces, metrics,
// logs) in generated and runtime-loaded dynamic forms (dynamicpb and
// *dynamic.Message).
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
			dm := reloadtest.MessageTwin(t, m, mt)
			protobuftest.Equivalent(t, protobuftest.CheckOptions{Deterministic: true}, nil, m)
			protobuftest.Equivalent(t, protobuftest.CheckOptions{Deterministic: true}, types, d)
			// OTLP declares no extensions: dm needs no resolver.
			protobuftest.Equivalent(t, protobuftest.CheckOptions{Deterministic: true}, nil, dm)
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
	settest.DescriptorSetEquivalence(t, 20)
}
