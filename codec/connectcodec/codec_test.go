package connectcodec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/codec/internal/codectest"
	"github.com/protolayout/protolayout/dynamic"
	"github.com/protolayout/protolayout/encoder"
)

var _ connect.Codec = (*Codec)(nil)

// MarshalAppend is what lets connect-go encode into its pooled buffers.
var _ interface {
	MarshalAppend([]byte, any) ([]byte, error)
} = (*Codec)(nil)

type schema struct {
	req, any protoreflect.MessageDescriptor // loaded at run time
}

func load(t testing.TB) schema {
	t.Helper()
	req, err := codectest.Load(new(coltracepb.ExportTraceServiceRequest).ProtoReflect().Descriptor())
	if err != nil {
		t.Fatal(err)
	}
	anyValue, err := codectest.Load(new(commonpb.AnyValue).ProtoReflect().Descriptor())
	if err != nil {
		t.Fatal(err)
	}
	return schema{req: req, any: anyValue}
}

// dynamicSpec initializes the dynamicpb and dynamic.Message messages
// connect-go makes for a handler or client (WithRequestInitializer,
// WithResponseInitializer). The test service has no .proto file, so the
// message descriptor is given directly instead of being read from
// Spec.Schema.
type dynamicSpec struct {
	md protoreflect.MessageDescriptor
}

func (s dynamicSpec) init(_ connect.Spec, msg any) error {
	switch d := msg.(type) {
	case *dynamicpb.Message:
		*d = *dynamicpb.NewMessage(s.md)
	case *dynamic.Message:
		*d = *dynamic.NewMessage(s.md)
	default:
		return fmt.Errorf("%T is neither a dynamicpb nor a dynamic message", msg)
	}
	return nil
}

// echoHandler returns the request, and chatHandler each message it
// receives.
func echoHandler[T any](_ context.Context, r *connect.Request[T]) (*connect.Response[T], error) {
	return connect.NewResponse(r.Msg), nil
}

func chatHandler[T any](_ context.Context, s *connect.BidiStream[T, T]) error {
	for {
		m, err := s.Receive()
		if errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return err
		}
		if err := s.Send(m); err != nil {
			return err
		}
	}
}

// server serves the test procedures for both message kinds, with the
// codec, over HTTP/2 with TLS on 127.0.0.1 (so the gRPC protocol and
// bidirectional streams work too).
func server(t testing.TB, c *Codec, sc schema) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	dyn := dynamicSpec{md: sc.req}
	echoDyn := func(_ context.Context, r *connect.Request[dynamicpb.Message]) (*connect.Response[dynamicpb.Message], error) {
		return connect.NewResponse(r.Msg), nil
	}
	cycle := func(_ context.Context, _ *connect.Request[dynamicpb.Message]) (*connect.Response[dynamicpb.Message], error) {
		return connect.NewResponse(codectest.CyclicDynamic(sc.any)), nil
	}
	chatDyn := func(_ context.Context, s *connect.BidiStream[dynamicpb.Message, dynamicpb.Message]) error {
		for {
			m, err := s.Receive()
			if errors.Is(err, io.EOF) {
				return nil
			} else if err != nil {
				return err
			}
			if err := s.Send(m); err != nil {
				return err
			}
		}
	}
	opts := []connect.HandlerOption{connect.WithCodec(c), connect.WithRequestInitializer(dyn.init)}
	mux.Handle(codectest.Echo+"/dynamic", connect.NewUnaryHandler(codectest.Echo+"/dynamic", echoDyn, opts...))
	mux.Handle(codectest.Cycle, connect.NewUnaryHandler(codectest.Cycle, cycle, opts...))
	mux.Handle(codectest.Chat+"/dynamic", connect.NewBidiStreamHandler(codectest.Chat+"/dynamic", chatDyn, opts...))
	fast := []connect.HandlerOption{connect.WithCodec(c), connect.WithRequestInitializer(dynamicSpec{md: sc.req}.init)}
	mux.Handle(codectest.Echo+"/fast", connect.NewUnaryHandler(codectest.Echo+"/fast", echoHandler[dynamic.Message], fast...))
	mux.Handle(codectest.Chat+"/fast", connect.NewBidiStreamHandler(codectest.Chat+"/fast", chatHandler[dynamic.Message], fast...))
	cycleFast := func(_ context.Context, _ *connect.Request[dynamic.Message]) (*connect.Response[dynamic.Message], error) {
		return connect.NewResponse(codectest.CyclicDynamicMessage(sc.any)), nil
	}
	mux.Handle(codectest.Cycle+"/fast", connect.NewUnaryHandler(codectest.Cycle+"/fast", cycleFast, fast...))
	type req = coltracepb.ExportTraceServiceRequest
	echoGen := func(_ context.Context, r *connect.Request[req]) (*connect.Response[req], error) {
		return connect.NewResponse(r.Msg), nil
	}
	chatGen := func(_ context.Context, s *connect.BidiStream[req, req]) error {
		for {
			m, err := s.Receive()
			if errors.Is(err, io.EOF) {
				return nil
			} else if err != nil {
				return err
			}
			if err := s.Send(m); err != nil {
				return err
			}
		}
	}
	mux.Handle(codectest.Echo+"/generated", connect.NewUnaryHandler(codectest.Echo+"/generated", echoGen, connect.WithCodec(c)))
	mux.Handle(codectest.Chat+"/generated", connect.NewBidiStreamHandler(codectest.Chat+"/generated", chatGen, connect.WithCodec(c)))

	srv := httptest.NewUnstartedServer(mux)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

