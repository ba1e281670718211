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
)

// BenchmarkRoundTrip is one unary call (Connect protocol, HTTP/1.1, on
// 127.0.0.1) with a dynamicpb OTLP trace export: the client encodes, the
// server decodes and echoes, the client decodes; with connect-go's own
// codec ("default") and with this one on both sides. Bytes per op: the
// request size (the response is as big).
func BenchmarkRoundTrip(b *testing.B) {
	sc := load(b)
	for _, spans := range []int{1, 100} {
		for _, codec := range []string{"default", "protolayout"} {
			b.Run(fmt.Sprintf("payload=otlp%d/codec=%s", spans, codec), func(b *testing.B) {
				m, err := codectest.Dynamic(sc.req, codectest.Trace(spans, 1))
				if err != nil {
					b.Fatal(err)
				}
				init := dynamicSpec{md: sc.req}.init
				hopts := []connect.HandlerOption{connect.WithRequestInitializer(init)}
				copts := []connect.ClientOption{connect.WithResponseInitializer(init)}
				if codec == "protolayout" {
					c := New(Options{})
					hopts = append(hopts, connect.WithCodec(c))
					copts = append(copts, connect.WithCodec(c))
				}
				echo := func(_ context.Context, r *connect.Request[dynamicpb.Message]) (*connect.Response[dynamicpb.Message], error) {
					return connect.NewResponse(r.Msg), nil
				}
				srv := httptest.NewServer(connect.NewUnaryHandler(codectest.Echo, echo, hopts...))
				defer srv.Close()
				client := connect.NewClient[dynamicpb.Message, dynamicpb.Message](srv.Client(), srv.URL+codectest.Echo, copts...)
				c := ctx(b)
				req := connect.NewRequest(m)
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
			})
		}
	}
}
