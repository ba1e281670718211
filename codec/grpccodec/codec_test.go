package grpccodec

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/codec/internal/codectest"
	"github.com/protolayout/protolayout/dynamic"
	"github.com/protolayout/protolayout/encoder"
)

// echoService is the test service, registered by hand from a
// grpc.ServiceDesc: the handlers decode into whatever newMsg makes, so one
// server serves generated, dynamicpb or dynamic messages.
type echoService struct {
	newMsg func() proto.Message
	cyclic func() proto.Message
}

func (s *echoService) desc() *grpc.ServiceDesc {
	return &grpc.ServiceDesc{
		ServiceName: codectest.Service,
		HandlerType: (*any)(nil),
		Methods: []grpc.MethodDesc{
			{MethodName: "Echo", Handler: func(_ any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
				m := s.newMsg()
				if err := dec(m); err != nil {
					return nil, err
				}
				return m, nil
			}},
			{MethodName: "Cycle", Handler: func(_ any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
				if err := dec(s.newMsg()); err != nil {
					return nil, err
				}
				return s.cyclic(), nil
			}},
		},
		Streams: []grpc.StreamDesc{{
			StreamName: "Chat", ServerStreams: true, ClientStreams: true,
			Handler: func(_ any, stream grpc.ServerStream) error {
				for {
					m := s.newMsg()
					if err := stream.RecvMsg(m); err == io.EOF {
						return nil
					} else if err != nil {
						return err
					}
					if err := stream.SendMsg(m); err != nil {
						return err
					}
				}
			},
		}},
	}
}

// kinds of message a side of a call holds.
type kind struct {
	name   string
	newMsg func(t testing.TB) func() proto.Message
	trace  func(t testing.TB, spans int) proto.Message
	cyclic func(t testing.TB) proto.Message
}

func loaded(t testing.TB, m proto.Message) protoreflect.MessageDescriptor {
	t.Helper()
	md, err := codectest.Load(m.ProtoReflect().Descriptor())
	if err != nil {
		t.Fatal(err)
	}
	return md
}

var kinds = []kind{
	{
		name: "generated",
		newMsg: func(testing.TB) func() proto.Message {
			return func() proto.Message { return new(coltracepb.ExportTraceServiceRequest) }
		},
		trace:  func(_ testing.TB, spans int) proto.Message { return codectest.Trace(spans, 1) },
		cyclic: func(testing.TB) proto.Message { return codectest.CyclicGenerated() },
	},
	{
		name: "dynamicpb",
		newMsg: func(t testing.TB) func() proto.Message {
			md := loaded(t, new(coltracepb.ExportTraceServiceRequest))
			return func() proto.Message { return dynamicpb.NewMessage(md) }
		},
		trace: func(t testing.TB, spans int) proto.Message {
			d, err := codectest.Dynamic(loaded(t, new(coltracepb.ExportTraceServiceRequest)), codectest.Trace(spans, 1))
			if err != nil {
				t.Fatal(err)
			}
			return d
		},
		cyclic: func(t testing.TB) proto.Message { return codectest.CyclicDynamic(loaded(t, new(commonpb.AnyValue))) },
	},
	{
		// dynamic.Message, which proto.Unmarshal decodes through the
		// message's own Unmarshal method.
		name: "dynamic",
		newMsg: func(t testing.TB) func() proto.Message {
			mt := dynamic.NewMessageType(loaded(t, new(coltracepb.ExportTraceServiceRequest)))
			return func() proto.Message { return mt.New().Interface() }
		},
		trace: func(t testing.TB, spans int) proto.Message {
			d, err := codectest.DynamicMessage(loaded(t, new(coltracepb.ExportTraceServiceRequest)), codectest.Trace(spans, 1))
			if err != nil {
				t.Fatal(err)
			}
			return d
		},
		cyclic: func(t testing.TB) proto.Message {
			return codectest.CyclicDynamicMessage(loaded(t, new(commonpb.AnyValue)))
		},
	},
}

