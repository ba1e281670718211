package engine

import (
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/runtime/protoiface"

	"github.com/protolayout/protolayout/internal/cursor"
	"github.com/protolayout/protolayout/internal/layout"
	"github.com/protolayout/protolayout/internal/walk"
	"github.com/protolayout/protolayout/internal/wire"
)

// Methods is what ProtoMethods returns for every Message: one pointer,
// which the encoder recognises so that it encodes a Message itself, with
// its own options and scratch space, instead of calling these methods.
// Size and Marshal encode (this file); Unmarshal and CheckInitialized
// decode and check (decode*.go); Merge merges (merge.go); Equal compares
// (equal.go).
var Methods = &protoiface.Methods{
	Flags:            protoiface.SupportMarshalDeterministic | protoiface.SupportUnmarshalDiscardUnknown,
	Size:             size,
	Marshal:          marshal,
	Unmarshal:        unmarshal,
	CheckInitialized: checkInitializedMethod,
	Merge:            merge,
	Equal:            equal,
}

// stored is cursor.Stored, embedded in Message under this name so that
// the field is unexported.
//
//lint:ignore U1000 read through its promoted method, by cursor.StoredOf
type stored = cursor.Stored

// size implements protoiface.Methods.Size with the encoder's size pass,
// under the encoder's default limits: a message that cannot be encoded
// within them (a cycle, too deep, too large) counts 0, as
// encoder.MarshalOptions.Size has it. The size of every message counted
// is left in it, for a Marshal called with MarshalUseCachedSize next, as
// proto.Marshal calls it (see marshal.go).
func size(in protoiface.SizeInput) protoiface.SizeOutput {
	if m, ok := in.Message.(*Message); ok && m != nil {
		if reachesMessageSet(m) {
			return protoiface.SizeOutput{Size: proto.Size(slowMessage{m})}
		}
		o := methodOptions
		o.SizeOnly = true
		var st *State // calls made by the proto package have no state
		if _, n, handled := st.encode(nil, m, &o); handled {
			return protoiface.SizeOutput{Size: n}
		}
		n, _ := walk.Size(m, walk.Options{}) // 0 for a message it cannot encode
		return protoiface.SizeOutput{Size: n}
	}
	n, _ := walk.Size(in.Message, walk.Options{})
	return protoiface.SizeOutput{Size: n}
}

// methodOptions are the direct encoder's options in the fast-path
// methods: the encoder's default limits, required fields left to the
// proto package.
var methodOptions = Options{Partial: true, MaxDepth: cursor.DefaultMaxDepth, MaxSize: wire.MaxSize}

// marshal implements protoiface.Methods.Marshal with the encoder (the
// direct encoder of marshal.go, or the checked walk): it appends to in.Buf, in proto.MarshalOptions{Deterministic: true}'s
// order when in.Flags asks for determinism, and fails (appending nothing)
// where the encoder does, with an *encoder.Error, which errors.Is matches
// with proto.Error. Required fields are not checked here: the proto
// package checks them after Marshal unless AllowPartial is set, a flag
// that Marshal does not receive. With MarshalUseCachedSize, it writes with
// the sizes Size left in the messages, and counts again if they are not
// complete or do not fit.
func marshal(in protoiface.MarshalInput) (protoiface.MarshalOutput, error) {
	det := in.Flags&protoiface.MarshalDeterministic != 0
	if m, ok := in.Message.(*Message); ok && m != nil {
		if reachesMessageSet(m) {
			b, err := proto.MarshalOptions{AllowPartial: true, Deterministic: det}.MarshalAppend(in.Buf, slowMessage{m})
			return protoiface.MarshalOutput{Buf: b}, err
		}
		do := methodOptions
		do.Deterministic = det
		if in.Flags&protoiface.MarshalUseCachedSize != 0 {
			// proto.Marshal has just called Size, which left the sizes
			// in the messages: write with them. When Size's direct
			// encoding gave up, so would another: the walk takes m.
			if b, ok := appendCached(in.Buf, m, det); ok {
				return protoiface.MarshalOutput{Buf: b}, nil
			}
		} else {
			var st *State
			if b, _, handled := st.encode(in.Buf, m, &do); handled {
				return protoiface.MarshalOutput{Buf: b}, nil
			}
		}
		b, err := walk.Append(in.Buf, m, walk.Options{Partial: true, Deterministic: det})
		return protoiface.MarshalOutput{Buf: b}, err
	}
	b, err := walk.Append(in.Buf, in.Message, walk.Options{Partial: true, Deterministic: det})
	return protoiface.MarshalOutput{Buf: b}, err
}

// reachesMessageSet reports whether m's type is, or holds a field of, a
// MessageSet type, which the encoder refuses in every build: Size and
// Marshal then go through reflection, as for a dynamicpb message, which
// the proto package encodes only in a build with the protolegacy tag.
// The answer is kept in the shape.
func reachesMessageSet(m *Message) bool {
	if m == nil || m.t == nil {
		return false
	}
	s := m.t.shape
	switch s.messageSet.Load() {
	case 1:
		return false
	case 2:
		return true
	}
	r := reaches(s.layout, func(l *layout.Layout) bool { return l.MessageSet })
	if r {
		s.messageSet.Store(2)
	} else {
		s.messageSet.Store(1)
	}
	return r
}
