package dynamic_test

import (
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/dynamic"
	"github.com/protolayout/protolayout/protobuftest"
)

// decodeBench is one input of the decode benchmarks and the three ways
// of making the message it is decoded into.
type decodeBench struct {
	name string
	data []byte
	gen  func() proto.Message
	md   protoreflect.MessageDescriptor
}

func decodeBenches(tb testing.TB) []decodeBench {
	// A FileDescriptorSet of descriptor.proto, the well-known types and
	// the test schemas: names, nested messages, options, repeated
	// fields, proto2 presence.
	set := &descriptorpb.FileDescriptorSet{}
	protobuftest.DynamicFiles().RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		set.File = append(set.File, protodesc.ToFileDescriptorProto(fd))
		return true
	})
	fds, err := proto.Marshal(set)
	if err != nil {
		tb.Fatal(err)
	}
	d, err := protobuftest.DynamicFiles().FindDescriptorByName("google.protobuf.FileDescriptorSet")
	if err != nil {
		tb.Fatal(err)
	}

	// protolayout.test3.TestAllTypes filled at random: every kind,
	// lists, maps, oneofs, nested messages.
	tw := protobuftest.TwinByName("protolayout.test3.TestAllTypes")
	src := tw.Gen.New()
	protobuftest.Fill(src, 3, protobuftest.RandOptions{MaxDepth: 3, MaxList: 6})
	all, err := proto.Marshal(src.Interface())
	if err != nil {
		tb.Fatal(err)
	}
	// protolayout.test2.TestAllTypes likewise: proto2, whose lists of
	// scalars are unpacked (a record for each value) but for packed_*.
	tw2 := protobuftest.TwinByName("protolayout.test2.TestAllTypes")
	src2 := tw2.Gen.New()
	protobuftest.Fill(src2, 3, protobuftest.RandOptions{MaxDepth: 3, MaxList: 6})
	all2, err := proto.Marshal(src2.Interface())
	if err != nil {
		tb.Fatal(err)
	}
	return []decodeBench{
		{"FileDescriptorSet", fds, func() proto.Message { return new(descriptorpb.FileDescriptorSet) }, d.(protoreflect.MessageDescriptor)},
		{"TestAllTypes", all, func() proto.Message { return tw.Gen.New().Interface() }, tw.Dyn.Descriptor()},
		{"TestAllTypes2", all2, func() proto.Message { return tw2.Gen.New().Interface() }, tw2.Dyn.Descriptor()},
	}
}

// implementations returns the three ways of making the message bc is
// decoded into, by name: the generated type, dynamicpb and dynamic.
func (bc decodeBench) implementations() []struct {
	name string
	new  func() proto.Message
} {
	return []struct {
		name string
		new  func() proto.Message
	}{
		{"generated", bc.gen},
		{"dynamicpb", func() proto.Message { return dynamicpb.NewMessage(bc.md) }},
		{"dynamic", func() proto.Message { return dynamic.NewMessage(bc.md) }},
	}
}

// TestDecodeBenchInputs checks that the benchmarks decode the same
// content into each implementation.
func TestDecodeBenchInputs(t *testing.T) {
	for _, bc := range decodeBenches(t) {
		var out [][]byte
		for _, m := range []proto.Message{bc.gen(), dynamicpb.NewMessage(bc.md), dynamic.NewMessage(bc.md)} {
			if err := proto.Unmarshal(bc.data, m); err != nil {
				t.Fatalf("%s: %T: %v", bc.name, m, err)
			}
			protobuftest.QuietFloat32NaNs(m)
			b, err := deterministic.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b)
		}
		if string(out[0]) != string(out[1]) || string(out[0]) != string(out[2]) {
			t.Fatalf("%s: the implementations decode differently", bc.name)
		}
	}
}

// BenchmarkUnmarshal decodes each input with proto.Unmarshal into a new
// message of the generated type, of dynamicpb and of dynamic.
func BenchmarkUnmarshal(b *testing.B) {
	for _, bc := range decodeBenches(b) {
		for _, impl := range bc.implementations() {
			b.Run(bc.name+"/"+impl.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(bc.data)))
				for b.Loop() {
					if err := proto.Unmarshal(bc.data, impl.new()); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkClone copies each input's decoded message with proto.Clone
// (which merges into a new message), for the generated type, dynamicpb
// and dynamic.
func BenchmarkClone(b *testing.B) {
	eachDecoded(b, func(m proto.Message) { proto.Clone(m) })
}

// eachDecoded runs op in the benchmark loop on each input decoded into
// each implementation.
func eachDecoded(b *testing.B, op func(proto.Message)) {
	for _, bc := range decodeBenches(b) {
		for _, impl := range bc.implementations() {
			b.Run(bc.name+"/"+impl.name, func(b *testing.B) {
				m := impl.new()
				if err := proto.Unmarshal(bc.data, m); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.SetBytes(int64(len(bc.data)))
				for b.Loop() {
					op(m)
				}
			})
		}
	}
}

// BenchmarkEqual compares two decoded copies of each input with
// proto.Equal (through reflection for all three types), for the generated
// type, dynamicpb and dynamic.
func BenchmarkEqual(b *testing.B) {
	for _, bc := range decodeBenches(b) {
		for _, impl := range bc.implementations() {
			b.Run(bc.name+"/"+impl.name, func(b *testing.B) {
				x, y := impl.new(), impl.new()
				for _, m := range []proto.Message{x, y} {
					if err := proto.Unmarshal(bc.data, m); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportAllocs()
				for b.Loop() {
					if !proto.Equal(x, y) {
						b.Fatal("two decodings of one input differ")
					}
				}
			})
		}
	}
}

// BenchmarkRangeTree visits every populated field of each decoded input,
// nested messages included, with Range.
func BenchmarkRangeTree(b *testing.B) {
	eachDecoded(b, func(m proto.Message) { rangeTree(m.ProtoReflect()) })
}

// rangeTree visits every populated field of m and of the messages it
// holds (map values aside), and returns how many it visited.
func rangeTree(m protoreflect.Message) int {
	n := 0
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		n++
		switch {
		case fd.IsMap() || fd.Message() == nil:
		case fd.IsList():
			l := v.List()
			for i := range l.Len() {
				n += rangeTree(l.Get(i).Message())
			}
		default:
			n += rangeTree(v.Message())
		}
		return true
	})
	return n
}
