// Package dynhook connects package dynamic to the encoder without an
// import cycle: dynamic imports the encoder to implement its messages'
// fast-path methods, so the encoder cannot import dynamic to recognise
// those messages. dynamic registers here, in its init, what the encoder
// needs to know.
//
// The hooks: the Methods pointer, so that the encoder encodes a dynamic
// message itself instead of calling its fast-path methods (which call the
// encoder); Append, the direct encoder over a dynamic message's storage,
// which the encoder calls first; Collect, for what Append leaves to the
// walk, so that the walker (internal/cursor) reads a
// dynamic message's storage directly, as it reads dynamicpb's through
// internal/dynstore, instead of calling Has and Get per declared field,
// and Addr, so that the size pass keys a dynamic message by its address.
// Package dynamic keeps its storage types to itself; the walker sees only
// what Collect hands out, the set fields' positions and values.
//
// The package is for the dynamic, cursor and encoder packages of this
// module.
package dynhook

import (
	"reflect"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/runtime/protoiface"

	"github.com/protolayout/protolayout/internal/engine"
	"github.com/protolayout/protolayout/internal/layout"
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

// Field is a set field of a message, by its position in the message's
// layout (layout.Layout.Fields), and its value: what the walker gathers of
// a message whose storage it reads at once.
type Field struct {
	Pos int32
	V   protoreflect.Value
}

// Extension is a set extension field and its value.
type Extension struct {
	FD protoreflect.FieldDescriptor
	V  protoreflect.Value
}

// Collect, set by package dynamic, reads the storage of m if m is a valid
// *dynamic.Message whose storage is laid out from lay: it appends m's set
// fields to set in emission order (ascending Pos, oneof members at their
// positions) and its set extensions to exts in no particular order, and
// returns the extended slices and true. For any other message it returns
// set and exts unchanged and false, and the caller reads m through
// protoreflect. A field counts as set as protoreflect's Has has it.
var Collect func(m protoreflect.Message, lay *layout.Layout, set []Field, exts []Extension) ([]Field, []Extension, bool)

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

// Walk, set by package encoder, encodes m with the encoder's checked walk
// alone, appending to b, without trying Append first: package dynamic's
// fast-path methods call it once their own call of Append gave up, so
// that a message is never handed to the direct encoder twice in one
// call. Options are as for Append (o.Partial leaves required fields
// unchecked; with o.SizeOnly it appends nothing and returns the size as
// n); MaxDepth and MaxSize are the encoder's defaults whatever o says.
// The error is the encoder's.
var Walk func(b []byte, m protoreflect.Message, o engine.Options) (out []byte, n int, err error)
