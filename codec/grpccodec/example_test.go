package grpccodec_test

import (
	"context"
	"fmt"
	"log"
	"net"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/codec/grpccodec"
)

// A gRPC server and client on 127.0.0.1, both with the codec, exchange
// dynamicpb messages of a type whose descriptor is loaded at run time:
// there is no generated code, neither for the message nor for the service,
// which is registered from a hand-written grpc.ServiceDesc.
func ExampleNew() {
	// The schema, as a program gets it at run time (from a descriptor
	// set, a schema registry, gRPC reflection).
	var fdp descriptorpb.FileDescriptorProto
	if err := prototext.Unmarshal([]byte(`
		name: "echo.proto" package: "echo.v1" syntax: "proto3"
		message_type { name: "Note" field { name: "text" number: 1 type: TYPE_STRING label: LABEL_OPTIONAL } }
	`), &fdp); err != nil {
		log.Fatal(err)
	}
	fd, err := protodesc.NewFile(&fdp, nil)
	if err != nil {
		log.Fatal(err)
	}
	note := fd.Messages().ByName("Note")
	text := note.Fields().ByName("text")

	// The service echo.v1.Echo, with one unary method that answers a Note
	// with a Note.
	desc := grpc.ServiceDesc{
		ServiceName: "echo.v1.Echo",
		HandlerType: (*any)(nil),
		Methods: []grpc.MethodDesc{{
			MethodName: "Echo",
			Handler: func(_ any, _ context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
				req := dynamicpb.NewMessage(note)
				if err := dec(req); err != nil {
					return nil, err
				}
				resp := dynamicpb.NewMessage(note)
				resp.Set(text, protoreflect.ValueOfString("echo: "+req.Get(text).String()))
				return resp, nil
			},
		}},
	}

	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	c := grpccodec.New(grpccodec.Options{})
	srv := grpc.NewServer(grpc.ForceServerCodecV2(c))
	srv.RegisterService(&desc, nil)
	go srv.Serve(lis)
	defer srv.Stop()
	conn, err := grpc.NewClient(lis.Addr().String(),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.ForceCodecV2(c)))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, resp := dynamicpb.NewMessage(note), dynamicpb.NewMessage(note)
	req.Set(text, protoreflect.ValueOfString("hello"))
	if err := conn.Invoke(ctx, "/echo.v1.Echo/Echo", req, resp); err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Get(text).String())
	// Output: echo: hello
}

// Registered process-wide, the codec replaces gRPC's own "proto" codec
// for every server and connection that forces no other. gRPC allows
// registration only during initialization, before any server or
// connection exists: call it from an init function.
func Example_register() {
	encoding.RegisterCodecV2(grpccodec.New(grpccodec.Options{}))
}
