// Command protolayout encodes and decodes protobuf messages from a schema
// loaded at run time, with protolayout's encoder, times protolayout against
// proto.Marshal on the user's own messages, and prints the layouts it
// compiles for them.
//
// Usage:
//
//	protolayout <command> [flags]
//	protolayout help [command]
//
// Every command takes the schema as either
//
//	-descriptors FILE   a binary FileDescriptorSet with its imports, as
//	                    protoc --include_imports -o FILE or buf build -o FILE
//	                    write it
//	-proto DIR          every .proto file under DIR, compiled in process
//	                    (DIR is also the import path; repeatable), with more
//	                    import paths as -I DIR and the well-known types built in
//
// and the message type as -type pkg.Msg, its full name. Extensions and
// google.protobuf.Any values resolve against the whole schema.
//
// # encode
//
//	protolayout encode (-descriptors FILE | -proto DIR) -type pkg.Msg [-format json|text] [-deterministic | -canonical [-strict]] < in.json > out.binpb
//
// Encode reads one message in protobuf's JSON mapping (-format json, the
// default) or in text format (-format text) on stdin and writes its wire
// encoding, made by protolayout's encoder, on stdout, as protoc --encode and
// buf convert do. -deterministic sorts map entries by key; -canonical
// writes the canonical encoding (encoder.MarshalOptions.Canonical: every
// field in field-number order, oneof members and extensions included, map
// entries sorted), which check -canonical accepts, and with -strict
// ADR-027's (numeric repeated fields packed, unknown fields and maps
// refused); -allow-partial encodes a message whose required fields are
// missing; -discard-unknown ignores input fields the schema does not know.
//
// # decode
//
//	protolayout decode (-descriptors FILE | -proto DIR) -type pkg.Msg [-format json|text] < in.binpb > out.json
//
// Decode reads one message in binary on stdin and writes it, indented, as
// JSON or text format on stdout. -allow-partial accepts missing required
// fields; -emit-defaults writes the fields that hold their default values
// too (JSON only).
//
// # check
//
//	protolayout check (-descriptors FILE | -proto DIR) -type pkg.Msg -canonical [-strict] < in.binpb
//
// Check reads one message in binary on stdin and exits 0, printing nothing,
// if it is the message's canonical encoding (encoder.CheckCanonical: strict
// field-number order, minimal varints, no defaults of fields without
// presence, map entries sorted by key), and 1 with the first violation on
// one line otherwise, naming the rule, the field, its path and the byte
// offset. -strict checks Cosmos SDK's ADR-027 for signing instead (no
// unknown fields, no maps, numeric repeated fields packed).
//
// # bench
//
//	protolayout bench (-descriptors FILE | -proto DIR) -type pkg.Msg -messages FILE [-count N] [-benchtime D] [-json] [-svg FILE]
//
// Bench answers "what would protolayout gain on my traffic?": it runs the
// side-by-side report of go run ./benchmarks on the messages of -messages,
// held as dynamicpb messages (as a proxy holds them): proto.Marshal (and
// with Deterministic), protolayout's encoder.Marshal and a reused Encoder
// (and with Deterministic), and the read floor (merely reading every field
// through protoreflect). Every output is checked against deterministic
// proto.Marshal first. Each operation encodes every message of the file;
// the ratios are paired (the median over -count rounds of the ratio within
// a round). -messages is a file of JSON lines when its name ends in .jsonl,
// and of length-delimited binary messages (a varint length before each, as
// protodelim writes them) otherwise. -json writes the results as JSON, -svg
// also draws the ratios as a bar chart.
//
// # layout
//
//	protolayout layout (-descriptors FILE | -proto DIR) [-type pkg.Msg [-all]]
//
// Layout prints, as a table, the fields of the message type in the order
// protolayout (and proto.Marshal) writes them, with each field's number,
// type, wire type, encoded tag in hex, packed record tag, presence, oneof
// and notes; the extensions of the type that the schema declares come first,
// as they are written first. -all adds the layout of every message type
// reachable from it. Without -type, layout lists the schema's message types.
//
// # Exit status and errors
//
// A command exits 0 on success, 1 on bad input (malformed JSON or text, bad
// binary, an unknown type, a missing file, missing required fields, a schema
// that does not compile) and 2 on a usage error (unknown command or flag,
// no schema, no -type). Errors are printed on stderr as one line starting
// with "protolayout: ", with the line and column of the input where the
// parser gives them.
//
// When stderr is a terminal, a progress bar with an estimate of the time
// left is shown on stderr while bench runs, and while reading stdin once it
// has taken two seconds; elsewhere (a log, a pipe) nothing is shown.
package main
