// Package engine encodes messages straight from their storage, over the
// field program (internal/layout, internal/wire): a size pass and a write
// pass that read a message's fields through the storage of its type,
// chosen once per type, and name the first fault they find as the checked
// walk names it. It holds the two storages it reads directly, each with
// its passes:
//
//   - protoc-gen-go generated structs, read through their storage maps
//     (internal/genstore): the gen_*.go files;
//   - package dynamic's messages: their storage compiled per message
//     descriptor, the reflection methods, the direct encoder (State.Encode,
//     marshal.go), the decoder, Merge and Equal. Package dynamic is their
//     public face (dynamic.Message is an alias of Message, and documents
//     it).
//
// Every other message (dynamicpb, types the storage maps refuse) takes
// the checked walk (internal/cursor, internal/sizing and the encoder's
// write pass). The package lives below the encoder, so that the encoder
// calls both storages' passes and recognises dynamic's messages (Methods)
// without anything registered at run time; dynamic's fast-path methods,
// which proto.Marshal calls, use the direct encoder and fall back on the
// checked walk (internal/walk) directly.
//
// # Generated messages
//
// The passes over generated structs read them through their
// storage maps (internal/genstore): field offsets and Go types found once
// per type and checked against the descriptor. Open, hybrid and Opaque
// structs are read: an Opaque field with a presence bit is written when
// its bit is set, whatever its value (and a set *string that is nil is
// left to the walk), lists of messages through their *[]*T, and required
// fields are checked by their bits. Opaque types with lazily decoded
// fields are refused by genstore and take the walk.
//
// The engine encodes what the checked walk encodes, byte for byte, or
// fails with the fault the walk would report, or leaves the message to
// the walk, which then gives the same bytes or its detailed error.
//
// Faults: its size pass checks strings whose schema asks for valid UTF-8
// and required fields where the walk checks them (extensions first, then
// the fields in emission order, a required field at its position; under
// Canonical fields and extensions by number, the required fields as the
// message is entered, the first missing by position; an absent message,
// a typed nil, on its first required field: layout.Layout.RequiredFields
// and Absent), the depth limit, cycles by the walker's rule (wire.CycleLevel: a message
// entered past that level is compared with the one at it), a MessageSet
// type, and under the Signing profile a non-empty map and unknown
// fields, and reports the first fault it finds with its field and path
// (Options.Trail), as the walk names them, without the message being
// walked again; so too the size limit, at the item where the walk's
// running sums pass it (size_limit.go), outside the canonical profiles.
//
// It leaves the message to the walk on nesting past the levels it
// follows (wire.MaxStackDepth; a cycle the walk finds deeper than that),
// on the size limit where it does not name it (size_limit.go), on a
// fault that the walk would not reach because its running sums pass the
// size limit first, on an
// extension holding a message of a type neither storage reads
// (dynamicpb, a refused type; see ext_value.go), a nested length
// that disagrees with its count or extensions that differ between the
// passes (the message changed during the call), or a shared subtree
// visited too often (a DAG, whose summaries the walk keeps), and under
// Signing on a message with an unpacked repeated scalar extension set,
// which the profile packs, when no fault comes after it. No bytes whose
// lengths disagree with their contents are ever returned.
//
// Set extensions are written first in their message, by ascending
// number, as proto.MarshalOptions{Deterministic: true} writes them (under
// Canonical merged among the fields by number, canon_ext.go): read
// through the message's extension fields (genstore's
// Storage.Extensions) and protobuf-go's accessors, and written by their
// field records (layout.Extension), their messages through the engine.
//
// Its recursion follows nested messages on the goroutine stack, bounded
// by wire.MaxStackDepth levels whatever the caller's depth limit (a few
// tens of kilobytes of stack); deeper messages are left to the walk,
// whose frames are on the heap.
//
// The package is for the encoder of this module.
package engine
