package connectcodec_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/protolayout/protolayout/codec/connectcodec"
)

// A Connect handler and client, both with the codec, make one unary call
// over HTTP/1.1 on 127.0.0.1 (the Connect protocol). The messages are
// well-known types, so neither side needs generated service code: the
// procedure is served by connect.NewUnaryHandler and called by
// connect.NewClient.
func ExampleNew() {
	echo := func(_ context.Context, req *connect.Request[wrapperspb.StringValue]) (*connect.Response[wrapperspb.StringValue], error) {
		return connect.NewResponse(wrapperspb.String("echo: " + req.Msg.GetValue())), nil
	}
	const procedure = "/echo.v1.Echo/Echo"

	c := connectcodec.New(connectcodec.Options{})
	mux := http.NewServeMux()
	mux.Handle(procedure, connect.NewUnaryHandler(procedure, echo, connect.WithCodec(c)))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	client := connect.NewClient[wrapperspb.StringValue, wrapperspb.StringValue](
		srv.Client(), srv.URL+procedure, connect.WithCodec(c))

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := client.CallUnary(ctx, connect.NewRequest(wrapperspb.String("hello")))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Msg.GetValue())
	// Output: echo: hello
}
