// Command gateway serves HTTP/JSON for the gRPC methods it finds in a
// FileDescriptorSet and forwards each call to an upstream gRPC server:
// JSON in, protobuf encoded by protolayout through its gRPC codec, JSON
// out. Nothing is generated: every type comes from the descriptors, loaded
// at start-up.
//
// With no arguments it loads the embedded demo schema (proto/demo.proto)
// and starts an in-process demo upstream on 127.0.0.1:
//
//	go run ./examples/gateway
//	curl -s localhost:8080/demo.v1.Orders/CreateOrder -d '{"customerId": "c-7", "items": [{"sku": "tea", "quantity": 2, "unitPrice": {"currency": "EUR", "units": "4"}}]}'
//
// Flags: -listen, -upstream (a real gRPC server instead of the demo),
// -descriptors (a binary FileDescriptorSet instead of the demo schema),
// -max-request-bytes, -timeout.
package main

import (
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/protolayout/protolayout/codec/grpccodec"
)

// demoDescriptors is proto/demo.proto with its imports, compiled to a
// FileDescriptorSet (TestEmbeddedDescriptors keeps it up to date).
//
//go:embed demo.binpb
var demoDescriptors []byte

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stderr, nil); err != nil {
		log.Fatal(err)
	}
}

// run parses the flags, starts the demo upstream unless -upstream is set,
// and serves until ctx ends. ready, if not nil, gets the gateway's address
// once it listens.
func run(ctx context.Context, args []string, stderr io.Writer, ready func(addr string)) error {
	fs := flag.NewFlagSet("gateway", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:8080", "HTTP address to serve on")
	upstream := fs.String("upstream", "", "gRPC server to forward to (host:port, plaintext); empty starts the in-process demo upstream on 127.0.0.1")
	descPath := fs.String("descriptors", "", "binary FileDescriptorSet to load (e.g. from buf build -o set.binpb, or protoc --include_imports -o); empty uses the embedded demo schema")
	maxBody := fs.Int64("max-request-bytes", 1<<20, "largest JSON request body accepted (larger: 413)")
	timeout := fs.Duration("timeout", 10*time.Second, "deadline of each upstream call")
	if err := fs.Parse(args); err != nil {
		return err
	}
	logger := log.New(stderr, "gateway: ", log.LstdFlags)

	raw := demoDescriptors
	if *descPath != "" {
		b, err := os.ReadFile(*descPath)
		if err != nil {
			return err
		}
		raw = b
	}
	files, err := loadFiles(raw)
	if err != nil {
		return err
	}

	target := *upstream
	if target == "" {
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		srv := newDemoServer(files, grpccodec.New(grpccodec.Options{}))
		go srv.Serve(lis)
		defer srv.Stop()
		target = lis.Addr().String()
		logger.Printf("demo upstream (gRPC) on %s", target)
	}
	conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()

	gw, err := NewGateway(files, conn, Config{MaxRequestBytes: *maxBody, Timeout: *timeout})
	if err != nil {
		return err
	}
	lis, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	hs := &http.Server{
		Handler:           gw,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		ErrorLog:          logger,
	}
	logger.Printf("serving HTTP/JSON on http://%s for %d methods (GET / lists them), upstream %s", lis.Addr(), len(gw.methods), target)
	if ready != nil {
		ready(lis.Addr().String())
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(lis) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// loadFiles builds a registry from a serialized FileDescriptorSet, as a
// gateway that learns its schemas at run time does.
func loadFiles(raw []byte) (*protoregistry.Files, error) {
	var set descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(raw, &set); err != nil {
		return nil, fmt.Errorf("descriptor set: %w", err)
	}
	files, err := protodesc.NewFiles(&set)
	if err != nil {
		return nil, fmt.Errorf("descriptor set: %w", err)
	}
	return files, nil
}
