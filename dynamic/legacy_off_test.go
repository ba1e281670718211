//go:build !protolegacy

package dynamic_test

// legacyBuild reports whether protobuf-go is built with the protolegacy
// tag, under which proto.Marshal and Unmarshal support MessageSets
// through reflection.
const legacyBuild = false
