// Package encoder encodes protobuf messages into wire bytes by walking them
// over layouts compiled from their descriptors: a drop-in for proto.Marshal
// that works the same on generated messages and on dynamicpb messages built
// from schemas loaded at run time.
//
// # Contract
//
// Bytes: for every message, generated or dynamic, Marshal returns what
// proto.MarshalOptions{Deterministic: true}.Marshal returns for the same
// message: set extensions by ascending number, then fields outside real
// oneofs by ascending number, then the set member of each real oneof in
// oneof declaration order, then unknown bytes verbatim; map entries sorted
// by key. Without Deterministic, map entries come in the order the map
// yields them, as in proto.Marshal, which then writes them (and, for
// dynamicpb messages, even fields) in an order that changes on every call;
// this package changes only the order of map entries, and keeps fields in
// the fixed order above.
//
// Errors: every input proto.Marshal refuses is refused here too, invalid
// UTF-8 where the schema asks for validation and required fields not set
// (unless AllowPartial), with errors.Is(err, proto.Error) true and the
// field's full name and path in the message. On top of that, limits that
// proto.Marshal lacks: a depth limit (MaxDepth; a message that contains
// itself is an error instead of a crashed process), a size limit (MaxSize,
// at most 2 GiB - 1), and a check of every nested length after it is
// written, so a message changed during the call is an error, never corrupt
// output. Nothing panics on bad input, and on error nothing is appended to
// the caller's buffer.
//
// # Generated messages
//
// Every message gets every guarantee below by default. A generated
// message is read straight from its struct by the module's engine (a size
// pass and a write pass over the field program, through a map of each
// type's storage checked against its descriptor), and what the engine
// does not take goes to the checked layout walk; dynamicpb messages always
// take the walk. MarshalOptions.Unchecked sends generated messages
// through their own fast-path methods instead (the ones proto.Marshal
// uses), under the size limit: the bytes and the errors are then
// proto.Marshal's, and so are the fast path's gaps (no depth limit: a
// generated message that contains itself overflows the stack, as in
// proto.Marshal; no UTF-8 check of repeated string extensions). Messages of package dynamic are written straight from
// their storage by the same engine, with the same bytes and guarantees (an
// extension may hold a message of the other storage: each message is
// written by its own), and whatever it does not take (errors, extreme
// depth, a message of a type it does not read, such as dynamicpb's) goes
// to the checked walk.
//
// # How it works
//
// Each message type is compiled once into a layout (see package layout),
// cached by descriptor identity and released with its schema: once the
// program drops a schema's descriptors and every message of them, their
// layouts, and the Writer's tables kept inside them, are collected too,
// with nothing to evict by hand.
//
// The layout walk makes one read pass over the message through the
// module's walker (the one package cursor offers), an explicit stack of
// frames (no recursion, so depth never grows the goroutine stack). dynamicpb messages are read straight from
// their field storage (package internal/dynstore, verified at start-up,
// compiled out by the build tag protolayout_purego) or with one Range per
// message; other messages field by field with Has and Get. The size pass
// (see package sizing) validates everything and records a tape: every value
// read, in emission order, with the size of every nested message, group,
// map entry and packed field on the op that opens it. The write pass
// replays the tape into a buffer presized to the exact total, without
// reading the message again, and checks each part's length once written.
// No message is sized again for its parents, however deep the nesting. Values are read with
// typed accessors only, so a reused Encoder allocates nothing per call on
// dynamicpb messages.
//
// # Writing from values
//
// Writer encodes from plain values fed field by field against a message
// descriptor, with every check the schema implies, always on, and no
// allocation per message; see its documentation. With
// WriterOptions.Canonical it writes a profile's canonical bytes, from
// fields fed in field-number order.
//
// # Decisions where proto.Marshal's two paths disagree
//
// proto.Marshal encodes generated messages with a table-driven fast path
// and everything else (dynamicpb) through reflection; the two differ in a
// few corners. This package follows the reflection path:
//
//   - A repeated string extension declared in a proto3 file is validated as
//     UTF-8 (the fast path skips it; the reflection path fails).
//   - MessageSet types fail with ErrMessageSet. A generated MessageSet type
//     (its code needs protoc-gen-go built with protolegacy) is encoded by its
//     own methods, as proto.Marshal encodes it, where they agree with
//     themselves; built without protolegacy, they size a MessageSet's
//     unknown fields but do not write them (proto.Marshal drops them at the
//     top and fails below it), and the call fails with ErrMessageSet.
//   - Where both paths agree we match them even against the spec's wording:
//     string extensions of editions files are never validated.
//
// Known differences that reflection cannot avoid:
//
//   - A float32 signalling NaN is quieted in a message read through
//     protoreflect (dynamicpb: protoreflect stores float32 as float64,
//     which sets the quiet bit); generated messages keep the payload.
//   - Lazily decoded fields of Opaque-API messages are written canonically;
//     proto.Marshal in default mode copies their original bytes.
//   - When a required field is missing, proto.Marshal returns the complete
//     encoding together with its error; this package returns no bytes.
//   - When several required fields are missing, the one named follows the
//     fast path's rule (first in emission order, nested messages in turn).
//
// # Concurrency and allocation
//
// Marshal, Size and the MarshalOptions methods are safe for concurrent use;
// they borrow pooled Encoders. An Encoder belongs to one goroutine at a
// time, keeps its scratch space between calls (bounded), and holds no
// reference to a caller's message, or its descriptor, once a call returns.
package encoder
