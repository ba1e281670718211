package dynamic

import (
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/engine"
)

// A Message is a protocol buffer message of a type known only at run
// time, from its descriptor, as a dynamicpb.Message is.
//
// Message implements [google.golang.org/protobuf/proto.Message] and
// [protoreflect.Message], and works with every function of the proto
// package and the encodings (Marshal, Unmarshal, Equal, Clone, Merge,
// protojson, prototext). See the protoreflect documentation for how to
// get and set fields.
//
// Reflection methods that build values (NewField, a list's NewElement, a
// map's NewValue, Mutable) return *Message values for message fields;
// Set and the lists' and maps' setters accept only those (dynamicpb
// accepts any message implementation of the field's type).
//
// Concurrent reads are safe; a method that modifies a Message must not
// run concurrently with any other use of it.
//
// Message is defined in an internal package of this module, where the
// encoder reads its storage; its methods are those of protoreflect.Message
// and protoreflect.ProtoMessage, plus Reset and String, and the
// protoiface.MessageV1 methods.
type Message = engine.Message

// NewMessage returns a new empty message of the type md describes. It
// finds the type's storage in a cache keyed by md; a caller that makes
// many messages of one type can keep the type instead, whose New needs
// no lookup: mt := NewMessageType(md) once, then mt.New() (or, from a
// message m of the type, m.Type().New()).
func NewMessage(md protoreflect.MessageDescriptor) *Message {
	return engine.NewMessage(md)
}

// NewMessageType returns the message type of md, whose messages are
// *Message values. Types of the same descriptor are equal:
// NewMessageType(md) == NewMessageType(md).
func NewMessageType(md protoreflect.MessageDescriptor) protoreflect.MessageType {
	return engine.NewMessageType(md)
}

// NewExtensionType returns the extension type of xd, whose message values
// are *Message values and whose list values are this package's (as
// NewField returns them). Types of the same descriptor are equal:
// NewExtensionType(xd) == NewExtensionType(xd).
//
// ValueOf and InterfaceOf convert as protoreflect.ValueOf and
// Value.Interface do, so that the values proto.GetExtension returns and
// proto.SetExtension takes have the Go types protoreflect.Value holds.
func NewExtensionType(xd protoreflect.ExtensionDescriptor) protoreflect.ExtensionType {
	return engine.NewExtensionType(xd)
}
