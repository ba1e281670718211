package dynamic

import (
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/engine"
)

// UnmarshalOptions decodes into a Message as proto.UnmarshalOptions
// does, with the same options and rules, and bounds the memory one call
// may take: for servers that decode what untrusted peers send.
//
// proto.Unmarshal has no such bound, for a Message as for dynamicpb and
// generated messages. Its worst case is small records of message
// fields. An empty message takes two bytes of input (a tag and a zero
// length) and, decoded, a 24-byte header and 8 bytes in its list: the
// empty messages of a type share one storage block, which stays empty
// until one of them is set.
// 2,000,000 empty google.protobuf.DescriptorProto records in the
// message_type field of a FileDescriptorProto (4 MB) take 64 MB, 16
// times the input (the generated type: 534 MB). A message with a field
// set takes its type's block as well (8 bytes per scalar, 16 per string
// or bytes field, 8 per message, list or map field, and a word per 64
// fields): chains of DescriptorProto messages, each the one nested_type
// of the one before, take 84 times their input, and a type with more
// fields takes more per record. Other input takes less: packed scalars
// up to 8 bytes per byte of input (4 for kinds of 32 bits), strings and
// bytes about their length, map entries about 64 bytes beside their
// keys and values. MaxMemory stops a call before it goes far past its
// bound.
type UnmarshalOptions struct {
	// Merge merges the input into the message instead of resetting it
	// first, as proto.UnmarshalOptions.Merge does.
	Merge bool
	// AllowPartial accepts a message that misses required fields, as
	// proto.UnmarshalOptions.AllowPartial does.
	AllowPartial bool
	// DiscardUnknown drops unknown fields instead of keeping them, as
	// proto.UnmarshalOptions.DiscardUnknown does.
	DiscardUnknown bool
	// Resolver finds extension types, as proto.UnmarshalOptions.Resolver
	// does; nil means protoregistry.GlobalTypes (NewTypes gives this
	// package's types of a file set).
	Resolver interface {
		FindExtensionByName(field protoreflect.FullName) (protoreflect.ExtensionType, error)
		FindExtensionByNumber(message protoreflect.FullName, field protoreflect.FieldNumber) (protoreflect.ExtensionType, error)
	}
	// RecursionLimit bounds the nesting of messages, groups and map
	// entries, as proto.UnmarshalOptions.RecursionLimit does; zero means
	// protowire.DefaultRecursionLimit (10,000).
	RecursionLimit int

	// MaxMemory bounds the bytes one Unmarshal call may take for the
	// values it decodes: message headers and storage, lists, copies of
	// strings and bytes, map entries, extensions and unknown fields (each
	// counted at its size, map entries and extensions at an estimate).
	// A call that would take more fails with ErrMemoryLimit, once the
	// record that took it past the bound is decoded (a packed list
	// before its array is allocated): it will have taken at most
	// MaxMemory plus the storage of that record, and the chunks sized
	// ahead by the last call into the same type (a quarter of MaxMemory
	// at most, 16 bytes per byte of input at most). The message is then
	// left partly decoded, as after any error. Zero means the default,
	// 32 times the input's length plus 1 MiB: the decoded forms of the
	// benchmarks' inputs (OTLP traces, descriptor sets, text, lists and
	// maps) take 2 to 11 times theirs, and only input made mostly of
	// small messages with a field set takes more (chains of nested
	// DescriptorProto messages: 84 times). A build
	// with the protolayout_purego tag takes about twice the memory per
	// message, and counts it. A negative value means no bound.
	// Messages of a MessageSet type, and extension values of other
	// implementations, are decoded through the proto package, outside
	// the count.
	MaxMemory int64
}

// ErrMemoryLimit is the error of UnmarshalOptions.Unmarshal when the
// decoded message would take more memory than MaxMemory allows. As
// every decoding error, it matches proto.Error with errors.Is.
var ErrMemoryLimit = engine.ErrMemoryLimit

// Unmarshal decodes b into m, as proto.UnmarshalOptions.Unmarshal with
// the same options does, within o.MaxMemory.
func (o UnmarshalOptions) Unmarshal(b []byte, m *Message) error {
	return engine.Unmarshal(b, m, engine.UnmarshalOptions(o))
}

// A Decoder decodes into Messages as UnmarshalOptions.Unmarshal does,
// with the same options, rules and memory bound, and reuses from call to
// call the memory of the messages and lists it decoded: for a loop that
// decodes one input after another and is done with each message before
// it decodes the next, as hyperpb's Shared is used. Each decoded message
// is a complete, mutable Message. The zero Decoder is ready to use; a
// Decoder must not be used by two goroutines at once, nor copied once
// used.
//
// What a caller may keep: Unmarshal (unless Options.Merge is set) and
// Reset release every message and list that the Decoder's calls made
// since the last release: the messages and lists in m's fields, at any
// depth, map values and the fields of extension values included. A
// released message reads as an empty, read-only message (IsValid reports
// false, and setting a field panics), and a released list as an empty,
// read-only list; their storage holds the values of the next calls, and
// they cannot reach it. What stays valid: the message passed to
// Unmarshal (the next call without Merge resets it; after Reset alone
// its message and list fields hold released values), maps and extension
// values themselves (new in every call), and every string and bytes
// value read from a decoded message, which never changes. To keep a
// decoded message past the next call, keep proto.Clone of it; a released
// message or list stored in another message's field reads there as
// empty too. A copy of the struct of a message the Decoder made
// (*m2 = *m) shares its storage and is not released with it: it must
// not be used after the release.
//
// A call with Options.Merge releases nothing, so that it can merge into
// what the calls before it decoded; the next release releases all of
// them. What a Decoder keeps between calls for the next is bounded by
// MaxKeep.
type Decoder struct {
	// Options are the options of every call.
	Options UnmarshalOptions
	// MaxKeep bounds the bytes of storage (message storage blocks and
	// lists' elements) the Decoder keeps between calls to decode the
	// next into: zero means DefaultMaxKeep, and a negative value keeps
	// nothing. Storage past the bound is allocated as UnmarshalOptions
	// allocates it. Until the next release, the Decoder also holds the
	// headers of the messages and lists it decoded, which those messages
	// hold anyway. A message type unused for 8 releases in a row gives
	// its storage back.
	MaxKeep int64

	d engine.Decoder
}

// DefaultMaxKeep is the bytes of storage a Decoder keeps between calls
// when its MaxKeep is zero: 4 MiB, about ten decoded OTLP trace exports
// of 69 kB each.
const DefaultMaxKeep = engine.DefaultMaxKeep

// Unmarshal decodes b into m as d.Options.Unmarshal does, first
// releasing what d's calls decoded since the last release unless
// d.Options.Merge is set (see Decoder).
func (d *Decoder) Unmarshal(b []byte, m *Message) error {
	return d.d.Unmarshal(b, m, engine.UnmarshalOptions(d.Options), d.MaxKeep)
}

// Reset releases every message and list that d's calls decoded since
// the last release (see Decoder), so that the next call reuses their
// storage; d keeps that storage, within MaxKeep.
func (d *Decoder) Reset() { d.d.Release() }
