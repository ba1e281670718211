package main

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/protolayout/protolayout/dynamic"
)

// demoUpstream is the gRPC server that `go run ./examples/gateway` starts
// when no -upstream is given: it serves demo.v1.Orders from the descriptors
// alone (dynamic.Message values, no generated code), with the protolayout
// codec. Any other method answers Unimplemented.
type demoUpstream struct {
	files *protoregistry.Files

	mu     sync.Mutex
	orders map[string]*dynamic.Message
	next   int
	now    func() time.Time
}

// newDemoServer returns a gRPC server for the demo upstream over files.
func newDemoServer(files *protoregistry.Files, codec encoding.CodecV2) *grpc.Server {
	u := &demoUpstream{files: files, orders: map[string]*dynamic.Message{}, now: time.Now}
	return grpc.NewServer(grpc.ForceServerCodecV2(codec), grpc.UnknownServiceHandler(u.handle))
}

// handle serves every call: it finds the method in the descriptors,
// decodes the request into a dynamic.Message of its input type, and
// answers.
func (u *demoUpstream) handle(_ any, stream grpc.ServerStream) error {
	full, ok := grpc.MethodFromServerStream(stream)
	if !ok {
		return status.Error(codes.Internal, "no method name")
	}
	svc, method, _ := strings.Cut(strings.TrimPrefix(full, "/"), "/")
	d, err := u.files.FindDescriptorByName(protoreflect.FullName(svc + "." + method))
	md, isMethod := d.(protoreflect.MethodDescriptor)
	if err != nil || !isMethod {
		return status.Errorf(codes.Unimplemented, "unknown method %s", full)
	}
	var impl func(context.Context, *dynamic.Message) (proto.Message, error)
	switch {
	case md.IsStreamingClient() || md.IsStreamingServer():
	case md.FullName() == "demo.v1.Orders.CreateOrder":
		impl = u.createOrder
	case md.FullName() == "demo.v1.Orders.GetOrder":
		impl = u.getOrder
	}
	if impl == nil {
		return status.Errorf(codes.Unimplemented, "the demo upstream does not implement %s", full)
	}
	req := dynamic.NewMessage(md.Input())
	if err := stream.RecvMsg(req); err != nil {
		return err
	}
	resp, err := impl(stream.Context(), req)
	if err != nil {
		return err
	}
	return stream.SendMsg(resp)
}

// field returns the descriptor of the named field of m.
func field(m protoreflect.Message, name protoreflect.Name) protoreflect.FieldDescriptor {
	fd := m.Descriptor().Fields().ByName(name)
	if fd == nil {
		panic(fmt.Sprintf("%s has no field %s", m.Descriptor().FullName(), name))
	}
	return fd
}

func get(m protoreflect.Message, name protoreflect.Name) protoreflect.Value {
	return m.Get(field(m, name))
}

func set(m protoreflect.Message, name protoreflect.Name, v protoreflect.Value) {
	m.Set(field(m, name), v)
}

// createOrder checks the request, totals the items and stores the order.
func (u *demoUpstream) createOrder(_ context.Context, req *dynamic.Message) (proto.Message, error) {
	customer := get(req, "customer_id").String()
	if customer == "" {
		return nil, status.Error(codes.InvalidArgument, "customer_id is required")
	}
	items := get(req, "items").List()
	if items.Len() == 0 {
		return nil, status.Error(codes.InvalidArgument, "an order needs at least one item")
	}
	var currency string
	var nanos int64 // the total in billionths
	for i := range items.Len() {
		item := items.Get(i).Message()
		qty := int64(get(item, "quantity").Uint())
		if qty == 0 {
			return nil, status.Errorf(codes.InvalidArgument, "items[%d].quantity must be positive", i)
		}
		price := get(item, "unit_price").Message()
		c := get(price, "currency").String()
		if i == 0 {
			currency = c
		} else if c != currency {
			return nil, status.Errorf(codes.InvalidArgument, "items[%d] is in %q, the order in %q", i, c, currency)
		}
		unit := get(price, "units").Int()*1e9 + get(price, "nanos").Int()
		if unit < 0 || unit > math.MaxInt64/qty || nanos > math.MaxInt64-unit*qty {
			return nil, status.Errorf(codes.OutOfRange, "items[%d]: price out of range", i)
		}
		nanos += unit * qty
	}

	md, err := u.files.FindDescriptorByName("demo.v1.Order")
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	order := dynamic.NewMessage(md.(protoreflect.MessageDescriptor))
	u.mu.Lock()
	u.next++
	id := fmt.Sprintf("ord-%d", u.next)
	u.mu.Unlock()
	set(order, "id", protoreflect.ValueOfString(id))
	set(order, "customer_id", protoreflect.ValueOfString(customer))
	orderItems := order.Mutable(field(order, "items")).List() // lists belong to their field: copy
	for i := range items.Len() {
		orderItems.Append(items.Get(i))
	}
	total := order.NewField(field(order, "total")).Message()
	set(total, "currency", protoreflect.ValueOfString(currency))
	set(total, "units", protoreflect.ValueOfInt64(nanos/1e9))
	set(total, "nanos", protoreflect.ValueOfInt32(int32(nanos%1e9)))
	set(order, "total", protoreflect.ValueOfMessage(total))
	set(order, "status", protoreflect.ValueOfEnum(1)) // STATUS_PENDING
	now := u.now()
	created := order.NewField(field(order, "created")).Message()
	set(created, "seconds", protoreflect.ValueOfInt64(now.Unix()))
	set(created, "nanos", protoreflect.ValueOfInt32(int32(now.Nanosecond())))
	set(order, "created", protoreflect.ValueOfMessage(created))
	for _, name := range []protoreflect.Name{"shipping", "note"} {
		if fd := field(req, name); req.Has(fd) {
			set(order, name, req.Get(fd))
		}
	}
	// The two labels maps have entry types of their own: copy the entries.
	labels := order.Mutable(field(order, "labels")).Map()
	get(req, "labels").Map().Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
		labels.Set(k, v)
		return true
	})
	u.mu.Lock()
	u.orders[id] = proto.Clone(order).(*dynamic.Message)
	u.mu.Unlock()
	return order, nil
}

// getOrder returns a stored order.
func (u *demoUpstream) getOrder(_ context.Context, req *dynamic.Message) (proto.Message, error) {
	id := get(req, "id").String()
	u.mu.Lock()
	order, ok := u.orders[id]
	u.mu.Unlock()
	if !ok {
		return nil, status.Errorf(codes.NotFound, "no order %q", id)
	}
	return order, nil
}
