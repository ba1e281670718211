package main

import (
	"fmt"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/dynamic"
	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/internal/benchreport"
)

// decodeSuffix ends the names of the unmarshal family's workloads, each
// the decoding of a marshal workload's reference bytes.
const decodeSuffix = "-decode"

// decodeWorkload returns the unmarshal-family twin of the marshal
// workload that build returns: the same messages (generated, dynamicpb
// and package dynamic), whose reference bytes the decoders decode.
func decodeWorkload(build func() (*workload, error)) func() (*workload, error) {
	return func() (*workload, error) {
		w, err := build()
		if err != nil {
			return nil, err
		}
		name := w.Name + decodeSuffix
		bw, err := benchreport.NewWorkload(name, "proto.Unmarshal of the "+w.Name+" workload ("+w.Description+")", []proto.Message{w.generated})
		if err != nil {
			return nil, err
		}
		bw.Family = benchreport.FamilyUnmarshal
		return &workload{Workload: bw, generated: w.generated, dynamic: w.dynamic, dynmsg: w.dynmsg}, nil
	}
}

// unmarshalInto returns the decoder that decodes the workload's reference
// bytes with proto.Unmarshal into a new message of newMessage(w), which
// must equal equal(w) (a message of the same descriptor).
func unmarshalInto(newMessage func(w *workload) func() proto.Message, equal func(w *workload) proto.Message) func(string, *workload) benchreport.Contestant {
	return func(name string, w *workload) benchreport.Contestant {
		want := equal(w)
		return benchreport.ProtoUnmarshal(name, proto.UnmarshalOptions{}, newMessage(w), [][]byte{w.Ref(0)},
			func(int) proto.Message { return want })
	}
}

// decodeContestants is the unmarshal family, in report order: the two
// baselines, package dynamic (a new message per call, then a reused
// Decoder), the canonical checker (which decodes
// nothing: it holds the same bytes to encoder.Canonical), then
// platformDecoders (hyperpb where it builds).
var decodeContestants = append([]contestant{
	{name: benchreport.BaseUnmarshalGenerated, family: benchreport.FamilyUnmarshal, prepare: unmarshalInto(
		func(w *workload) func() proto.Message {
			return func() proto.Message { return w.generated.ProtoReflect().New().Interface() }
		},
		func(w *workload) proto.Message { return w.generated })},
	{name: benchreport.BaseUnmarshalDynamicpb, family: benchreport.FamilyUnmarshal, prepare: unmarshalInto(
		func(w *workload) func() proto.Message {
			md := w.dynamic.ProtoReflect().Descriptor()
			return func() proto.Message { return dynamicpb.NewMessage(md) }
		},
		func(w *workload) proto.Message { return w.dynamic })},
	{name: "unmarshal/dynamic", family: benchreport.FamilyUnmarshal, prepare: unmarshalInto(
		// The type made once, as the generated contestant's New and
		// hyperpb's compiled type: its New finds the storage without a
		// lookup by descriptor.
		func(w *workload) func() proto.Message {
			mt := dynamic.NewMessageType(w.dynamic.ProtoReflect().Descriptor())
			return func() proto.Message { return mt.New().Interface() }
		},
		func(w *workload) proto.Message { return w.dynmsg })},
	{name: "unmarshal/dynamic-reuse", family: benchreport.FamilyUnmarshal, prepare: dynamicReuse},
	{name: "check/canonical", family: benchreport.FamilyUnmarshal, prepare: func(name string, w *workload) benchreport.Contestant {
		return benchreport.CanonicalChecker(name, w.Workload, encoder.Canonical)
	}},
}, platformDecoders...)

// dynamicReuse decodes the workload's reference bytes into one
// dynamic.Message with one dynamic.Decoder, which each call releases and
// reuses: its messages live until the next call, so its memory held is
// not measured.
func dynamicReuse(name string, w *workload) benchreport.Contestant {
	data, want := w.Ref(0), w.dynmsg
	d, m := new(dynamic.Decoder), dynamic.NewMessage(w.dynamic.ProtoReflect().Descriptor())
	return benchreport.Contestant{
		Name:   name,
		Check:  benchreport.CheckDecodedMessage,
		Decode: func(int) (proto.Message, error) { return m, d.Unmarshal(data, m) },
		Equal:  func(int) proto.Message { return want },
	}
}

// decodeFailing is a decoder that fails verification with err, for a
// contestant that could not be set up.
func decodeFailing(name string, err error) benchreport.Contestant {
	return benchreport.Contestant{Name: name, Check: benchreport.CheckDecodedMessage,
		Decode: func(int) (proto.Message, error) { return nil, fmt.Errorf("%s: %w", name, err) }}
}
