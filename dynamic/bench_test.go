package dynamic_test

import (
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/dynamic"
	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/protobuftest"
)

// The benchmarks compare dynamic with dynamicpb on a medium message:
// twelve fields of protolayout.test3.TestAllTypes, implicit and explicit
// scalars, strings, bytes, a nested message and a repeated field.

// benchFields are the fields the benchmarks set and get.
var benchFields = []protoreflect.Name{
	"singular_int32", "singular_int64", "singular_double", "singular_bool",
	"singular_string", "singular_bytes", "optional_int32", "optional_string",
	"optional_nested_enum", "optional_fixed64", "optional_nested_message", "repeated_int32",
}

type benchCase struct {
	md     protoreflect.MessageDescriptor
	fds    []protoreflect.FieldDescriptor
	values []protoreflect.Value
}

// newBenchCase returns the fields of the medium message and a value for
// each, built with newField (so that composite values are the
// implementation's own).
func newBenchCase(tb testing.TB, newMessage func(protoreflect.MessageDescriptor) protoreflect.Message) benchCase {
	d, err := protobuftest.DynamicFiles().FindDescriptorByName("protolayout.test3.TestAllTypes")
	if err != nil {
		tb.Fatal(err)
	}
	bc := benchCase{md: d.(protoreflect.MessageDescriptor)}
	m := newMessage(bc.md)
	for _, name := range benchFields {
		fd := bc.md.Fields().ByName(name)
		var v protoreflect.Value
		switch {
		case fd.IsList():
			v = m.NewField(fd)
			for i := range 8 {
				v.List().Append(protoreflect.ValueOfInt32(int32(i * 1000)))
			}
		case fd.Message() != nil:
			v = m.NewField(fd)
			v.Message().Set(fd.Message().Fields().ByName("a"), protoreflect.ValueOfInt32(7))
		default:
			switch fd.Kind() {
			case protoreflect.StringKind:
				v = protoreflect.ValueOfString("a medium string value")
			case protoreflect.BytesKind:
				v = protoreflect.ValueOfBytes([]byte("some bytes"))
			case protoreflect.BoolKind:
				v = protoreflect.ValueOfBool(true)
			case protoreflect.EnumKind:
				v = protoreflect.ValueOfEnum(1)
			case protoreflect.DoubleKind:
				v = protoreflect.ValueOfFloat64(3.25)
			case protoreflect.Int32Kind:
				v = protoreflect.ValueOfInt32(-12345)
			case protoreflect.Int64Kind:
				v = protoreflect.ValueOfInt64(1 << 40)
			case protoreflect.Fixed64Kind:
				v = protoreflect.ValueOfUint64(99)
			default:
				tb.Fatalf("no bench value for %v", fd.Kind())
			}
		}
		bc.fds = append(bc.fds, fd)
		bc.values = append(bc.values, v)
	}
	return bc
}

// fill sets every bench field of m.
func (bc benchCase) fill(m protoreflect.Message) {
	for i, fd := range bc.fds {
		m.Set(fd, bc.values[i])
	}
}

var implementations = []struct {
	name       string
	newMessage func(protoreflect.MessageDescriptor) protoreflect.Message
}{
	{"dynamicpb", func(md protoreflect.MessageDescriptor) protoreflect.Message { return dynamicpb.NewMessage(md) }},
	{"dynamic", func(md protoreflect.MessageDescriptor) protoreflect.Message { return dynamic.NewMessage(md) }},
}

// TestBenchmarkMessages checks that the benchmarks' workload reads the
// same in both implementations.
func TestBenchmarkMessages(t *testing.T) {
	var out [][]byte
	for _, impl := range implementations {
		bc := newBenchCase(t, impl.newMessage)
		m := impl.newMessage(bc.md)
		bc.fill(m)
		n := 0
		m.Range(func(protoreflect.FieldDescriptor, protoreflect.Value) bool { n++; return true })
		if n != len(bc.fds) {
			t.Fatalf("%s: Range visits %d fields, want %d", impl.name, n, len(bc.fds))
		}
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m.Interface())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	if string(out[0]) != string(out[1]) {
		t.Fatal("the two implementations encode the workload differently")
	}
}

// benchOp is one operation of a benchmark on m, a message of the bench
// case bc made with newMessage.
type benchOp func(bc benchCase, newMessage func(protoreflect.MessageDescriptor) protoreflect.Message, m protoreflect.Message) error

