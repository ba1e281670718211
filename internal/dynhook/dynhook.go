// Package dynhook connects package dynamic to the encoder without an
// import cycle: dynamic imports the encoder to implement its messages'
// fast-path methods, so the encoder cannot import dynamic to recognise
// those messages. dynamic registers here, in its init, what the encoder
// needs to know.
//
// The package is for the dynamic and encoder packages of this module.
package dynhook

import "google.golang.org/protobuf/runtime/protoiface"

// Methods is the one *protoiface.Methods that every *dynamic.Message's
// ProtoMethods returns, or nil when package dynamic is not linked in. Its
// Marshal and Size encode with the encoder's checked walk, so the encoder
// must not call them for such a message (it would call itself): it
// compares a message's methods with Methods, one pointer comparison, and
// walks the message instead.
var Methods *protoiface.Methods
