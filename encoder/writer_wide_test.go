package encoder_test

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/encoder"
)

// wideFields is the number of fields of wideDesc: past the 64 whose
// written bits a frame keeps inline.
const wideFields = 150

// wideKinds are the kinds wideDesc's fields take in turn.
var wideKinds = []descriptorpb.FieldDescriptorProto_Type{
	descriptorpb.FieldDescriptorProto_TYPE_INT64,
	descriptorpb.FieldDescriptorProto_TYPE_STRING,
	descriptorpb.FieldDescriptorProto_TYPE_FIXED64,
	descriptorpb.FieldDescriptorProto_TYPE_DOUBLE,
	descriptorpb.FieldDescriptorProto_TYPE_BOOL,
	descriptorpb.FieldDescriptorProto_TYPE_SINT32,
}

// wideStrings are the values of wideDesc's string fields.
var wideStrings = []string{"", "on", "a value", "a longer value, of text"}

// wideDesc is a proto3 message of wideFields singular fields, numbered
// from 1, of the kinds of wideKinds in turn.
var wideDesc = func() protoreflect.MessageDescriptor {
	msg := &descriptorpb.DescriptorProto{Name: proto.String("Wide")}
	for i := range wideFields {
		msg.Field = append(msg.Field, &descriptorpb.FieldDescriptorProto{
			Name:   proto.String(fmt.Sprintf("f%d", i+1)),
			Number: proto.Int32(int32(i + 1)),
			Label:  descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
			Type:   wideKinds[i%len(wideKinds)].Enum(),
		})
	}
	fd, err := protodesc.NewFile(&descriptorpb.FileDescriptorProto{
		Name: proto.String("writer/wide.proto"), Package: proto.String("writer.wide"), Syntax: proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{msg},
	}, nil)
	if err != nil {
		panic(err)
	}
	return fd.Messages().Get(0)
}()

// writeWide writes every field of wideDesc with a value derived from its
// number (seed 0 writes a zero, which implicit presence skips, every
// seventh field).
func writeWide(w *encoder.Writer, seed int) {
	for i := range wideFields {
		num := protowire.Number(i + 1)
		v := int64(i+seed) % 7 * int64(i+1)
		switch wideKinds[i%len(wideKinds)] {
		case descriptorpb.FieldDescriptorProto_TYPE_INT64:
			w.Int64(num, -v)
		case descriptorpb.FieldDescriptorProto_TYPE_STRING:
			w.String(num, wideStrings[v%4])
		case descriptorpb.FieldDescriptorProto_TYPE_FIXED64:
			w.Uint64(num, uint64(v))
		case descriptorpb.FieldDescriptorProto_TYPE_DOUBLE:
			w.Float64(num, float64(v)/4)
		case descriptorpb.FieldDescriptorProto_TYPE_BOOL:
			w.Bool(num, v != 0)
		case descriptorpb.FieldDescriptorProto_TYPE_SINT32:
			w.Int32(num, int32(-v))
		}
	}
}

// wideMessage is the dynamicpb message writeWide describes.
func wideMessage(seed int) proto.Message {
	m := dynamicpb.NewMessage(wideDesc)
	fields := wideDesc.Fields()
	for i := range wideFields {
		fd := fields.Get(i)
		v := int64(i+seed) % 7 * int64(i+1)
		var val protoreflect.Value
		switch fd.Kind() {
		case protoreflect.Int64Kind:
			val = protoreflect.ValueOfInt64(-v)
		case protoreflect.StringKind:
			val = protoreflect.ValueOfString(wideStrings[v%4])
		case protoreflect.Fixed64Kind:
			val = protoreflect.ValueOfUint64(uint64(v))
		case protoreflect.DoubleKind:
			val = protoreflect.ValueOfFloat64(float64(v) / 4)
		case protoreflect.BoolKind:
			val = protoreflect.ValueOfBool(v != 0)
		case protoreflect.Sint32Kind:
			val = protoreflect.ValueOfInt32(int32(-v))
		}
		m.Set(fd, val)
	}
	return m
}

// TestWriterWide writes a message of 150 fields, whose written bits past
// the 64th live outside the frame's inline word, and checks the bytes and
// the errors that read those bits (duplicate versus out of order).
func TestWriterWide(t *testing.T) {
	for _, s := range strategies {
		w := encoder.NewWriter(wideDesc, encoder.WriterOptions{Lengths: s})
		for seed := range 3 {
			w.Reset()
			writeWide(w, seed)
			got, err := w.Finish()
			if err != nil {
				t.Fatal(err)
			}
			want, err := proto.MarshalOptions{Deterministic: true}.Marshal(wideMessage(seed))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%v seed %d: bytes differ", s, seed)
			}
		}
	}
	for _, c := range []struct {
		name string
		bad  func(w *encoder.Writer)
		want error
	}{
		{"field 103 again", func(w *encoder.Writer) { w.Int64(103, 1) }, encoder.ErrDuplicateField},
		{"field 73 again", func(w *encoder.Writer) { w.Int64(73, 1) }, encoder.ErrDuplicateField},
		{"field 99 after 103", func(w *encoder.Writer) { w.Uint64(99, 1) }, encoder.ErrOutOfOrder},
	} {
		w := encoder.NewWriter(wideDesc)
		for _, num := range []protowire.Number{1, 73, 103} {
			w.Int64(num, 5) // int64 fields, the 1st, 73rd and 103rd
		}
		c.bad(w)
		if err := w.Err(); !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
	}
}

// BenchmarkWriterWide writes the 150 fields of wideDesc, 86 of them past
// the 64th, with one reused Writer.
func BenchmarkWriterWide(b *testing.B) {
	w := encoder.NewWriter(wideDesc)
	writeWide(w, 1)
	out, err := w.Finish()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	for b.Loop() {
		w.Reset()
		writeWide(w, 1)
		if _, err := w.Finish(); err != nil {
			b.Fatal(err)
		}
	}
}
