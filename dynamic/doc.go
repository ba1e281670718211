// Package dynamic provides protocol buffer messages of types known only
// at run time, from their descriptors, with the API of
// google.golang.org/protobuf/types/dynamicpb: a proxy or gateway that
// loads its schemas at run time switches by changing an import.
//
//   - NewMessage(md) returns a *Message, a complete protoreflect.Message
//     and proto.Message;
//   - NewMessageType(md) and NewExtensionType(xd) return the message and
//     extension types whose values are this package's;
//   - NewTypes(files) resolves the message and extension types of a file
//     set, for proto.UnmarshalOptions and the JSON and text encodings.
//
// # When to use it
//
// Use a Message where dynamicpb messages are encoded or decoded in a hot
// path: a proxy, gateway or broker holding messages of schemas it loaded
// at run time. It encodes and decodes at about the speed of generated
// code, where dynamicpb takes the proto package's reflection path both
// ways (the measured numbers are in the repository's
// benchmarks/README.md), proto.Merge, proto.Clone and proto.Equal work
// over its storage, and Range reads it directly. Keep dynamicpb where a
// field must hold a message of another implementation (Set accepts only
// this package's messages for message fields).
//
// # Storage
//
// Where a dynamicpb message keeps its fields in a Go map from field
// number to protoreflect.Value, a Message keeps them in slices laid out
// once per message descriptor: a slot per field by its index (one per
// oneof and storage class for the members of a oneof, with a word naming
// the member set), presence bits, a bit per field marking those ever
// stored to (so that Range skips the others), scalars unboxed in 64-bit
// words (the elements of a list of a 32-bit kind in 32 bits, as a
// generated message keeps them), strings, bytes, messages, lists and
// maps each in a typed slice
// (the slices laid end to end in one block, a single allocation), and,
// apart, raw unknown fields and extensions in a list sorted by number. Storage
// is sized by the fields the type declares, not by those set, as with
// generated messages. That layout is compiled from the message's
// protolayout layout and cached by descriptor identity, and, like the
// layouts, is released with its schema once the program drops the
// descriptors and every message of their types.
//
// # Differences from dynamicpb
//
// The behaviour of a Message through protoreflect is dynamicpb's, field
// by field, with these exceptions:
//
//   - Set, and the setters of lists and maps, take message values only as
//     *Message (of the field's message type, by full name, as dynamicpb
//     checks), where dynamicpb accepts any implementation; values built
//     with NewField, NewElement, NewValue and Mutable are such.
//   - A list or map Set to a field must be one that NewField or Mutable
//     returned for that field descriptor, as in dynamicpb.
//   - Range visits fields in the descriptor's order, then extensions in
//     ascending number; dynamicpb's order varies. protoreflect leaves the
//     order unspecified.
//   - A value of another category than the field's (a string for an
//     integer field) panics with protoreflect's message rather than one
//     naming the field.
//
// # Encoding
//
// ProtoMethods offers Size and Marshal, which encode with protolayout's
// encoder (package encoder) over the message's layout: proto.Marshal,
// proto.Size and proto.MarshalOptions use them, and
// proto.MarshalOptions{Deterministic: true} gives the bytes it gives for
// a dynamicpb message of the same content. They keep the encoder's limits:
// a message that contains itself fails with encoder.ErrCycle, one nested
// deeper than encoder.DefaultMaxDepth with encoder.ErrDepthExceeded (where
// dynamicpb's reflection recurses without a limit), and every error
// matches proto.Error. proto.Size counts 0 for such a message.
// encoder.Marshal and encoder.Encoder encode a Message themselves, whatever
// MarshalOptions.Checked says, instead of calling these methods. A
// message whose type is or holds a MessageSet type, which the encoder
// refuses, is encoded by Size and Marshal through reflection, as a
// dynamicpb message is (which the proto package supports only in a build
// with the protolegacy tag).
//
// The encoder writes a Message straight from its storage, by a program
// compiled once per message type: a size pass, then a write pass, over
// the extensions (first, in ascending number, as the walk writes them)
// and the fields whose touched bit is set, with no protoreflect call per
// field. The size pass leaves each nested message's size in the message,
// stamped with the call, so that the write pass reads it, a message held
// twice in one tree is counted once, and proto.Marshal, which calls Size
// and then Marshal with MarshalUseCachedSize, sizes the message once, as
// it does a generated one. Concurrent encodings of one message are safe:
// each call has its own stamp, and a message not changed meanwhile always
// counts the same. A message changed between the two passes is never
// written with the lengths counted before: the walk reads it again. A
// Message can be copied (*m = *dynamic.NewMessage(md), as Connect's
// initializers do with dynamicpb). This direct encoder names invalid
// UTF-8 and a required field not set itself, with the path the walk
// would give; whatever else it does not take (a limit met, a cycle,
// nesting deeper than 100 levels, an extension holding a message of a
// type the encoder does not read, such as dynamicpb's) goes to the
// encoder's checked walk, which
// gives the same bytes or its detailed error. A reused encoder.Encoder
// appending into a buffer with room allocates nothing per call.
//
// # Decoding
//
// proto.Unmarshal (and UnmarshalOptions, with every option) decodes into
// a Message straight from the wire format into its storage, through
// tables compiled once per message type from the same layouts, and
// proto.CheckInitialized reads the storage too: ProtoMethods offers
// Unmarshal and CheckInitialized. The decoder follows proto.Unmarshal on
// a dynamicpb message rule for rule (a known field of the wrong wire
// type kept as unknown, packed and unpacked lists, last value wins,
// messages merged, enum numbers stored as read, UTF-8 checked where the
// field asks, extensions through the resolver, the recursion limit
// counted per message, group and map entry); messages of a MessageSet
// type decode through reflection. One Unmarshal call takes the storage
// of the messages and lists it creates, and copies of its strings and
// bytes, from chunks rather than allocating each (a message's header and
// storage side by side in a chunk of its type's; a message the input
// holds empty takes a header alone, and shares a storage block of its
// type's that stays empty until one such message is set), each chunk
// sized at first by what the last call into the same message type used,
// so that a steady stream of like messages takes one chunk of each kind
// per call: a decoded value keeps its chunk alive (64 KiB of other
// values at most, never the input); a string or bytes value longer than
// 256 bytes may have an allocation of its own. A list gets room for the run of
// records of its field that starts it, counted ahead, rather than
// growing by doubling.
//
// A loop that decodes one input after another, and is done with each
// message before the next, can use a Decoder: each call releases what the
// call before decoded (a message kept past it reads as empty and
// read-only) and cuts the new storage blocks and list elements from the
// same memory, within Decoder.MaxKeep, so that it allocates about half
// as much; strings and bytes are never reused.
//
// proto.Unmarshal bounds nothing but the nesting, for a Message as for
// generated and dynamicpb messages: chains of small nested
// DescriptorProto messages take 84 times their input once decoded, and
// types with more fields more (see UnmarshalOptions). A
// server that decodes what untrusted peers send can use
// UnmarshalOptions, which takes the same options and bounds the memory a
// call takes, by default to 32 times the input plus 1 MiB, failing with
// ErrMemoryLimit past it.
//
// # Merging and cloning
//
// ProtoMethods offers Merge: proto.Merge of a Message into a Message of
// the same descriptor, and proto.Clone of a Message, copy the storage
// field by field, with the proto package's merge rules (scalars and
// strings stored, bytes copied, messages merged into the destination's,
// list elements appended and map entries replaced with their messages and
// bytes copied, a oneof's member replacing the one set, extensions merged,
// unknown fields appended). The new messages, lists and copies come from
// chunks, as an Unmarshal's do. A source of another implementation, such
// as a dynamicpb message, is merged through reflection. A message that
// contains itself panics with an error saying so, rather than recurse
// until the stack overflows, as reflection does.
//
// # Comparing
//
// ProtoMethods offers Equal: proto.Equal of two Messages compares their
// storage, with the rules protoreflect's Value.Equal applies otherwise (the
// same descriptor; the same populated fields and extensions, extensions set
// with the same descriptors; floating-point values with ==, but NaN equal
// to NaN; bytes with bytes.Equal; unknown fields equal as bytes or as the
// same records for each field number in the same order). Two messages that
// contain themselves panic with an error saying so, rather than recurse
// until the stack overflows.
//
// # Concurrency
//
// As with dynamicpb, concurrent reads of a Message are safe; a method
// that modifies one must not run concurrently with any other use of it.
// NewMessage, NewMessageType, NewExtensionType and the methods of Types
// are safe for concurrent use.
package dynamic