var protocols = []struct {
	name string
	opt  connect.ClientOption
}{
	{"connect", nil},
	{"grpc", connect.WithGRPC()},
	{"grpcweb", connect.WithGRPCWeb()},
}

func clientOpts(c *Codec, extra ...connect.ClientOption) []connect.ClientOption {
	opts := []connect.ClientOption{connect.WithCodec(c)}
	for _, o := range extra {
		if o != nil {
			opts = append(opts, o)
		}
	}
	return opts
}

// dynamicKinds are the two dynamic message types a side of a call may
// hold, with the path suffix of the server's procedures for it.
var dynamicKinds = []struct{ name, path string }{
	{"dynamicpb", "/dynamic"},
	{"dynamic", "/fast"},
}

// dynamicCall returns a unary call of path whose client holds messages of
// kind (one of dynamicKinds) of type md.
func dynamicCall(t *testing.T, c *Codec, srv *httptest.Server, opt connect.ClientOption, kind, path string, md protoreflect.MessageDescriptor) func(proto.Message) (proto.Message, error) {
	t.Helper()
	switch kind {
	case "dynamicpb":
		client := connect.NewClient[dynamicpb.Message, dynamicpb.Message](srv.Client(), srv.URL+path,
			clientOpts(c, opt, connect.WithResponseInitializer(dynamicSpec{md: md}.init))...)
		return func(m proto.Message) (proto.Message, error) {
			resp, err := client.CallUnary(ctx(t), connect.NewRequest(m.(*dynamicpb.Message)))
			if err != nil {
				return nil, err
			}
			return resp.Msg, nil
		}
	case "dynamic":
		client := connect.NewClient[dynamic.Message, dynamic.Message](srv.Client(), srv.URL+path,
			clientOpts(c, opt, connect.WithResponseInitializer(dynamicSpec{md: md}.init))...)
		return func(m proto.Message) (proto.Message, error) {
			resp, err := client.CallUnary(ctx(t), connect.NewRequest(m.(*dynamic.Message)))
			if err != nil {
				return nil, err
			}
			return resp.Msg, nil
		}
	}
	t.Fatalf("no kind %q", kind)
	return nil
}

