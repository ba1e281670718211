package grpccodec

import (
	"fmt"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/codec/internal/codectest"
	"github.com/protolayout/protolayout/dynamic"
)

// benchPayloads: OTLP trace exports as dynamic messages over descriptors
// loaded at run time, the messages a gateway or proxy holds: dynamicpb
// messages, and dynamic.Message (msg=dynamic).
var benchPayloads = []int{1, 100}

var benchMsgs = []string{"dynamicpb", "dynamic"}

func dynamicPayload(b *testing.B, spans int, msg string) (proto.Message, func() proto.Message) {
	md := loaded(b, new(coltracepb.ExportTraceServiceRequest))
	if msg == "dynamic" {
		m, err := codectest.DynamicMessage(md, codectest.Trace(spans, 1))
		if err != nil {
			b.Fatal(err)
		}
		mt := dynamic.NewMessageType(md)
		return m, func() proto.Message { return mt.New().Interface() }
	}
	m, err := codectest.Dynamic(md, codectest.Trace(spans, 1))
	if err != nil {
		b.Fatal(err)
	}
	return m, func() proto.Message { return dynamicpb.NewMessage(md) }
}

// BenchmarkRoundTrip is one unary call on 127.0.0.1: the client encodes
// the request, the server decodes it and sends it back, the client decodes
// the response; with gRPC's own codec ("default") and with this one on
// both sides; with dynamicpb and dynamic messages on both sides. Bytes per
// op: the request size (the response is as big).
func BenchmarkRoundTrip(b *testing.B) {
	for _, spans := range benchPayloads {
		for _, codec := range []string{"default", "protolayout"} {
			for _, msg := range benchMsgs {
				b.Run(fmt.Sprintf("payload=otlp%d/codec=%s/msg=%s", spans, codec, msg), func(b *testing.B) {
					m, newMsg := dynamicPayload(b, spans, msg)
					var srvOpts []grpc.ServerOption
					var dialOpts []grpc.DialOption
					if codec == "protolayout" {
						c := New(Options{})
						srvOpts = append(srvOpts, grpc.ForceServerCodecV2(c))
						dialOpts = append(dialOpts, grpc.WithDefaultCallOptions(grpc.ForceCodecV2(c)))
					}
					conn := serve(b, &echoService{newMsg: newMsg}, srvOpts, dialOpts...)
					c := ctx(b)
					resp := newMsg()
					if err := conn.Invoke(c, codectest.Echo, m, resp); err != nil {
						b.Fatal(err)
					}
					b.SetBytes(int64(proto.Size(m)))
					b.ReportAllocs()
					b.ResetTimer()
					for b.Loop() {
						if err := conn.Invoke(c, codectest.Echo, m, resp); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

// BenchmarkMarshal is the codec's Marshal alone (then Free), on the same
// payloads: the part of the round trip the codec changes.
func BenchmarkMarshal(b *testing.B) {
	for _, spans := range benchPayloads {
		for _, codec := range []encoding.CodecV2{encoding.GetCodecV2("proto"), New(Options{})} {
			name := "default"
			if _, ok := codec.(*Codec); ok {
				name = "protolayout"
			}
			for _, msg := range benchMsgs {
				m, _ := dynamicPayload(b, spans, msg)
				b.Run(fmt.Sprintf("payload=otlp%d/codec=%s/msg=%s", spans, name, msg), func(b *testing.B) {
					b.SetBytes(int64(proto.Size(m)))
					b.ReportAllocs()
					for b.Loop() {
						out, err := codec.Marshal(m)
						if err != nil {
							b.Fatal(err)
						}
						out.Free()
					}
				})
			}
		}
	}
}

// BenchmarkUnmarshal is proto.Unmarshal into a dynamicpb message, or a
// dynamic.Message (through its own Unmarshal), through the codec, the
// same work with either codec.
func BenchmarkUnmarshal(b *testing.B) {
	for _, spans := range benchPayloads {
		for _, msg := range benchMsgs {
			m, newMsg := dynamicPayload(b, spans, msg)
			data, err := proto.Marshal(m)
			if err != nil {
				b.Fatal(err)
			}
			c := New(Options{})
			b.Run(fmt.Sprintf("payload=otlp%d/msg=%s", spans, msg), func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for b.Loop() {
					if err := c.Unmarshal(mem.BufferSlice{mem.SliceBuffer(data)}, newMsg()); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
