package main

import (
	"fmt"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/protolayout/protolayout/encoder"
)

// bigShape is one large, deep or wide message, generated and dynamic.
type bigShape struct {
	name     string
	gen, dyn proto.Message
}

// bigShapes builds the shapes of BenchmarkBigShapes, where memory per call
// matters more than on the report's workloads: long lists of tiny
// messages, nesting at the default depth limit, many small maps.
func bigShapes() []bigShape {
	numbers := func(n int) proto.Message {
		l := &structpb.ListValue{}
		for i := range n {
			l.Values = append(l.Values, structpb.NewNumberValue(float64(i)))
		}
		return l
	}
	deep := func(objects int) proto.Message {
		v := structpb.NewNullValue()
		for range objects {
			v = structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{"a": v}})
		}
		return v.GetStructValue()
	}
	small := func(n int) proto.Message {
		l := &structpb.ListValue{}
		for i := range n {
			s, _ := structpb.NewStruct(map[string]any{"id": float64(i), "name": "item", "ok": true})
			l.Values = append(l.Values, structpb.NewStructValue(s))
		}
		return l
	}
	var out []bigShape
	for _, s := range []struct {
		name string
		m    proto.Message
	}{
		{"numbers-100k", numbers(100_000)},
		{"numbers-1.5M", numbers(1_500_000)},
		{"struct-depth-3333", deep(3333)},
		{"structs-20k", small(20_000)},
	} {
		// The dynamic form: a dynamicpb message of the same descriptor
		// (importing the project's test schemas here would change the
		// files the descriptors workload encodes).
		dyn := dynamicpb.NewMessage(s.m.ProtoReflect().Descriptor())
		b, err := proto.Marshal(s.m)
		if err == nil {
			err = proto.Unmarshal(b, dyn)
		}
		if err != nil {
			panic(err)
		}
		out = append(out, bigShape{s.name, s.m, dyn})
	}
	return out
}

// BenchmarkBigShapes measures time and memory per call on large and deep
// messages: proto.Marshal on the generated and the dynamic form beside
// encoder.Marshal (pooled) and a reused Encoder appending into a buffer
// with room. B/op is the point: a reused Encoder allocates nothing, the
// pooled Marshal its output.
func BenchmarkBigShapes(b *testing.B) {
	for _, s := range bigShapes() {
		want, err := proto.MarshalOptions{Deterministic: true}.Marshal(s.gen)
		if err != nil {
			b.Fatal(err)
		}
		run := func(name string, f func() ([]byte, error)) {
			b.Run(fmt.Sprintf("%s/%s", s.name, name), func(b *testing.B) {
				b.SetBytes(int64(len(want)))
				b.ReportAllocs()
				for range 2 { // warm: the scratch kept between calls, the pool
					if _, err := f(); err != nil {
						b.Fatal(err)
					}
				}
				for b.Loop() {
					if _, err := f(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		run("proto/generated", func() ([]byte, error) { return proto.Marshal(s.gen) })
		run("proto/dynamicpb", func() ([]byte, error) { return proto.Marshal(s.dyn) })
		run("protolayout/dynamicpb", func() ([]byte, error) { return encoder.Marshal(s.dyn) })
		enc := encoder.NewEncoder(encoder.MarshalOptions{})
		buf := make([]byte, 0, len(want))
		run("protolayout/dynamicpb-reuse", func() ([]byte, error) { return enc.MarshalAppend(buf[:0], s.dyn) })
	}
}
