// Package sizing is the place of protolayout's size pass in the
// architecture (encoder -> sizing -> cursor -> layout); it exports
// nothing.
//
// The size pass walks a message once over its layouts, validates it
// (UTF-8, required fields, the depth and size limits) with checked
// arithmetic, and records the size of every nested message, in walk order,
// for the write pass, which then writes the whole message without reading
// it again or moving a byte. A subtree shared by several parents (a DAG)
// is sized once when it is large: only a subtree whose sizing examined
// more than 64 values is remembered by identity, within one call, so small
// messages cost no lookup.
//
// Its results are public through package encoder: Encoder.Size and
// MarshalOptions.Size return a message's size under the same limits, and
// every Marshal runs the pass before writing. Its records hold pointers
// into the shared layouts, so the pass itself lives in the module's
// internal packages, where no code outside protolayout can reach them.
package sizing
