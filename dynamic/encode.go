package dynamic

import (
	"google.golang.org/protobuf/runtime/protoiface"

	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/internal/dynhook"
)

// methods is what ProtoMethods returns for every Message: one pointer,
// which the encoder recognises (internal/dynhook) so that it walks a
// Message itself instead of calling these methods, which call it.
//
// Unmarshal and CheckInitialized are not set yet (they belong with the
// decoder, in decode*.go): the proto package falls back to reflection for
// a nil function, as it does for a Message without methods.
var methods = &protoiface.Methods{
	Flags:   protoiface.SupportMarshalDeterministic,
	Size:    size,
	Marshal: marshal,
}

func init() { dynhook.Methods = methods }

// size implements protoiface.Methods.Size with the encoder's size pass,
// under the encoder's default limits: a message that cannot be encoded
// within them (a cycle, too deep, too large) counts 0, as
// encoder.MarshalOptions.Size has it. The sizes are not cached
// (MarshalUseCachedSize is ignored).
func size(in protoiface.SizeInput) protoiface.SizeOutput {
	return protoiface.SizeOutput{Size: encoder.MarshalOptions{}.Size(in.Message.Interface())}
}

// marshal implements protoiface.Methods.Marshal with the encoder's checked
// walk: it appends to in.Buf, in proto.MarshalOptions{Deterministic: true}'s
// order when in.Flags asks for determinism, and fails (appending nothing)
// where the encoder does, with an *encoder.Error, which errors.Is matches
// with proto.Error. Required fields are not checked here: the proto
// package checks them after Marshal unless AllowPartial is set, a flag
// that Marshal does not receive.
func marshal(in protoiface.MarshalInput) (protoiface.MarshalOutput, error) {
	o := encoder.MarshalOptions{
		AllowPartial:  true,
		Deterministic: in.Flags&protoiface.MarshalDeterministic != 0,
	}
	b, err := o.MarshalAppend(in.Buf, in.Message.Interface())
	return protoiface.MarshalOutput{Buf: b}, err
}
