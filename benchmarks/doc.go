// Command benchmarks measures how fast protolayout encodes protobuf messages
// next to google.golang.org/protobuf, on the same messages in one run.
//
// # Workloads
//
// Each workload is built from a fixed seed, so every run encodes the same
// bytes:
//
//   - otlp: an OpenTelemetry trace export of 100 spans over three
//     resources and six instrumentation scopes, with 16-byte trace ids,
//     8-byte span ids, timestamps, attributes of every AnyValue kind
//     (string, bool, int, double, array, kvlist, bytes), events, links and
//     statuses.
//   - descriptors: a google.protobuf.FileDescriptorSet of every .proto file
//     linked into the program, sorted by path.
//
// Each workload exists twice: as the generated Go message, and as a
// dynamicpb message over descriptors loaded at run time from a serialized
// FileDescriptorSet of the schema (protodesc.NewFiles), the way a proxy
// that learns schemas on the wire holds them.
//
// # Contestants
//
//	proto/generated            proto.Marshal of the generated message (baseline)
//	proto/dynamic              proto.Marshal of the dynamicpb message (baseline)
//	proto/dynamic-det          proto.MarshalOptions{Deterministic: true} on dynamicpb
//	protolayout/generated      encoder.Marshal of the generated message
//	protolayout/dynamic        encoder.Marshal of the dynamicpb message
//	protolayout/dynamic-reuse  one *encoder.Encoder appending into one reused buffer
//
// Before anything is timed, every contestant's output is checked against
// proto.MarshalOptions{Deterministic: true}.Marshal of the generated
// message: byte for byte for protolayout and for Deterministic proto; for
// plain proto.Marshal, whose field order on dynamic messages varies, by
// length and by decoding to an equal message. A failure stops the program
// with a non-zero exit code; TestBenchmarks runs the same checks under
// go test.
//
// # The report
//
//	go run ./benchmarks
//	go run ./benchmarks -count 5 -benchtime 2s
//	go run ./benchmarks -workload otlp -json > report.json
//
// The report starts with the machine (CPU, cores, notable instruction set
// extensions), the Go version and platform, and the protolayout and
// protobuf module versions, then prints one table per workload: ns/op,
// MB/s, B/op and allocs/op of each contestant, and its time as a ratio to
// proto/generated and to proto/dynamic (below 1.00x is faster). Flags:
//
//	-count N          rounds of each contestant, contestants interleaved;
//	                  the median round is reported (default 1)
//	-benchtime D      time of each round, or Nx iterations (default 1s)
//	-workload REGEXP  only the workloads whose name matches
//	-json             JSON instead of tables, with stable field names
//
// With the defaults the whole run takes 15 to 20 seconds on two cores.
//
// # Comparing changes with benchstat
//
// The same cases run as BenchmarkMarshal/<workload>/<contestant>:
//
//	go test ./benchmarks -run '^$' -bench . -count 10 > old.txt
//	# change something
//	go test ./benchmarks -run '^$' -bench . -count 10 > new.txt
//	go run golang.org/x/perf/cmd/benchstat@latest old.txt new.txt
package main