// serve starts a gRPC server with the echo service on 127.0.0.1 and
// returns a client connection to it; both end with the test.
func serve(t testing.TB, svc *echoService, srvOpts []grpc.ServerOption, dialOpts ...grpc.DialOption) *grpc.ClientConn {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(srvOpts...)
	srv.RegisterService(svc.desc(), svc)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(lis) }()
	dialOpts = append(dialOpts, grpc.WithTransportCredentials(insecure.NewCredentials()))
	conn, err := grpc.NewClient(lis.Addr().String(), dialOpts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Close()
		srv.Stop()
		if err := <-done; err != nil {
			t.Errorf("server: %v", err)
		}
	})
	return conn
}

func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

// TestUnary calls Echo with every pairing of generated, dynamicpb and
// dynamic messages on the two sides, small and large (pooled) payloads, the
// protolayout codec forced on both sides.
func TestUnary(t *testing.T) {
	for _, client := range kinds {
		for _, server := range kinds {
			t.Run(client.name+"-to-"+server.name, func(t *testing.T) {
				c := New(Options{})
				svc := &echoService{newMsg: server.newMsg(t)}
				conn := serve(t, svc, []grpc.ServerOption{grpc.ForceServerCodecV2(c)},
					grpc.WithDefaultCallOptions(grpc.ForceCodecV2(c)))
				newResp := client.newMsg(t)
				for _, spans := range []int{0, 1, 100, 3, 300} {
					req := client.trace(t, spans)
					resp := newResp()
					if err := conn.Invoke(ctx(t), codectest.Echo, req, resp); err != nil {
						t.Fatalf("%d spans: %v", spans, err)
					}
					codectest.SameContent(t, req, resp)
				}
			})
		}
	}
}

// TestInterop: the protolayout codec on one side, gRPC's own codec on the
// other, both ways, with dynamicpb and dynamic messages.
func TestInterop(t *testing.T) {
	for _, dyn := range kinds[1:] {
		t.Run(dyn.name, func(t *testing.T) { interop(t, dyn) })
	}
}

func interop(t *testing.T, dyn kind) {
	c := New(Options{})
	t.Run("client", func(t *testing.T) {
		conn := serve(t, &echoService{newMsg: dyn.newMsg(t)}, nil, grpc.WithDefaultCallOptions(grpc.ForceCodecV2(c)))
		req, resp := dyn.trace(t, 50), dyn.newMsg(t)()
		if err := conn.Invoke(ctx(t), codectest.Echo, req, resp); err != nil {
			t.Fatal(err)
		}
		codectest.SameContent(t, req, resp)
	})
	t.Run("server", func(t *testing.T) {
		conn := serve(t, &echoService{newMsg: dyn.newMsg(t)}, []grpc.ServerOption{grpc.ForceServerCodecV2(c)})
		req, resp := dyn.trace(t, 50), dyn.newMsg(t)()
		if err := conn.Invoke(ctx(t), codectest.Echo, req, resp); err != nil {
			t.Fatal(err)
		}
		codectest.SameContent(t, req, resp)
	})
}

// TestStream sends a sequence of messages on the bidirectional Chat stream
// and reads each back.
func TestStream(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			c := New(Options{})
			conn := serve(t, &echoService{newMsg: k.newMsg(t)}, []grpc.ServerOption{grpc.ForceServerCodecV2(c)},
				grpc.WithDefaultCallOptions(grpc.ForceCodecV2(c)))
			stream, err := conn.NewStream(ctx(t), &grpc.StreamDesc{ServerStreams: true, ClientStreams: true}, codectest.Chat)
			if err != nil {
				t.Fatal(err)
			}
			newMsg := k.newMsg(t)
			for i, spans := range []int{1, 100, 0, 20, 250, 2} {
				req := k.trace(t, spans)
				if err := stream.SendMsg(req); err != nil {
					t.Fatalf("send %d: %v", i, err)
				}
				resp := newMsg()
				if err := stream.RecvMsg(resp); err != nil {
					t.Fatalf("recv %d: %v", i, err)
				}
				codectest.SameContent(t, req, resp)
			}
			if err := stream.CloseSend(); err != nil {
				t.Fatal(err)
			}
			if err := stream.RecvMsg(newMsg()); err != io.EOF {
				t.Fatalf("end of stream: %v, want io.EOF", err)
			}
		})
	}
}

