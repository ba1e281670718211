package benchreport

import (
	"fmt"

	"github.com/dustin/go-humanize"
	"google.golang.org/protobuf/proto"

	"github.com/protolayout/protolayout/encoder"
)

// Names of the contestants that this package builds, and of the
// baselines of the ratio columns.
const (
	// BaseGenerated is proto.Marshal of generated messages, the marshal
	// family's first baseline (the benchmark program's contestant).
	BaseGenerated = "proto/generated"
	// BaseDynamic is proto.Marshal of dynamicpb messages.
	BaseDynamic = "proto/dynamicpb"
	// BaseFloor is the read floor through Message.Range.
	BaseFloor = "floor/range"
	// BaseHandwritten, BaseEasyproto and BaseDynamicpb are the writer
	// family's baselines (the benchmark program's contestants).
	BaseHandwritten = "handwritten"
	BaseEasyproto   = "easyproto"
	BaseDynamicpb   = "dynamicpb+marshal"

	// NameDynamicDet is proto.MarshalOptions{Deterministic: true} on
	// dynamicpb messages.
	NameDynamicDet = "proto/dynamicpb-det"
	// NameFloorHasGet is the read floor through Has and Get.
	NameFloorHasGet = "floor/has-get"
	// NameLayoutDynamic is encoder.Marshal of dynamicpb messages.
	NameLayoutDynamic = "protolayout/dynamicpb"
	// NameLayoutReuse is one reused encoder.Encoder appending into one
	// reused buffer.
	NameLayoutReuse = "protolayout/dynamicpb-reuse"
	// NameLayoutDet is NameLayoutReuse with Deterministic.
	NameLayoutDet = "protolayout/dynamicpb-det"
)

// ProtoMarshal returns the contestant that encodes msgs with o.Marshal.
// It is checked byte for byte with Deterministic, and by length and
// decoding without it.
func ProtoMarshal(name string, o proto.MarshalOptions, msgs []proto.Message) Contestant {
	check := CheckDecoded
	if o.Deterministic {
		check = CheckExact
	}
	return Contestant{Name: name, Check: check, Encode: func(i int) ([]byte, error) { return o.Marshal(msgs[i]) }}
}

// EncoderMarshal returns the contestant that encodes msgs with
// encoder.Marshal (pooled scratch, a fresh output per call).
func EncoderMarshal(name string, msgs []proto.Message) Contestant {
	return Contestant{Name: name, Check: CheckExactUpToMapOrder, Encode: func(i int) ([]byte, error) { return encoder.Marshal(msgs[i]) }}
}

// EncoderReuse returns the contestant that encodes msgs with one
// encoder.Encoder of options o, appending into one reused buffer.
func EncoderReuse(name string, o encoder.MarshalOptions, msgs []proto.Message) Contestant {
	check := CheckExactUpToMapOrder
	switch {
	case o.Canonical != 0:
		check = CheckCanonical
	case o.Deterministic:
		check = CheckExact
	}
	e := encoder.NewEncoder(o)
	var buf []byte
	return Contestant{Name: name, Check: check, Encode: func(i int) ([]byte, error) {
		out, err := e.MarshalAppend(buf[:0], msgs[i])
		buf = out
		return out, err
	}}
}

// ReadFloor returns a read floor contestant on msgs: it reads every
// populated field of each message through protoreflect, recursively,
// lists element by element and maps entry by entry, touching each value
// with its typed accessor and writing nothing, and returns the digest of
// what it read. With hasGet it calls Has and Get on every declared field
// (WhichOneof once per real oneof) instead of ranging with Message.Range.
// It allocates nothing.
func ReadFloor(name string, hasGet bool, msgs []proto.Message) Contestant {
	r := newFloorReader(hasGet)
	return Contestant{Name: name, Check: CheckDigest, Encode: func(i int) ([]byte, error) {
		return r.read(msgs[i].ProtoReflect()), nil
	}}
}

// DynamicContestants returns the generic contestants on msgs, dynamicpb
// messages (any proto.Message works), in report order:
//
//	proto/dynamicpb            proto.Marshal (baseline)
//	proto/dynamicpb-det        proto.MarshalOptions{Deterministic: true}
//	floor/range                read floor: Message.Range (baseline)
//	floor/has-get              read floor: Has and Get per declared field
//	protolayout/dynamicpb      encoder.Marshal
//	protolayout/dynamicpb-reuse
//	                           one *encoder.Encoder appending into one reused buffer
//	protolayout/dynamicpb-det  the same with Deterministic
func DynamicContestants(msgs []proto.Message) []Contestant {
	return []Contestant{
		ProtoMarshal(BaseDynamic, proto.MarshalOptions{}, msgs),
		ProtoMarshal(NameDynamicDet, proto.MarshalOptions{Deterministic: true}, msgs),
		ReadFloor(BaseFloor, false, msgs),
		ReadFloor(NameFloorHasGet, true, msgs),
		EncoderMarshal(NameLayoutDynamic, msgs),
		EncoderReuse(NameLayoutReuse, encoder.MarshalOptions{}, msgs),
		EncoderReuse(NameLayoutDet, encoder.MarshalOptions{Deterministic: true}, msgs),
	}
}

// DynamicWorkload returns the marshal-family workload of msgs, named name,
// with the cases of DynamicContestants on it, ready for Run (which
// verifies them first). Each operation encodes every message. The
// description names the message type and, if there are several, their
// number; set Workload.Description to change it, and Workload.Resolver
// when the messages hold extensions that protoregistry.GlobalTypes does
// not know, before Run.
func DynamicWorkload(name string, msgs []proto.Message) (*Workload, []*Case, error) {
	if len(msgs) == 0 {
		return nil, nil, fmt.Errorf("workload %s: no messages", name)
	}
	desc := string(msgs[0].ProtoReflect().Descriptor().FullName())
	for _, m := range msgs[1:] {
		if m.ProtoReflect().Descriptor().FullName() != msgs[0].ProtoReflect().Descriptor().FullName() {
			desc = "messages of several types"
			break
		}
	}
	if len(msgs) > 1 {
		desc = fmt.Sprintf("%s, %s messages", desc, humanize.Comma(int64(len(msgs))))
	}
	w, err := NewWorkload(name, desc, msgs)
	if err != nil {
		return nil, nil, err
	}
	var cases []*Case
	for _, ct := range DynamicContestants(msgs) {
		cases = append(cases, &Case{Workload: w, Contestant: ct})
	}
	return w, cases, nil
}
