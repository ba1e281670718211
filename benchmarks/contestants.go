package main

import (
	"fmt"
	"regexp"

	"google.golang.org/protobuf/proto"

	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/internal/benchreport"
)

// contestant is one way of encoding (or, for the floor, of reading) a
// workload.
type contestant struct {
	name string
	// only, if set, is the one workload the contestant applies to.
	only string
	// family is the family of workloads the contestant applies to:
	// benchreport.FamilyMarshal (encoding a message object),
	// benchreport.FamilyWriter (encoding from plain values) or
	// benchreport.FamilyUnmarshal (decoding the reference bytes).
	family string
	// prepare returns the contestant on w, with any state it reuses.
	prepare func(name string, w *workload) benchreport.Contestant
}

// appliesTo reports whether the contestant runs on w.
func (ct *contestant) appliesTo(w *workload) bool {
	return ct.family == w.Family && (ct.only == "" || ct.only == w.Name)
}

// on adapts a benchreport constructor over a slice of messages to the
// generated (gen) or the dynamic twin of a workload.
func on(gen bool, build func(name string, msgs []proto.Message) benchreport.Contestant) func(string, *workload) benchreport.Contestant {
	return func(name string, w *workload) benchreport.Contestant {
		m := w.dynamic
		if gen {
			m = w.generated
		}
		return build(name, []proto.Message{m})
	}
}

// onDynamic adapts a benchreport constructor over a slice of messages to
// the workload's twin of package dynamic.
func onDynamic(build func(name string, msgs []proto.Message) benchreport.Contestant) func(string, *workload) benchreport.Contestant {
	return func(name string, w *workload) benchreport.Contestant {
		return build(name, []proto.Message{w.dynmsg})
	}
}

func protoMarshal(o proto.MarshalOptions) func(string, []proto.Message) benchreport.Contestant {
	return func(name string, msgs []proto.Message) benchreport.Contestant {
		return benchreport.ProtoMarshal(name, o, msgs)
	}
}

func readFloor(hasGet bool) func(string, []proto.Message) benchreport.Contestant {
	return func(name string, msgs []proto.Message) benchreport.Contestant {
		return benchreport.ReadFloor(name, hasGet, msgs)
	}
}

func encoderReuse(o encoder.MarshalOptions) func(string, []proto.Message) benchreport.Contestant {
	return func(name string, msgs []proto.Message) benchreport.Contestant {
		return benchreport.EncoderReuse(name, o, msgs)
	}
}

func encoderMarshal(o encoder.MarshalOptions) func(string, []proto.Message) benchreport.Contestant {
	return func(name string, msgs []proto.Message) benchreport.Contestant {
		return benchreport.Contestant{Name: name, Check: benchreport.CheckExactUpToMapOrder,
			Encode: func(i int) ([]byte, error) { return o.Marshal(msgs[i]) }}
	}
}

