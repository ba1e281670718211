// Package otlptest holds the tests of the core that need the OTLP schema
// (go.opentelemetry.io/proto/otlp): the equivalence of encoder.Marshal on
// random OTLP export requests, and the Writer on the OTLP workload of
// internal/otlpvalues. They live in the benchmarks module so that the
// core's go.mod does not require OTLP, and with it gRPC. The package has
// no code of its own; run its tests with go test ./benchmarks/... from the
// root of the repository.
package otlptest
