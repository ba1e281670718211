// Package dynmsg is package dynamic's message type and everything that
// reads or writes its storage: the storage compiled per message
// descriptor, the reflection methods, the direct encoder, the decoder,
// Merge and Equal. Package dynamic is its public face (dynamic.Message is
// an alias of Message, and documents it).
//
// It lives here, below the encoder, so that the encoder calls its direct
// encoder (Append) and recognises its messages (Methods) without anything
// registered at run time; its fast-path methods, which proto.Marshal
// calls, fall back on the checked walk (internal/walk) directly.
package dynmsg
