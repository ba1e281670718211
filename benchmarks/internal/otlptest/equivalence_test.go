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
// *dynamic.Message). Each request holds one to three random resources
// (protobuftest.Fill of the whole request would leave most requests
// empty: the request's one field is a list, often drawn empty or unset),
// and the test checks that no more than a few of them encode to nothing.
func TestOTLPEquivalence(t *testing.T) {
	for _, g := range []proto.Message{
		&coltrace.ExportTraceServiceRequest{},
		&colmetrics.ExportMetricsServiceRequest{},
		&collogs.ExportLogsServiceRequest{},
	} {
		md := g.ProtoReflect().Descriptor()
		mt, types := reloadtest.Type(t, md)
		seeds, empty := reloadtest.Seeds()/3, uint64(0)
		for seed := range seeds {
			m := randomRequest(g, seed)
			if proto.Size(m) == 0 {
				empty++
			}
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
		if empty > seeds/10 {
			t.Errorf("%s: %d of %d random requests are empty", md.FullName(), empty, seeds)
		}
	}
}

// randomRequest returns a new export request of g's type holding one to
// three resources (the elements of its one field, a list), each filled at
// random from seed.
func randomRequest(g proto.Message, seed uint64) proto.Message {
	m := g.ProtoReflect().Type().New()
	fd := m.Descriptor().Fields().Get(0)
	l := m.Mutable(fd).List()
	for k := range 1 + seed%3 {
		e := l.NewElement()
		protobuftest.Fill(e.Message(), seed*4+k, protobuftest.RandOptions{MaxDepth: 5, MaxList: 3})
		l.Append(e)
	}
	return m.Interface()
}

// TestOTLPDescriptorSetEquivalence is the encoder's
// TestDescriptorSetEquivalence (the FileDescriptorSet of every file linked
// into the test binary, generated and dynamic) over this test binary, which
// links the OTLP schema's files, as the encoder's did before its OTLP tests
// moved here.
func TestOTLPDescriptorSetEquivalence(t *testing.T) {
	settest.DescriptorSetEquivalence(t, 20)
}
