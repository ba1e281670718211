// Package protobuftest is test support for protolayout and for its users'
// own schemas: seeded random messages of any message type, the equivalence
// assertion every protolayout test makes (encoder output against
// proto.Marshal), and the test schemas of the project, as generated and
// dynamic twins. It is meant for tests, never for non-test code.
//
// # For any schema
//
// These work on any message type, generated or dynamic, and are what a
// user checking protolayout on their own messages needs:
//
//   - [Fill] sets a message to a seeded random value (every field kind,
//     lists, maps, oneofs, extensions, unknown fields, nesting to a depth);
//   - [Equivalent] asserts that protolayout encodes messages byte for byte
//     as proto.MarshalOptions{Deterministic: true} does (map entries
//     compared as sets unless Deterministic), and fails where it fails,
//     through the checked walk and the default options;
//   - [Calls] and [Replay] turn a message into the encoder.Writer calls
//     that write it, and play them back;
//   - [FirstDiff], [WireTree] and [CanonicalMaps] explain a difference
//     between two encodings; [EmissionOrder] is the order fields are
//     written in; [QuietFloat32NaNs] removes the one value reflection
//     cannot encode as generated code does.
//
// # The project's schemas
//
// [Twins], [TwinByName], [DynamicFiles], [DynamicTypes], [DynamicTwin],
// [DynamicMessageTypes], [DynamicMessageTwin], [LoadFiles],
// [GeneratedVariants], [VariantTwin] and [VariantName] serve protolayout's
// own test schemas; the generated packages under protobuftest/gen are
// fixtures for those tests, not API.
//
// The schemas are the .proto files in protobuftest/proto: proto2
// (protolayout.test2), proto3 (protolayout.test3), editions 2023
// (protolayout.testeditions, two files) and proto3 custom options
// (protolayout.customoptions). Each exists twice:
//
//   - generated Go code in protobuftest/gen, which proto.Marshal encodes
//     with its table-driven fast path;
//   - descriptors loaded at run time from the embedded sources, as a proxy
//     would load them, whose dynamicpb messages proto.Marshal encodes through
//     protoreflect (the slow path). The same descriptors also serve
//     package dynamic's messages ([DynamicMessageTwin]), which proto.Marshal
//     encodes with protolayout's encoder.
//
// [Twins] pairs the two forms of every message.
//
// The generated code exists at the three API levels of protoc-gen-go
// ([APILevel]): the open struct API in protobuftest/gen/<pkg>, and the
// hybrid and the Opaque API in protobuftest/gen/hybrid/<pkg> and
// protobuftest/gen/opaque/<pkg>, whose schemas are copies renamed into the
// proto packages hybrid.protolayout.* and opaque.protolayout.* (one program
// cannot register a full name twice). [GeneratedVariants] lists the three
// generated types of every message, and [VariantTwin] copies a message
// into another level. protolayout.customoptions exists at the open level
// only: a copy would extend google.protobuf.MessageOptions again with the
// same field numbers. The MessageSet schema in
// protobuftest/proto/legacy (protolayout.messageset) has no twin: it is
// served in the dynamic form only; its generated code, which protoc-gen-go
// writes only when built with the protolegacy tag, is internal to
// protolayout's own tests.
//
// After editing a .proto file, regenerate protobuftest/gen (all three
// levels) from the module root with
//
//	go run ./internal/protogen/cmd
//
// A test in protobuftest/gen fails while the generated files are stale.
package protobuftest
