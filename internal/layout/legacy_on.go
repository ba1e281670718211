//go:build protolegacy

package layout

// protoLegacy mirrors protobuf-go's build tag of the same name, which
// changes its UTF-8 rule (see enforceUTF8).
const protoLegacy = true