// TestCycle: a message that contains itself, which proto.Marshal cannot
// survive, fails the call with an error status on whichever side encodes
// it, and the server goes on serving. Generated messages get the guarantee
// by default (with Unchecked their fast path has no depth limit, as in
// proto.Marshal, and the process would die: not tested, by design).
func TestCycle(t *testing.T) {
	cases := []struct {
		name string
		kind kind
		opts encoder.MarshalOptions
	}{
		{"dynamicpb", kinds[1], encoder.MarshalOptions{}},
		{"dynamic", kinds[2], encoder.MarshalOptions{}},
		{"generated", kinds[0], encoder.MarshalOptions{}},
		{"generated-checked", kinds[0], encoder.MarshalOptions{Checked: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := New(Options{Marshal: tc.opts})
			svc := &echoService{newMsg: tc.kind.newMsg(t), cyclic: func() proto.Message { return tc.kind.cyclic(t) }}
			conn := serve(t, svc, []grpc.ServerOption{grpc.ForceServerCodecV2(c)},
				grpc.WithDefaultCallOptions(grpc.ForceCodecV2(c)))
			alive := func() {
				t.Helper()
				req, resp := tc.kind.trace(t, 2), tc.kind.newMsg(t)()
				if err := conn.Invoke(ctx(t), codectest.Echo, req, resp); err != nil {
					t.Fatalf("server not serving after the cycle: %v", err)
				}
			}
			wantDepthStatus := func(err error) {
				t.Helper()
				if status.Code(err) != codes.Internal || !strings.Contains(err.Error(), encoder.ErrCycle.Error()) {
					t.Fatalf("got %v, want an Internal status saying the message contains itself", err)
				}
			}

			// The client encodes the cycle: the call fails before it is sent.
			cyc := tc.kind.cyclic(t)
			wantDepthStatus(conn.Invoke(ctx(t), codectest.Echo, cyc, tc.kind.newMsg(t)()))
			alive()

			// The server answers with the cycle: the client gets the status.
			wantDepthStatus(conn.Invoke(ctx(t), codectest.Cycle, tc.kind.trace(t, 1), tc.kind.newMsg(t)()))
			alive()

			// On a stream: SendMsg fails, the stream ends with the status.
			stream, err := conn.NewStream(ctx(t), &grpc.StreamDesc{ServerStreams: true, ClientStreams: true}, codectest.Chat)
			if err != nil {
				t.Fatal(err)
			}
			if err := stream.SendMsg(cyc); err == nil {
				t.Fatal("SendMsg of a cycle succeeded")
			} else {
				wantDepthStatus(err)
			}
			alive()
		})
	}
}

// TestMarshalBytes: the codec's output equals deterministic proto.Marshal
// across the small, pooled and outgrown paths, and every buffer taken from
// the pool goes back once the output is freed.
func TestMarshalBytes(t *testing.T) {
	pool := &countingPool{BufferPool: mem.DefaultBufferPool()}
	for _, k := range kinds {
		c := New(Options{BufferPool: pool})
		for _, spans := range []int{0, 1, 200, 10, 400, 400, 3000, 2, 0} {
			m := k.trace(t, spans)
			out, err := c.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			want, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			if got := out.Materialize(); string(got) != string(want) {
				t.Fatalf("%s, %d spans: %d bytes differ from proto.Marshal's %d", k.name, spans, len(got), len(want))
			}
			out.Free()
		}
	}
	if pool.gets.Load() == 0 || pool.gets.Load() != pool.puts.Load() {
		t.Fatalf("pool: %d gets, %d puts", pool.gets.Load(), pool.puts.Load())
	}
}