// eachImplementation runs op in the benchmark loop for each
// implementation, on a message of the bench case, filled with its values
// if filled; an error fails the benchmark.
func eachImplementation(b *testing.B, filled bool, op benchOp) {
	for _, impl := range implementations {
		b.Run(impl.name, func(b *testing.B) {
			bc := newBenchCase(b, impl.newMessage)
			m := impl.newMessage(bc.md)
			if filled {
				bc.fill(m)
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := op(bc, impl.newMessage, m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// getAll gets every bench field of m.
func getAll(bc benchCase, _ func(protoreflect.MessageDescriptor) protoreflect.Message, m protoreflect.Message) error {
	for _, fd := range bc.fds {
		m.Get(fd)
	}
	return nil
}

func BenchmarkGet(b *testing.B) { eachImplementation(b, true, getAll) }

func BenchmarkGetUnset(b *testing.B) { eachImplementation(b, false, getAll) }

func BenchmarkHas(b *testing.B) {
	eachImplementation(b, true, func(bc benchCase, _ func(protoreflect.MessageDescriptor) protoreflect.Message, m protoreflect.Message) error {
		for _, fd := range bc.fds {
			m.Has(fd)
		}
		return nil
	})
}

func BenchmarkSet(b *testing.B) {
	eachImplementation(b, false, func(bc benchCase, _ func(protoreflect.MessageDescriptor) protoreflect.Message, m protoreflect.Message) error {
		bc.fill(m)
		return nil
	})
}

func BenchmarkRange(b *testing.B) {
	eachImplementation(b, true, func(_ benchCase, _ func(protoreflect.MessageDescriptor) protoreflect.Message, m protoreflect.Message) error {
		m.Range(func(protoreflect.FieldDescriptor, protoreflect.Value) bool { return true })
		return nil
	})
}

// BenchmarkNewAndFill measures a new message with every bench field set:
// B/op is the memory of one message (the composite values, built once,
// excepted).
func BenchmarkNewAndFill(b *testing.B) {
	eachImplementation(b, false, func(bc benchCase, newMessage func(protoreflect.MessageDescriptor) protoreflect.Message, _ protoreflect.Message) error {
		bc.fill(newMessage(bc.md))
		return nil
	})
}

// BenchmarkNew measures a new empty message of the bench case's type:
// by descriptor (NewMessage, which finds the type's storage in a cache
// keyed by the descriptor), and from a message type made once
// (NewMessageType(md).New(), which holds it), beside dynamicpb's.
func BenchmarkNew(b *testing.B) {
	md := newBenchCase(b, func(md protoreflect.MessageDescriptor) protoreflect.Message { return dynamic.NewMessage(md) }).md
	for _, c := range []struct {
		name string
		new  func() protoreflect.Message
	}{
		{"dynamic/NewMessage", func() protoreflect.Message { return dynamic.NewMessage(md) }},
		{"dynamic/MessageType", dynamic.NewMessageType(md).New},
		{"dynamicpb/NewMessage", func() protoreflect.Message { return dynamicpb.NewMessage(md) }},
		{"dynamicpb/MessageType", dynamicpb.NewMessageType(md).New},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if !c.new().IsValid() {
					b.Fatal("a new message is not valid")
				}
			}
		})
	}
}

// BenchmarkMarshal measures proto.Marshal: through reflection for
// dynamicpb, through the encoder (ProtoMethods) for dynamic.
func BenchmarkMarshal(b *testing.B) {
	eachImplementation(b, true, func(_ benchCase, _ func(protoreflect.MessageDescriptor) protoreflect.Message, m protoreflect.Message) error {
		_, err := proto.Marshal(m.Interface())
		return err
	})
}

// BenchmarkEncode measures encoding the medium message: a dynamic
// message through a reused encoder.Encoder, through proto.Marshal (its
// ProtoMethods; with AllowPartial, which skips proto's reflective
// required-fields check) and proto.Size, beside a dynamicpb message
// through the same Encoder and the generated twin through proto.Marshal.
func BenchmarkEncode(b *testing.B) {
	bc := newBenchCase(b, func(md protoreflect.MessageDescriptor) protoreflect.Message { return dynamic.NewMessage(md) })
	dyn := dynamic.NewMessage(bc.md)
	bc.fill(dyn)
	want, err := proto.MarshalOptions{Deterministic: true}.Marshal(dyn)
	if err != nil {
		b.Fatal(err)
	}
	dpb := dynamicpb.NewMessage(bc.md)
	gen := protobuftest.TwinByName(bc.md.FullName()).Gen.New().Interface()
	for _, m := range []proto.Message{dpb, gen} {
		if err := proto.Unmarshal(want, m); err != nil {
			b.Fatal(err)
		}
	}
	reuse := func(m proto.Message) func() ([]byte, error) {
		e := encoder.NewEncoder(encoder.MarshalOptions{})
		var buf []byte
		return func() ([]byte, error) {
			out, err := e.MarshalAppend(buf[:0], m)
			buf = out
			return out, err
		}
	}
	for _, c := range []struct {
		name   string
		encode func() ([]byte, error)
	}{
		{"dynamic/encoder-reuse", reuse(dyn)},
		{"dynamic/proto.Marshal", func() ([]byte, error) { return proto.Marshal(dyn) }},
		{"dynamic/proto.Marshal-partial", func() ([]byte, error) { return proto.MarshalOptions{AllowPartial: true}.Marshal(dyn) }},
		{"dynamic/proto.Size", func() ([]byte, error) { return want[:proto.Size(dyn)], nil }},
		{"dynamicpb/encoder-reuse", reuse(dpb)},
		{"generated/proto.Marshal", func() ([]byte, error) { return proto.Marshal(gen) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			if got, err := c.encode(); err != nil || len(got) != len(want) {
				b.Fatalf("%d bytes, %v; want %d", len(got), err, len(want))
			}
			b.SetBytes(int64(len(want)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.encode(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
