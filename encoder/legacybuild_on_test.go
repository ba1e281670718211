//go:build protolegacy

package encoder_test

// protoLegacy is set when the tests are built with the protolegacy tag, in
// which protobuf-go encodes generated MessageSet types in their own format.
const protoLegacy = true
