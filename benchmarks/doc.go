// Command benchmarks measures how fast protolayout encodes protobuf messages
// next to google.golang.org/protobuf, on the same messages in one run, and
// how fast messages of its package dynamic decode next to the generated
// type, dynamicpb and hyperpb.
//
// It is a module of its own, github.com/protolayout/protolayout/benchmarks,
// one of the repository's five (with the core, codec, examples and the
// report's harness), so that what it needs (easyproto, hyperpb, the OTLP
// schema, which brings in gRPC, and the harness's tools) stays out of the
// core's go.mod. The machinery of the report (rounds, paired ratios,
// verification, the read floor, tables, JSON, progress) is the harness,
// github.com/protolayout/protolayout/internal/benchreport, a nested module
// that the protolayout command's bench subcommand shares; the workloads
// and the workload-specific contestants (generated code, handwritten,
// easyproto, the Writer) are here. The go.work at the
// repository root lets go run ./benchmarks and go test ./benchmarks/...
// work from there. The module also holds the core's tests that need the
// OTLP schema, in internal/otlptest.
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
// and five small shapes, messages of proto/shapes.proto (proto3):
//
//   - scalar: one flat message of 12 numeric fields of mixed kinds (int32,
//     int64, uint32, uint64, sint32, sint64, fixed32, fixed64, sfixed64,
//     float, double, bool), 85 bytes: per-call overhead.
//   - text: six long UTF-8 strings (ASCII prose, Latin with diacritics,
//     Greek and Cyrillic, Japanese, emoji) and 16 tags, about 5 KB: UTF-8
//     validation and copying.
//   - nested: five levels of messages (Nested, Level2 to Level5), a few
//     fields each, some repeated, 43 messages: length prefixes.
//   - collections: packed int64 and sint32 lists, a list of strings, a
//     map<string, int64> and a map<string, Item>, 50 entries each: lists
//     and sorted maps.
//   - large: one 1 MiB bytes field and three small fields: copying.
//
// and the writer family:
//
//   - writer: the otlp workload's export written from plain values: the
//     generated Go structs, walked by plain Go code (no protoreflect), fed
//     to encoders that take values rather than message objects.
//
// and the unmarshal family, the decode section:
//
//   - otlp-decode, descriptors-decode, scalar-decode, text-decode,
//     nested-decode, collections-decode, large-decode: each marshal
//     workload's reference bytes, decoded with proto.Unmarshal into a new
//     message of each type per call.
//
// Each marshal workload exists three times: as the generated Go message,
// as a dynamicpb message over descriptors loaded at run time from a
// serialized FileDescriptorSet of the schema (protodesc.NewFiles), the
// way a proxy that learns schemas on the wire holds them, and as a
// message of protolayout's package dynamic over the same descriptors. The shapes' Go code is
// generated without protoc by the core module's internal/protogen
// (go run ./internal/protogen/cmd from the repository root), whose test in
// internal/shapespb fails when it is stale.
//
// # Contestants
//
//	proto/generated            proto.Marshal of the generated message (baseline)
//	proto/dynamicpb            proto.Marshal of the dynamicpb message (baseline)
//	proto/dynamicpb-det        proto.MarshalOptions{Deterministic: true} on dynamicpb
//	floor/range                read floor: Message.Range over the dynamicpb message (baseline)
//	floor/has-get              read floor: Has and Get per declared field
//	protolayout/generated      encoder.Marshal of the generated message: every guarantee, its
//	                           struct read by the engine
//	protolayout/generated-reuse
//	                           one *encoder.Encoder on the generated message, appending into one reused buffer
//	protolayout/generated-det  the same with Deterministic (map entries sorted by key)
//	protolayout/generated-unchecked
//	                           encoder.MarshalOptions{Unchecked: true}.Marshal: the message's own fast path
//	protolayout/generated-canonical
//	                           one *encoder.Encoder with Canonical: encoder.Canonical on the generated message
//	                           (field-number order; its output must pass encoder.CheckCanonical)
//	protolayout/dynamicpb      encoder.Marshal of the dynamicpb message
//	protolayout/dynamicpb-reuse
//	                           one *encoder.Encoder appending into one reused buffer
//	protolayout/dynamicpb-det  the same with Deterministic (map entries sorted by key)
//	dynamic/proto.Marshal      proto.Marshal of the twin of package dynamic (its ProtoMethods)
//	dynamic/proto-det          proto.MarshalOptions{Deterministic: true} on that twin
//	dynamic/proto-partial      proto.MarshalOptions{AllowPartial: true} on that twin (no required-fields check)
//	dynamic/encoder-reuse      one *encoder.Encoder on that twin, appending into one reused buffer
//	dynamic/encoder-det        the same with Deterministic
//	dynamic/encoder-canonical  the same with Canonical: encoder.Canonical
//	handwritten                otlp only: a hand-written protowire encoder
//
// and on the writer workload, instead:
//
//	writer/learned             one reused encoder.Writer, LengthLearned (the default)
//	writer/onebyte             one reused encoder.Writer, LengthOneByte
//	handwritten                the hand-written protowire encoder (baseline)
//	easyproto                  one reused easyproto.Marshaler, the same values (baseline)
//	dynamicpb+marshal          build a dynamicpb message, then Deterministic proto.Marshal (baseline)
//
// and on the unmarshal family, proto.Unmarshal into a new message per call of:
//
//	unmarshal/generated        the generated type (baseline)
//	unmarshal/dynamicpb        dynamicpb over the descriptor loaded at run time (baseline)
//	unmarshal/dynamic          package dynamic over the same descriptor
//	unmarshal/dynamic-reuse    the same into one message with one dynamic.Decoder, whose storage each call
//	                           releases and reuses (a message lives until the next call)
//	unmarshal/hyperpb          buf.build/go/hyperpb, its type compiled once from that descriptor, hyperpb.NewMessage per call
//	unmarshal/hyperpb-shared   the same with one hyperpb.Shared, freed before each decode (arena reuse)
//
// and beside them, on the same bytes, a validator that decodes nothing:
//
//	check/canonical            encoder.CanonicalOptions.Check under encoder.Canonical (the reference
//	                           encodings are canonical); it must accept them, and refuse them with
//	                           their first key padded to a non-minimal varint
//
// The hyperpb contestants exist on amd64 and arm64, the platforms hyperpb
// builds on. Each decoded message is checked before timing: encoded again
// with proto.MarshalOptions{Deterministic: true} it must give the input
// byte for byte, and it must be proto.Equal to the workload's message of
// its descriptor (the generated message, or the dynamicpb or dynamic
// twin). A wrong output fails the run, except for hyperpb's
// (benchreport.Contestant.Tolerate): it is timed all the same and marked
// "(!)" in the table, with the first difference under it ("wrong" in the
// JSON). hyperpb v0.1.3 decodes an int64 field of a oneof to its low 32
// bits, so it is marked on otlp-decode (AnyValue.int_value). The table
// also has held B/op, the bytes of heap one decoded message keeps alive:
// after the timed rounds, the live heap (runtime.MemStats.HeapAlloc after
// runtime.GC) grows by that much for each of 8 decoded messages held at
// once (benchreport.HeldBytes); it is not measured for hyperpb-shared
// and dynamic-reuse, whose messages live only until the next call.
//
// The Writer contestants run on the descriptor loaded at run time (the
// dynamic twin's) and report their length moves per message (moves/msg,
// moved-B/msg: bodies that moved because their length needed another
// width than was reserved). easyproto writes whatever it is given, so its
// walk skips implicit-presence zeros and calls in field-number order, as
// the schema asks, and its output equals the reference byte for byte; it
// does not validate UTF-8 (it has no schema). The dynamicpb builder
// resolves every field descriptor once and sets the fields from the same
// walk; proto.Marshal runs with Deterministic, which fixes the field order
// of dynamic messages, so its output is checked byte for byte too.
//
// The two floor contestants are not encoders: they read every populated
// field of the dynamicpb message through protoreflect, recursively, lists
// element by element and maps entry by entry, touching each value with its
// typed accessor (never Interface) and writing nothing. floor/range visits
// the set fields with Message.Range; floor/has-get calls Has and Get on
// every declared field, and WhichOneof once per real oneof. They allocate
// nothing, and they are the least an encoder that reads dynamicpb messages
// through protoreflect has to spend: the read floor. Their MB/s counts the
// workload's encoded size, so it compares with the encoders'. Reading a
// string or bytes value takes its header only, so on text and large the
// floor is far below any encoder, which must copy the bytes.
//
// handwritten encodes the OTLP workload from the generated Go structs with
// google.golang.org/protobuf/encoding/protowire, as a person who knows the
// schema would write it (handwritten.go): a size pass that records the size
// of every nested message and validates every string as UTF-8, then a
// write pass; one reused encoder appends into one reused buffer, as
// protolayout/dynamicpb-reuse does.
//
// Before anything is timed, every contestant's output (writer family
// included) is checked against
// proto.MarshalOptions{Deterministic: true}.Marshal of the generated
// message: byte for byte for handwritten and Deterministic proto, and for
// protolayout except for the order of map entries (which, without
// Deterministic, come in the order the map yields them, as in
// proto.Marshal; on the collections workload both sides are compared with
// their map entries sorted, and the output must decode to an equal
// message); for plain proto.Marshal, whose field order on dynamic messages
// varies, by length and by decoding to an equal message. The floor contestants return a digest of what they
// read (count and sum of the values), checked against one computed with
// protorange over the generated message. A failure stops the program with
// a non-zero exit code; TestBenchmarks runs the same checks under go test.
//
// # The report
//
//	go run ./benchmarks
//	go run ./benchmarks -count 5 -benchtime 2s
//	go run ./benchmarks -workload otlp -json > report.json
//	go run ./benchmarks -svg docs/benchmarks.svg
//	go run ./benchmarks -from report.json -svg report.svg
//
// The report starts with the machine (CPU, cores, notable instruction set
// extensions), the Go version and platform, and the protolayout and
// protobuf module versions, then prints one table per workload: ns/op,
// MB/s, B/op and allocs/op of each contestant, and its time as a ratio to
// proto/generated, to proto/dynamicpb and to floor/range (below 1.00x is
// faster); the writer workload's table has the ratios to handwritten, to
// easyproto and to dynamicpb+marshal instead, and the Writers' moves per
// message; the unmarshal family's, the ratios to unmarshal/generated and
// unmarshal/dynamicpb and the memory held. When standard error is a terminal it shows a progress bar over
// every contestant round, with the time elapsed and an estimate of the
// time left, cleared before the tables are printed; otherwise (a pipe, a
// log, CI) it gets a line per workload, per round with -count, and no
// escape codes. Flags:
//
//	-count N          rounds, each running every contestant once; the
//	                  median round's time is reported, and each ratio is
//	                  the median of the ratios within a round (default 1)
//	-benchtime D      time of each round, or Nx iterations (default 500ms,
//	                  trimmed from go test's 1s to keep the run short)
//	-workload REGEXP  only the workloads whose name matches
//	-json             JSON instead of tables, with stable field names
//	                  (vs_proto_generated, vs_proto_dynamic, vs_floor; on the
//	                  writer workload vs_handwritten, vs_easyproto,
//	                  vs_dynamicpb_marshal, moves_per_msg, ...; on the
//	                  unmarshal family vs_unmarshal_generated,
//	                  vs_unmarshal_dynamicpb, held_bytes_per_op, wrong)
//	-svg FILE         also draw the ratios as a bar chart into FILE: per
//	                  workload, each contestant's time relative to
//	                  proto/generated on a log scale, from a line at 1.0, and
//	                  the writer workload relative to handwritten and the
//	                  decode workloads relative to unmarshal/generated in
//	                  panels of their own (docs/benchmarks.svg is one)
//	-from FILE        read the results from FILE, written by -json, instead
//	                  of measuring: print its tables (or JSON), draw its
//	                  chart with -svg; -workload still filters
//
// With the defaults the whole run, 114 cases (10 of them the decode
// section's, about 7 s), takes a little over a minute on two cores. On a
// shared machine the numbers are noisy, the large workload's most of all
// (each encoder but the reused ones allocates 1 MiB per call); use -count
// for ratios (many short rounds, such as -count 10 -benchtime
// 200ms, cancel more of the load than a few long ones) and benchstat for
// decisions.
//
// # Comparing changes with benchstat
//
// The same cases run as BenchmarkMarshal/<workload>/<contestant>:
//
//	go test ./benchmarks -run '^$' -bench . -count 10 > old.txt
//	# change something
//	go test ./benchmarks -run '^$' -bench . -count 10 > new.txt
//	go run golang.org/x/perf/cmd/benchstat@latest old.txt new.txt
//
// One workload, or one contestant across workloads, with a -bench filter:
//
//	go test ./benchmarks -run '^$' -bench 'Marshal/otlp/' -count 10 > old.txt
//	go test ./benchmarks -run '^$' -bench 'Marshal/writer/' -count 10 -cpu 1 > old.txt
//	go test ./benchmarks -run '^$' -bench 'Marshal/.*/protolayout/dynamicpb$' -count 10 > old.txt
//
// and the decoders as BenchmarkUnmarshal/<workload>/<contestant>:
//
//	go test ./benchmarks -run '^$' -bench 'Unmarshal/otlp-decode/' -benchmem -count 10 > old.txt
//
// benchstat compares each case with itself across the two files; for the
// ratios between contestants within one run, use the report.
package main
