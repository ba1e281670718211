//go:build !protolegacy

package protogen

// protoLegacy is set in protolegacy builds, in which protoc-gen-go accepts
// MessageSet descriptors.
const protoLegacy = false
