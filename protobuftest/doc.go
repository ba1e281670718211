// Package protobuftest holds the test schemas of protolayout and the helpers
// its tests share. It is imported by tests only, never by non-test code.
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
//     protoreflect (the slow path).
//
// [Twins] pairs the two forms of every message. The MessageSet schema in
// protobuftest/proto/legacy (protolayout.messageset) only exists in the
// dynamic form: protoc-gen-go cannot generate it without the protolegacy
// build tag.
//
// After editing a .proto file, regenerate protobuftest/gen from the module
// root with
//
//	go run ./internal/protogen/cmd
//
// A test in protobuftest/gen fails while the generated files are stale.
package protobuftest
