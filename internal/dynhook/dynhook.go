// Package dynhook connects package dynamic to the encoder without an
// import cycle: dynamic imports the encoder to implement its messages'
// fast-path methods, so the encoder cannot import dynamic to recognise
// those messages. dynamic registers here, in its init, what the encoder
// needs to know.
//
// The hooks: the Methods pointer, so that the encoder encodes a dynamic
// message itself instead of calling its fast-path methods (which call the
// encoder); MessageType and Addr, so that it tells a nil
// *dynamic.Message, and the size pass keys shared dynamic messages by
// address; Append, the direct encoder over a dynamic message's storage,
// which the encoder calls first. The walker ranges over a dynamic message (one Range
// call, which reads its storage) as it does over a dynamicpb message.
//
// The package is for the dynamic, cursor, sizing and encoder packages of this
// module.
package dynhook

import (
	"reflect"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/runtime/protoiface"

	"github.com/protolayout/protolayout/internal/engine"
)

// Methods is the one *protoiface.Methods that every *dynamic.Message's
// ProtoMethods returns, or nil when package dynamic is not linked in. Its
// Marshal and Size encode with the encoder, so the encoder must not call
// them for such a message (it would call itself): it compares a message's
// methods with Methods, one pointer comparison, and encodes the message
// itself instead (Append, then the walk).
var Methods *protoiface.Methods

// MessageType is reflect.TypeFor[*dynamic.Message](), or nil when package
// dynamic is not linked in: a nil *dynamic.Message carries no descriptor,
// and the encoder, which tells one by its type and its Addr of 0, encodes
// it as nothing, as it does a nil *dynamicpb.Message.
var MessageType reflect.Type

// Addr, set by package dynamic, returns the address of m if m is a
// non-nil *dynamic.Message, else 0: the size pass keys the summaries of
// shared subtrees by it, as it keys dynamicpb messages, rather than by
// interface value.
var Addr func(m protoreflect.Message) uintptr

// Append, set by package dynamic, encodes m, a *dynamic.Message, straight
// from its storage, appending to b: the encoder calls it for such a
// message before its checked walk. It reports handled false, with b
// unchanged, whenever it does not encode m: with a fault recorded in
// o.Trail (invalid UTF-8, a required field not set), or for anything
// else (a MessageSet type, a limit met, a cycle, an extension holding a
// value of another implementation, a message that changed during the
// call), and the encoder then walks m, which gives the same bytes or the
// detailed error. With
// o.SizeOnly it appends nothing and returns the size as n. state is
// scratch space the caller keeps between calls (an Encoder's), nil at
// first.
var Append func(state *any, b []byte, m protoreflect.Message, o engine.Options) (out []byte, n int, handled bool)