// contestants is the marshal family, in report order: the harness's
// generic contestants on the dynamicpb twin (benchreport.DynamicContestants,
// in the same order), with proto.Marshal and encoder.Marshal of the
// generated message among them, then the twin of package dynamic through
// proto.Marshal (its ProtoMethods) and through a reused encoder.Encoder,
// and the hand-written encoder.
var contestants = []contestant{
	{name: baseGenerated, prepare: on(true, protoMarshal(proto.MarshalOptions{}))},
	{name: baseDynamic, prepare: on(false, protoMarshal(proto.MarshalOptions{}))},
	{name: benchreport.NameDynamicDet, prepare: on(false, protoMarshal(proto.MarshalOptions{Deterministic: true}))},
	{name: baseFloor, prepare: on(false, readFloor(false))},
	{name: benchreport.NameFloorHasGet, prepare: on(false, readFloor(true))},
	{name: "protolayout/generated", prepare: on(true, benchreport.EncoderMarshal)},
	{name: "protolayout/generated-reuse", prepare: on(true, encoderReuse(encoder.MarshalOptions{}))},
	{name: "protolayout/generated-det", prepare: on(true, encoderReuse(encoder.MarshalOptions{Deterministic: true}))},
	{name: "protolayout/generated-unchecked", prepare: on(true, encoderMarshal(encoder.MarshalOptions{Unchecked: true}))},
	{name: "protolayout/generated-canonical", prepare: on(true, encoderReuse(encoder.MarshalOptions{Canonical: encoder.Canonical}))},
	{name: benchreport.NameLayoutDynamic, prepare: on(false, benchreport.EncoderMarshal)},
	{name: benchreport.NameLayoutReuse, prepare: on(false, encoderReuse(encoder.MarshalOptions{}))},
	{name: benchreport.NameLayoutDet, prepare: on(false, encoderReuse(encoder.MarshalOptions{Deterministic: true}))},
	{name: "dynamic/proto.Marshal", prepare: onDynamic(protoMarshal(proto.MarshalOptions{}))},
	{name: "dynamic/proto-det", prepare: onDynamic(protoMarshal(proto.MarshalOptions{Deterministic: true}))},
	{name: "dynamic/proto-partial", prepare: onDynamic(protoMarshal(proto.MarshalOptions{AllowPartial: true}))},
	{name: "dynamic/encoder-reuse", prepare: onDynamic(encoderReuse(encoder.MarshalOptions{}))},
	{name: "dynamic/encoder-det", prepare: onDynamic(encoderReuse(encoder.MarshalOptions{Deterministic: true}))},
	{name: "dynamic/encoder-canonical", prepare: onDynamic(encoderReuse(encoder.MarshalOptions{Canonical: encoder.Canonical}))},
	{name: baseHandwritten, only: "otlp", prepare: handwrittenContestant},
}

// Baselines of the marshal family's ratio columns.
const (
	baseGenerated = benchreport.BaseGenerated
	baseDynamic   = benchreport.BaseDynamic
	baseFloor     = benchreport.BaseFloor
)

// allContestants is every contestant of every family, in report order.
var allContestants = append(append(append([]contestant(nil), contestants...), writerContestants...), decodeContestants...)

// handwrittenContestant encodes the OTLP workload with the hand-written
// protowire encoder, one encoder appending into one reused buffer.
func handwrittenContestant(name string, w *workload) benchreport.Contestant {
	req, err := otlpRequest(w)
	if err != nil {
		return failing(name, fmt.Errorf("handwritten: %w", err))
	}
	e := new(otlpEncoder)
	var buf []byte
	return benchreport.Contestant{Name: name, Encode: func(int) ([]byte, error) {
		out, err := e.MarshalAppend(buf[:0], req)
		buf = out
		return out, err
	}}
}

// cases returns every contestant on every workload whose name matches
// filter (all when filter is nil), grouped by workload, in a fixed order.
// Each case is verified before it is returned; the error names the first
// that fails, except for tolerated contestants (another project's, which
// are timed even when wrong, as the report does).
func cases(filter *regexp.Regexp) ([]*benchreport.Case, error) {
	out, err := unverifiedCases(filter)
	if err != nil {
		return nil, err
	}
	for _, c := range out {
		if err := c.Verify(); err != nil && !c.Contestant.Tolerate {
			return nil, err
		}
	}
	return out, nil
}

// unverifiedCases is cases without the verification, which
// benchreport.Run does.
func unverifiedCases(filter *regexp.Regexp) ([]*benchreport.Case, error) {
	ws, err := workloads()
	if err != nil {
		return nil, err
	}
	var out []*benchreport.Case
	for _, w := range ws {
		if filter == nil || filter.MatchString(w.Name) {
			out = append(out, casesOf(w)...)
		}
	}
	return out, nil
}

// casesOf returns the contestants that apply to w, prepared and not yet
// verified.
func casesOf(w *workload) []*benchreport.Case {
	var out []*benchreport.Case
	for _, ct := range allContestants {
		if ct.appliesTo(w) {
			out = append(out, &benchreport.Case{Workload: w.Workload, Contestant: ct.prepare(ct.name, w)})
		}
	}
	return out
}