// dynamicTrace returns the trace of the given spans as a message of kind.
func dynamicTrace(t *testing.T, kind string, md protoreflect.MessageDescriptor, spans int, seed uint64) proto.Message {
	t.Helper()
	var m proto.Message
	var err error
	if kind == "dynamic" {
		m, err = codectest.DynamicMessage(md, codectest.Trace(spans, seed))
	} else {
		m, err = codectest.Dynamic(md, codectest.Trace(spans, seed))
	}
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestUnary calls Echo over the three protocols with generated messages,
// and with every pairing of dynamicpb and dynamic messages on the two
// sides, small and large.
func TestUnary(t *testing.T) {
	c := New(Options{})
	sc := load(t)
	srv := server(t, c, sc)
	for _, p := range protocols {
		t.Run(p.name+"/generated", func(t *testing.T) {
			type req = coltracepb.ExportTraceServiceRequest
			client := connect.NewClient[req, req](srv.Client(), srv.URL+codectest.Echo+"/generated", clientOpts(c, p.opt)...)
			for _, spans := range []int{0, 1, 100, 400} {
				m := codectest.Trace(spans, 7)
				resp, err := client.CallUnary(ctx(t), connect.NewRequest(m))
				if err != nil {
					t.Fatal(err)
				}
				if !proto.Equal(resp.Msg, m) {
					t.Fatalf("%d spans: response differs", spans)
				}
			}
		})
		for _, client := range dynamicKinds {
			for _, server := range dynamicKinds {
				t.Run(p.name+"/"+client.name+"-to-"+server.name, func(t *testing.T) {
					call := dynamicCall(t, c, srv, p.opt, client.name, codectest.Echo+server.path, sc.req)
					for _, spans := range []int{0, 1, 100, 400} {
						m := dynamicTrace(t, client.name, sc.req, spans, 7)
						resp, err := call(m)
						if err != nil {
							t.Fatalf("%d spans: %v", spans, err)
						}
						codectest.SameContent(t, m, resp)
					}
				})
			}
		}
	}
}

// TestStream runs the bidirectional Chat stream (Connect and gRPC
// protocols over HTTP/2) with generated, dynamicpb and dynamic messages.
func TestStream(t *testing.T) {
	c := New(Options{})
	sc := load(t)
	srv := server(t, c, sc)
	for _, p := range protocols[:2] {
		t.Run(p.name+"/generated", func(t *testing.T) {
			type req = coltracepb.ExportTraceServiceRequest
			client := connect.NewClient[req, req](srv.Client(), srv.URL+codectest.Chat+"/generated", clientOpts(c, p.opt)...)
			chat(t, client, func(spans int) *req { return codectest.Trace(spans, 9) })
		})
		t.Run(p.name+"/dynamicpb", func(t *testing.T) {
			client := connect.NewClient[dynamicpb.Message, dynamicpb.Message](srv.Client(), srv.URL+codectest.Chat+"/dynamic",
				clientOpts(c, p.opt, connect.WithResponseInitializer(dynamicSpec{md: sc.req}.init))...)
			chat(t, client, func(spans int) *dynamicpb.Message {
				m, err := codectest.Dynamic(sc.req, codectest.Trace(spans, 9))
				if err != nil {
					t.Fatal(err)
				}
				return m
			})
		})
		t.Run(p.name+"/dynamic", func(t *testing.T) {
			client := connect.NewClient[dynamic.Message, dynamic.Message](srv.Client(), srv.URL+codectest.Chat+"/fast",
				clientOpts(c, p.opt, connect.WithResponseInitializer(dynamicSpec{md: sc.req}.init))...)
			chat(t, client, func(spans int) *dynamic.Message {
				m, err := codectest.DynamicMessage(sc.req, codectest.Trace(spans, 9))
				if err != nil {
					t.Fatal(err)
				}
				return m
			})
		})
	}
}

func chat[T any, PT interface {
	*T
	proto.Message
}](t *testing.T, client *connect.Client[T, T], make func(int) PT) {
	t.Helper()
	stream := client.CallBidiStream(ctx(t))
	for i, spans := range []int{1, 100, 0, 20, 250} {
		m := make(spans)
		if err := stream.Send((*T)(m)); err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
		got, err := stream.Receive()
		if err != nil {
			t.Fatalf("receive %d: %v", i, err)
		}
		if !proto.Equal(PT(got), m) {
			t.Fatalf("message %d differs", i)
		}
	}
	if err := stream.CloseRequest(); err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Receive(); err == nil {
		t.Fatal("stream did not end")
	}
	if err := stream.CloseResponse(); err != nil {
		t.Fatal(err)
	}
}

// TestCycle: a dynamicpb or dynamic message that contains itself fails
// the call with CodeInternal, sent by the client or answered by the
// server, over every protocol, and the server goes on serving.
func TestCycle(t *testing.T) {
	c := New(Options{})
	sc := load(t)
	srv := server(t, c, sc)
	cycles := map[string]struct {
		cycle string
		make  func() proto.Message
	}{
		"dynamicpb": {codectest.Cycle, func() proto.Message { return codectest.CyclicDynamic(sc.any) }},
		"dynamic":   {codectest.Cycle + "/fast", func() proto.Message { return codectest.CyclicDynamicMessage(sc.any) }},
	}
	for _, p := range protocols {
		for _, k := range dynamicKinds {
			t.Run(p.name+"/"+k.name, func(t *testing.T) {
				echo := dynamicCall(t, c, srv, p.opt, k.name, codectest.Echo+k.path, sc.req)
				anyEcho := dynamicCall(t, c, srv, p.opt, k.name, codectest.Echo+k.path, sc.any)
				cycle := dynamicCall(t, c, srv, p.opt, k.name, cycles[k.name].cycle, sc.any)
				want := func(err error) {
					t.Helper()
					if connect.CodeOf(err) != connect.CodeInternal || !strings.Contains(err.Error(), encoder.ErrCycle.Error()) {
						t.Fatalf("got %v, want CodeInternal saying the message contains itself", err)
					}
				}
				alive := func() {
					t.Helper()
					if _, err := echo(dynamicTrace(t, k.name, sc.req, 3, 1)); err != nil {
						t.Fatalf("server not serving after the cycle: %v", err)
					}
				}
				_, err := anyEcho(cycles[k.name].make())
				want(err)
				alive()
				_, err = cycle(dynamicTrace(t, k.name, sc.req, 1, 1))
				want(err)
				alive()
			})
		}
	}
}

// TestCodec: bytes, MarshalAppend hygiene, MarshalStable, errors.
func TestCodec(t *testing.T) {
	c := New(Options{})
	sc := load(t)
	for _, spans := range []int{0, 1, 50} {
		gen := codectest.Trace(spans, 5)
		dyn, err := codectest.Dynamic(sc.req, gen)
		if err != nil {
			t.Fatal(err)
		}
		fast, err := codectest.DynamicMessage(sc.req, gen)
		if err != nil {
			t.Fatal(err)
		}
		want, err := proto.MarshalOptions{Deterministic: true}.Marshal(gen)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []proto.Message{gen, dyn, fast} {
			for name, marshal := range map[string]func(any) ([]byte, error){
				"Marshal": c.Marshal, "MarshalStable": c.MarshalStable,
				"MarshalAppend": func(v any) ([]byte, error) {
					prefix := []byte("keep")
					b, err := c.MarshalAppend(prefix, v)
					if string(b[:4]) != "keep" {
						t.Fatal("MarshalAppend changed the prefix")
					}
					return b[4:], err
				},
			} {
				got, err := marshal(m)
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != string(want) {
					t.Fatalf("%s: %d bytes differ from proto.Marshal's %d", name, len(got), len(want))
				}
			}
			back := m.ProtoReflect().New().Interface()
			if err := c.Unmarshal(want, back); err != nil || !proto.Equal(back, m) {
				t.Fatalf("Unmarshal: %v", err)
			}
		}
	}
	if _, err := c.Marshal(3); err == nil {
		t.Fatal("Marshal of an int succeeded")
	}
	if b, err := c.MarshalAppend([]byte("x"), 3); err == nil || string(b) != "x" {
		t.Fatal("MarshalAppend of an int succeeded or changed the buffer")
	}
	if err := c.Unmarshal([]byte{0x0a, 0x09}, new(coltracepb.ExportTraceServiceRequest)); err == nil {
		t.Fatal("Unmarshal of a truncated message succeeded")
	}
	if !c.IsBinary() || c.Name() != "proto" {
		t.Fatal("IsBinary or Name")
	}
	for _, o := range []encoder.MarshalOptions{{}, {Checked: true}} {
		if _, err := New(Options{Marshal: o}).Marshal(codectest.CyclicGenerated()); !errors.Is(err, encoder.ErrDepthExceeded) {
			t.Fatalf("%+v, generated cycle: %v", o, err)
		}
	}
}
