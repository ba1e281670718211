//go:build amd64 || arm64

package main

import (
	"fmt"

	"buf.build/go/hyperpb"
	"google.golang.org/protobuf/proto"

	"github.com/protolayout/protolayout/internal/benchreport"
)

// platformDecoders are the decoders that build on this platform:
// hyperpb, which supports amd64 and arm64 only, in its plain use (a new
// message per call, the main row) and with one Shared whose memory each
// call frees and reuses (read-only messages valid until the next call, so
// its memory held is not measured). Both are tolerated
// (benchreport.Contestant.Tolerate): v0.1.3 decodes the int64 values of a
// oneof, OTLP's AnyValue.int_value, to their low 32 bits, which fails the
// verification of the otlp-decode workload, and the table marks them
// there rather than the run failing.
var platformDecoders = []contestant{
	{name: "unmarshal/hyperpb", family: benchreport.FamilyUnmarshal, prepare: hyperpbDecoder(false)},
	{name: "unmarshal/hyperpb-shared", family: benchreport.FamilyUnmarshal, prepare: hyperpbDecoder(true)},
}

// hyperpbDecoder returns the hyperpb decoder of the workload's dynamic
// twin's descriptor, compiled once; with shared, every call frees one
// hyperpb.Shared (after its first) and decodes into a message of it.
func hyperpbDecoder(shared bool) func(string, *workload) benchreport.Contestant {
	return func(name string, w *workload) (ct benchreport.Contestant) {
		defer func() {
			// CompileMessageDescriptor panics on a type beyond its limits.
			if r := recover(); r != nil {
				ct = decodeFailing(name, fmt.Errorf("compiling the type: %v", r))
			}
		}()
		ty := hyperpb.CompileMessageDescriptor(w.dynamic.ProtoReflect().Descriptor())
		data, want := w.Ref(0), w.dynamic
		equal := func(int) proto.Message { return want }
		if !shared {
			ct := benchreport.ProtoUnmarshal(name, proto.UnmarshalOptions{},
				func() proto.Message { return hyperpb.NewMessage(ty) }, [][]byte{data}, equal)
			ct.Tolerate = true
			return ct
		}
		s, used := new(hyperpb.Shared), false
		return benchreport.Contestant{
			Name:  name,
			Check: benchreport.CheckDecodedMessage,
			Decode: func(int) (proto.Message, error) {
				if used { // Free panics on a Shared that allocated nothing yet
					s.Free()
				}
				used = true
				m := s.NewMessage(ty)
				return m, proto.Unmarshal(data, m)
			},
			Equal:    equal,
			Tolerate: true,
		}
	}
}
