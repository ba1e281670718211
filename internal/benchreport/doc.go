// Package benchreport is the machinery of protolayout's side-by-side
// benchmark report, shared by the benchmark program (go run ./benchmarks)
// and the protolayout command's bench subcommand: contestants that encode
// (or read) a workload of one or more messages, verified against a
// reference before anything is timed, timed in rounds of testing.Benchmark
// with the contestants of a workload interleaved, summarized by their
// median round, with paired ratios (the median over rounds of the ratio
// taken within a round) to a family's baselines, and written as aligned
// text tables or as JSON with stable field names.
//
// It is a module of its own, nested in the repository at internal/benchreport,
// so that what it needs (go-humanize, cpuid, progressbar, go-isatty, and
// gonum's plot in the chart package) stays out of the core module's go.mod,
// while its import path, under github.com/protolayout/protolayout/internal,
// keeps it private to the repository's modules.
//
// # Use
//
// The shortest way, for dynamicpb messages of a schema loaded at run time:
//
//	w, cases, err := benchreport.DynamicWorkload("mine", msgs)
//	// handle err
//	rep, err := benchreport.Run(cases, benchreport.Options{Count: 3, Benchtime: "500ms", Progress: os.Stderr})
//	// handle err (errors.Is(err, benchreport.ErrVerify) for wrong output)
//	err = benchreport.WriteText(os.Stdout, rep, benchreport.TextOptions{})
//
// A workload of several messages encodes all of them in each operation
// (SetBytes is their total encoded size), so ns/op is the time of the
// whole slice.
//
// # Families and baselines
//
// A workload's family decides the ratio columns: the marshal family (the
// empty name, encoders of message objects) has its ratios to
// proto/generated, proto/dynamicpb and floor/range; the writer family
// (encoders fed plain values) to handwritten, easyproto and
// dynamicpb+marshal; the unmarshal family (decoders, whose contestants
// set Contestant.Decode and decode the reference encodings, see
// ProtoUnmarshal) to unmarshal/generated and unmarshal/dynamicpb, with
// the bytes of heap a decoded message keeps alive (Case.HeldBytes) beside
// them. A column whose baseline contestant is absent from a
// workload is left out of its table (and is 0 in the JSON): a workload of
// dynamicpb messages only, as the command's bench measures, has no
// proto/generated.
package benchreport
