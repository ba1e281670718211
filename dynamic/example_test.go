package dynamic_test

import (
	"fmt"

	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/protolayout/protolayout/dynamic"
)

// A schema loaded at run time, as a proxy would receive it.
const greetingProto = `
name: "greeting.proto" package: "example" syntax: "proto3"
message_type {
  name: "Greeting"
  field { name: "text" number: 1 type: TYPE_STRING label: LABEL_OPTIONAL json_name: "text" }
  field { name: "count" number: 2 type: TYPE_INT32 label: LABEL_OPTIONAL json_name: "count" }
}
`

func Example() {
	fdp := new(descriptorpb.FileDescriptorProto)
	if err := prototext.Unmarshal([]byte(greetingProto), fdp); err != nil {
		panic(err)
	}
	fd, err := protodesc.NewFile(fdp, nil)
	if err != nil {
		panic(err)
	}
	md := fd.Messages().ByName("Greeting")

	m := dynamic.NewMessage(md)
	m.Set(md.Fields().ByName("text"), protoreflect.ValueOfString("hi"))
	m.Set(md.Fields().ByName("count"), protoreflect.ValueOfInt32(3))
	fmt.Println(m.Get(md.Fields().ByName("text")).String(), m.Get(md.Fields().ByName("count")).Int())

	b, err := proto.Marshal(m)
	if err != nil {
		panic(err)
	}
	fmt.Printf("% x\n", b)
	// Output:
	// hi 3
	// 0a 02 68 69 10 03
}

func ExampleDecoder() {
	fdp := new(descriptorpb.FileDescriptorProto)
	if err := prototext.Unmarshal([]byte(greetingProto), fdp); err != nil {
		panic(err)
	}
	fd, err := protodesc.NewFile(fdp, nil)
	if err != nil {
		panic(err)
	}
	md := fd.Messages().ByName("Greeting")
	text := md.Fields().ByName("text")

	// A hot loop: one Decoder and one message for every input; each call
	// reuses the storage of what the one before decoded.
	var d dynamic.Decoder
	m := dynamic.NewMessage(md)
	var kept []string
	for _, in := range [][]byte{{0x0a, 0x02, 'h', 'i'}, {0x0a, 0x03, 'y', 'o', '!', 0x10, 0x07}} {
		if err := d.Unmarshal(in, m); err != nil {
			panic(err)
		}
		// Strings and bytes stay valid after the next call; keep
		// proto.Clone(m) to keep a message.
		kept = append(kept, m.Get(text).String())
	}
	fmt.Println(kept, m.Get(md.Fields().ByName("count")).Int())
	// Output:
	// [hi yo!] 7
}

// A schema with a nested message, for the lifetime of what a Decoder
// decodes.
const envelopeProto = `
name: "envelope.proto" package: "example" syntax: "proto3"
message_type {
  name: "Envelope"
  field { name: "greeting" number: 1 type: TYPE_MESSAGE type_name: ".example.Greeting" label: LABEL_OPTIONAL json_name: "greeting" }
}
message_type {
  name: "Greeting"
  field { name: "text" number: 1 type: TYPE_STRING label: LABEL_OPTIONAL json_name: "text" }
}
`

func ExampleDecoder_Reset() {
	fdp := new(descriptorpb.FileDescriptorProto)
	if err := prototext.Unmarshal([]byte(envelopeProto), fdp); err != nil {
		panic(err)
	}
	fd, err := protodesc.NewFile(fdp, nil)
	if err != nil {
		panic(err)
	}
	md := fd.Messages().ByName("Envelope")
	greeting := md.Fields().ByName("greeting")
	text := greeting.Message().Fields().ByName("text")

	d := dynamic.Decoder{MaxKeep: dynamic.DefaultMaxKeep}
	m := dynamic.NewMessage(md)
	if err := d.Unmarshal([]byte{0x0a, 0x04, 0x0a, 0x02, 'h', 'i'}, m); err != nil {
		panic(err)
	}
	g := m.Get(greeting).Message()
	s := g.Get(text).String()
	kept := proto.Clone(g.Interface()).ProtoReflect()
	fmt.Println(g.IsValid(), s)

	// Reset (or the next Unmarshal) releases the nested message: it reads
	// as empty and read-only, and its storage is reused. The string read
	// from it and the clone stay.
	d.Reset()
	fmt.Printf("%v %q %q %q\n", g.IsValid(), g.Get(text).String(), s, kept.Get(text).String())
	// Output:
	// true hi
	// false "" "hi" "hi"
}
