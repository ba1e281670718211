// Package messagesetpb holds the generated Go code of the MessageSet test
// schema (protobuftest/proto/legacy/messageset.proto), the legacy proto1
// wire format, and the test that fails while it is stale.
//
// protoc-gen-go generates it only when built with the protolayout
// protolegacy tag (see internal/protogen), but the code builds and runs in
// every build: without protolegacy, protobuf-go's own methods encode a
// MessageSet as an ordinary message with extensions, and size its unknown
// fields without writing them; with it, they use the MessageSet format.
// The encoder's tests compare both builds with proto.Marshal.
package messagesetpb