// TestErrors: a value that is not a message, and an encoding error, come
// back as errors with nothing taken from the pool.
func TestErrors(t *testing.T) {
	pool := &countingPool{BufferPool: mem.DefaultBufferPool()}
	c := New(Options{BufferPool: pool, Marshal: encoder.MarshalOptions{MaxSize: 100}})
	if _, err := c.Marshal("not a message"); err == nil {
		t.Fatal("Marshal of a string succeeded")
	}
	// A nil *dynamicpb.Message has no descriptor (proto.Marshal panics on
	// it): it encodes as nothing.
	if bs, err := c.Marshal((*dynamicpb.Message)(nil)); err != nil || bs.Len() != 0 {
		t.Fatalf("Marshal of a nil dynamicpb message: %d bytes, %v", bs.Len(), err)
	}
	// Nor has a nil *dynamic.Message.
	if bs, err := c.Marshal((*dynamic.Message)(nil)); err != nil || bs.Len() != 0 {
		t.Fatalf("Marshal of a nil dynamic message: %d bytes, %v", bs.Len(), err)
	}
	if err := c.Unmarshal(mem.BufferSlice{mem.SliceBuffer{0x0a, 0x00}}, 42); err == nil {
		t.Fatal("Unmarshal into an int succeeded")
	}
	for _, k := range kinds[1:] {
		for range 3 {
			_, err := c.Marshal(k.trace(t, 50))
			if !errors.Is(err, encoder.ErrSizeExceeded) {
				t.Fatalf("%s: got %v, want ErrSizeExceeded", k.name, err)
			}
		}
	}
	if pool.gets.Load() != pool.puts.Load() {
		t.Fatalf("pool: %d gets, %d puts", pool.gets.Load(), pool.puts.Load())
	}
	// Bad bytes fail the decode.
	if err := c.Unmarshal(mem.BufferSlice{mem.SliceBuffer{0x0a, 0x05}}, new(coltracepb.ExportTraceServiceRequest)); err == nil {
		t.Fatal("Unmarshal of a truncated message succeeded")
	}
}

// TestUnmarshalPieces: a message that arrives in several buffers decodes
// like one that arrives whole, into a generated message and into a
// dynamic one.
func TestUnmarshalPieces(t *testing.T) {
	want := codectest.Trace(20, 3)
	b, err := proto.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	var data mem.BufferSlice
	for i := 0; i < len(b); i += 700 {
		data = append(data, mem.SliceBuffer(b[i:min(i+700, len(b))]))
	}
	got := new(coltracepb.ExportTraceServiceRequest)
	if err := New(Options{}).Unmarshal(data, got); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(got, want) {
		t.Fatal("decoded message differs")
	}
	dyn := dynamic.NewMessage(loaded(t, want))
	if err := New(Options{}).Unmarshal(data, dyn); err != nil {
		t.Fatal(err)
	}
	codectest.SameContent(t, dyn, want)
}

// TestRegistered: registered under "proto", the codec serves calls that
// force no codec at all. The previous codec is registered again at the end
// (registration is process-wide).
func TestRegistered(t *testing.T) {
	prev := encoding.GetCodecV2(Name)
	c := New(Options{})
	encoding.RegisterCodecV2(c)
	t.Cleanup(func() { encoding.RegisterCodecV2(prev) })

	dyn := kinds[1]
	func() {
		conn := serve(t, &echoService{newMsg: dyn.newMsg(t)}, nil)
		req, resp := dyn.trace(t, 30), dyn.newMsg(t)()
		if err := conn.Invoke(ctx(t), codectest.Echo, req, resp); err != nil {
			t.Fatal(err)
		}
		codectest.SameContent(t, req, resp)
	}()
	if c.hints.slot(dyn.newMsg(t)().ProtoReflect().Descriptor()).Load() == 0 {
		t.Fatal("the registered codec was not used")
	}
}

type countingPool struct {
	mem.BufferPool
	gets, puts atomic.Int64
}

func (p *countingPool) Get(n int) *[]byte {
	p.gets.Add(1)
	return p.BufferPool.Get(n)
}

func (p *countingPool) Put(b *[]byte) {
	p.puts.Add(1)
	p.BufferPool.Put(b)
}
