package benchreport

import (
	"errors"
	"fmt"
	"runtime"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/encoder"
)

// Names of the unmarshal family's baselines.
const (
	// BaseUnmarshalGenerated is proto.Unmarshal into a new generated
	// message, the unmarshal family's first baseline.
	BaseUnmarshalGenerated = "unmarshal/generated"
	// BaseUnmarshalDynamicpb is proto.Unmarshal into a new dynamicpb
	// message.
	BaseUnmarshalDynamicpb = "unmarshal/dynamicpb"
)

// DefaultHeld is the number of decoded messages HeldBytes keeps at once
// when Options.Held is 0.
const DefaultHeld = 8

// ProtoUnmarshal returns the decoder that decodes data[i] with o.Unmarshal
// into a message newMessage returns (a new one per call), checked against
// the messages equal returns (see Contestant.Equal). Its messages hold
// nothing in common, so their memory held is measured.
func ProtoUnmarshal(name string, o proto.UnmarshalOptions, newMessage func() proto.Message, data [][]byte, equal func(i int) proto.Message) Contestant {
	return Contestant{
		Name:  name,
		Check: CheckDecodedMessage,
		Decode: func(i int) (proto.Message, error) {
			m := newMessage()
			return m, o.Unmarshal(data[i], m)
		},
		Equal: equal,
		Holds: true,
	}
}

// CanonicalChecker returns the validator that holds each reference
// encoding of w to profile p with encoder.CanonicalOptions.Check (with
// the workload's resolver), against its message's descriptor: a
// contestant of the unmarshal family, timed beside the decoders on the
// same bytes.
func CanonicalChecker(name string, w *Workload, p encoder.Profile) Contestant {
	o := encoder.CanonicalOptions{Profile: p, Resolver: w.resolver()}
	mds := make([]protoreflect.MessageDescriptor, w.Len())
	for i := range mds {
		mds[i] = w.Message(i).ProtoReflect().Descriptor()
	}
	return Contestant{
		Name:   name,
		Check:  CheckAccepted,
		Accept: func(b []byte, i int) error { return o.Check(b, mds[i]) },
	}
}

// HeldBytes returns the bytes of heap that one message decode returns
// keeps alive: it collects garbage, reads the heap's live bytes, calls
// decode n times keeping every message, collects garbage again with the
// messages still reachable, and divides the growth of the live heap by n.
// Keeping n messages together spreads over n what else the heap gains or
// loses meanwhile. decode must return a new message each call, sharing no
// memory with the others that it did not share before the first call.
func HeldBytes(decode func() (proto.Message, error), n int) (float64, error) {
	if n < 1 {
		return 0, fmt.Errorf("HeldBytes: n must be at least 1, not %d", n)
	}
	held := make([]proto.Message, n)
	before := liveHeap()
	for i := range held {
		m, err := decode()
		if err != nil {
			return 0, err
		}
		if m == nil {
			return 0, errors.New("HeldBytes: decoded a nil message")
		}
		held[i] = m
	}
	after := liveHeap()
	runtime.KeepAlive(held)
	return (float64(after) - float64(before)) / float64(n), nil
}

// liveHeap returns the bytes of the heap's objects after a complete
// garbage collection: those reachable at that point. runtime.GC returns
// once the sweep is done, so HeapAlloc then counts the marked objects
// only; the second collection frees what the first one's finalizers
// released.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// HeldBytes returns the bytes of heap that what one operation decodes
// keeps alive: the sum over the workload's messages of HeldBytes of the
// case's decoder on the message, with n decoded copies kept at once
// (DefaultHeld for 0).
func (c *Case) HeldBytes(n int) (float64, error) {
	if c.Contestant.Decode == nil || !c.Contestant.Holds {
		return 0, fmt.Errorf("%s: not a decoder whose messages can be held together", c.Name())
	}
	if n == 0 {
		n = DefaultHeld
	}
	total := 0.0
	for i := range c.Workload.Len() {
		b, err := HeldBytes(func() (proto.Message, error) { return c.Contestant.Decode(i) }, n)
		if err != nil {
			return 0, err
		}
		total += b
	}
	return total, nil
}
