package connectcodec

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/codec/internal/codectest"
	"github.com/protolayout/protolayout/dynamic"
)

// BenchmarkRoundTrip is one unary call (Connect protocol, HTTP/1.1, on
// 127.0.0.1) with an OTLP trace export over descriptors loaded at run
// time: the client encodes, the server decodes and echoes, the client
// decodes; with connect-go's own codec ("default") and with this one on
// both sides; with dynamicpb messages and with dynamic.Message
// (msg=dynamic) on both sides. Bytes per op: the request size (the
// response is as big).
func BenchmarkRoundTrip(b *testing.B) {
	sc := load(b)
	for _, spans := range []int{1, 100} {
		for _, codec := range []string{"default", "protolayout"} {
			for _, msg := range []string{"dynamicpb", "dynamic"} {
				b.Run(fmt.Sprintf("payload=otlp%d/codec=%s/msg=%s", spans, codec, msg), func(b *testing.B) {
					var hopts []connect.HandlerOption
					var copts []connect.ClientOption
					if codec == "protolayout" {
						c := New(Options{})
						hopts = append(hopts, connect.WithCodec(c))
						copts = append(copts, connect.WithCodec(c))
					}
					if msg == "dynamic" {
						m, err := codectest.DynamicMessage(sc.req, codectest.Trace(spans, 1))
						if err != nil {
							b.Fatal(err)
						}
						init := dynamicSpec{md: sc.req}.init
						roundTrip(b, m, echoHandler[dynamic.Message],
							append(hopts, connect.WithRequestInitializer(init)),
							append(copts, connect.WithResponseInitializer(init)))
						return
					}
					m, err := codectest.Dynamic(sc.req, codectest.Trace(spans, 1))
					if err != nil {
						b.Fatal(err)
					}
					init := dynamicSpec{md: sc.req}.init
					roundTrip(b, m, echoHandler[dynamicpb.Message],
						append(hopts, connect.WithRequestInitializer(init)),
						append(copts, connect.WithResponseInitializer(init)))
				})
			}
		}
	}
}

func roundTrip[T any, PT interface {
	*T
	proto.Message
}](b *testing.B, m PT, echo func(context.Context, *connect.Request[T]) (*connect.Response[T], error), hopts []connect.HandlerOption, copts []connect.ClientOption) {
	srv := httptest.NewServer(connect.NewUnaryHandler(codectest.Echo, echo, hopts...))
	defer srv.Close()
	client := connect.NewClient[T, T](srv.Client(), srv.URL+codectest.Echo, copts...)
	c := ctx(b)
	req := connect.NewRequest((*T)(m))
	if _, err := client.CallUnary(c, req); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(proto.Size(m)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := client.CallUnary(c, req); err != nil {
			b.Fatal(err)
		}
	}
}
