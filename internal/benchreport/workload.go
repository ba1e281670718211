package benchreport

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// Family names of workloads (and of their ratio columns).
const (
	// FamilyMarshal is the family of encoders of message objects, with
	// ratios to BaseGenerated, BaseDynamic and BaseFloor.
	FamilyMarshal = ""
	// FamilyWriter is the family of encoders fed plain values, with ratios
	// to BaseHandwritten, BaseEasyproto and BaseDynamicpb.
	FamilyWriter = "writer"
	// FamilyUnmarshal is the family of decoders, whose contestants decode
	// the reference encodings (Contestant.Decode), with ratios to
	// BaseUnmarshalGenerated and BaseUnmarshalDynamicpb and the memory a
	// decoded message holds.
	FamilyUnmarshal = "unmarshal"
)

// Families are the workload families, in the order of the chart's panels.
var Families = []string{FamilyMarshal, FamilyWriter, FamilyUnmarshal}

// Resolver finds the extension and message types that decoding a
// contestant's output may need, as proto.UnmarshalOptions.Resolver does.
type Resolver interface {
	protoregistry.ExtensionTypeResolver
	protoregistry.MessageTypeResolver
}

// Workload is what every contestant of a case encodes: one or more
// messages, the reference ones. Contestants may encode other objects of
// the same content (a dynamicpb twin of a generated message, plain
// values); their outputs are checked against the reference messages'
// encodings. The contestants of the unmarshal family decode the reference
// encodings instead.
type Workload struct {
	// Name names the workload in tables, progress and JSON.
	Name string
	// Description follows the name in the table's title.
	Description string
	// Family is FamilyMarshal, FamilyWriter or FamilyUnmarshal.
	Family string
	// Resolver, if not nil, resolves extensions and message types when
	// outputs are decoded for verification and when maps are looked for
	// in extensions; nil means protoregistry.GlobalTypes.
	Resolver Resolver

	msgs    []proto.Message
	refs    [][]byte
	digests [][]byte
	size    int
}

// NewWorkload returns the workload of msgs, the reference messages, with
// their reference encodings (proto.MarshalOptions{Deterministic: true})
// and read digests (computed with protorange, independently of the read
// floor's traversal). It fails if msgs is empty or a message does not
// encode.
func NewWorkload(name, description string, msgs []proto.Message) (*Workload, error) {
	if len(msgs) == 0 {
		return nil, errors.New("workload " + name + ": no messages")
	}
	w := &Workload{Name: name, Description: description, msgs: msgs}
	for i, m := range msgs {
		ref, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
		if err != nil {
			return nil, fmt.Errorf("workload %s%s: reference encoding: %w", name, w.which(i), err)
		}
		digest, err := floorDigest(m)
		if err != nil {
			return nil, fmt.Errorf("workload %s%s: digest: %w", name, w.which(i), err)
		}
		w.refs = append(w.refs, ref)
		w.digests = append(w.digests, digest)
		w.size += len(ref)
	}
	return w, nil
}

// Len returns the number of messages.
func (w *Workload) Len() int { return len(w.msgs) }

// Message returns the i-th reference message.
func (w *Workload) Message(i int) proto.Message { return w.msgs[i] }

// Ref returns the i-th message's reference encoding,
// proto.MarshalOptions{Deterministic: true}.Marshal of it. The caller must
// not modify it.
func (w *Workload) Ref(i int) []byte { return w.refs[i] }

// Digest returns what a read of every populated field of the i-th message
// adds up to, which a read floor contestant must return. The caller must
// not modify it.
func (w *Workload) Digest(i int) []byte { return w.digests[i] }

// Size returns the total of the reference encodings' lengths, the bytes
// one operation encodes.
func (w *Workload) Size() int { return w.size }

// which names message i in messages, if there are several.
func (w *Workload) which(i int) string {
	if len(w.msgs) == 1 {
		return ""
	}
	return fmt.Sprintf(" message %d", i)
}

// resolver returns the resolver to decode with.
func (w *Workload) resolver() Resolver {
	if w.Resolver == nil {
		return protoregistry.GlobalTypes
	}
	return w.Resolver
}
