package encoder_test

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/protolayout/protolayout/encoder"
)

func ExampleMarshal() {
	b, err := encoder.Marshal(wrapperspb.String("hi"))
	if err != nil {
		panic(err)
	}
	fmt.Printf("% x\n", b)
	// Output: 0a 02 68 69
}

func ExampleSize() {
	fmt.Println(encoder.Size(wrapperspb.Int64(-1)))
	// Output: 11
}

// A schema loaded at run time, as a proxy or gateway holds it, and a
// dynamicpb message of it.
func Example_dynamic() {
	fdp := new(descriptorpb.FileDescriptorProto)
	if err := prototext.Unmarshal([]byte(`
		name: "greet.proto" package: "greet" syntax: "proto3"
		message_type {
		  name: "Hello"
		  field { name: "name" number: 1 type: TYPE_STRING json_name: "name" }
		  field { name: "times" number: 2 type: TYPE_INT32 json_name: "times" }
		}`), fdp); err != nil {
		panic(err)
	}
	fd, err := protodesc.NewFile(fdp, nil)
	if err != nil {
		panic(err)
	}
	md := fd.Messages().ByName("Hello")
	m := dynamicpb.NewMessage(md)
	m.Set(md.Fields().ByName("name"), protoreflect.ValueOfString("Ada"))
	m.Set(md.Fields().ByName("times"), protoreflect.ValueOfInt32(3))

	b, err := encoder.Marshal(m)
	if err != nil {
		panic(err)
	}
	fmt.Printf("% x\n", b)
	// Output: 0a 03 41 64 61 10 03
}

func ExampleMarshalOptions_MarshalAppend() {
	// Length-prefixed records in one buffer.
	var buf []byte
	for _, s := range []string{"a", "bc"} {
		m := wrapperspb.String(s)
		buf = append(buf, byte(encoder.Size(m)))
		var err error
		if buf, err = (encoder.MarshalOptions{}).MarshalAppend(buf, m); err != nil {
			panic(err)
		}
	}
	fmt.Printf("% x\n", buf)
	// Output: 03 0a 01 61 04 0a 02 62 63
}

// A reused Encoder keeps its scratch space between calls; appending into a
// buffer with room, it allocates nothing per call for dynamicpb messages.
func ExampleEncoder() {
	enc := encoder.NewEncoder(encoder.MarshalOptions{Deterministic: true})
	buf := make([]byte, 0, 64)
	for _, v := range []uint32{1, 300} {
		var err error
		buf, err = enc.MarshalAppend(buf[:0], wrapperspb.UInt32(v))
		if err != nil {
			panic(err)
		}
		fmt.Printf("% x\n", buf)
	}
	// Output:
	// 08 01
	// 08 ac 02
}

// Invalid UTF-8 in a proto3 string field fails as it does with
// proto.Marshal; the error names the field.
func ExampleError() {
	_, err := encoder.Marshal(wrapperspb.String("\xff"))
	var e *encoder.Error
	if errors.As(err, &e) {
		fmt.Println(errors.Is(err, encoder.ErrInvalidUTF8), e.Field)
	}
	// Output: true google.protobuf.StringValue.value
}

// MaxDepth bounds nesting; a message that contains itself fails instead of
// overflowing the stack.
func ExampleMarshalOptions_maxDepth() {
	md := (&descriptorpb.DescriptorProto{}).ProtoReflect().Descriptor()
	nested := md.Fields().ByName("nested_type")
	m := dynamicpb.NewMessage(md)
	m.Mutable(nested).List().Append(protoreflect.ValueOfMessage(m)) // m contains itself
	_, err := encoder.MarshalOptions{MaxDepth: 100}.Marshal(m)
	fmt.Println(errors.Is(err, encoder.ErrDepthExceeded))
	// Output: true
}

func ExampleMarshalOptions() {
	m := &descriptorpb.FileDescriptorProto{Name: proto.String("a.proto"), Dependency: []string{"b.proto"}}
	b, err := encoder.MarshalOptions{Deterministic: true}.Marshal(m)
	fmt.Printf("% x %v\n", b, err)
	// Output: 0a 07 61 2e 70 72 6f 74 6f 1a 07 62 2e 70 72 6f 74 6f <nil>
}

// Encoder.Size reports the limits' errors that MarshalOptions.Size folds
// into 0.
func ExampleEncoder_Size() {
	enc := encoder.NewEncoder(encoder.MarshalOptions{MaxSize: 4})
	n, err := enc.Size(wrapperspb.String("hi"))
	fmt.Println(n, err)
	_, err = enc.Size(wrapperspb.String("hello"))
	fmt.Println(errors.Is(err, encoder.ErrSizeExceeded))
	// Output:
	// 4 <nil>
	// true
}
