package encoder_test

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/protolayout/protolayout/encoder"
)

// A proxy-like loop: a schema loaded at run time, messages written from
// plain values, one Writer reused for every message.
func ExampleWriter() {
	fdp := new(descriptorpb.FileDescriptorProto)
	if err := prototext.Unmarshal([]byte(`
		name: "log.proto" package: "log" syntax: "proto3"
		message_type {
		  name: "Line"
		  field { name: "level" number: 1 type: TYPE_INT32 json_name: "level" }
		  field { name: "text" number: 2 type: TYPE_STRING json_name: "text" }
		  field { name: "tags" number: 3 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".log.Line.TagsEntry" json_name: "tags" }
		  nested_type {
		    name: "TagsEntry" options { map_entry: true }
		    field { name: "key" number: 1 type: TYPE_STRING json_name: "key" }
		    field { name: "value" number: 2 type: TYPE_STRING json_name: "value" }
		  }
		}`), fdp); err != nil {
		panic(err)
	}
	fd, err := protodesc.NewFile(fdp, nil)
	if err != nil {
		panic(err)
	}
	w := encoder.NewWriter(fd.Messages().ByName("Line"))
	level, text, tags := w.Number("level"), w.Number("text"), w.Number("tags")

	for _, line := range []struct {
		level int32
		text  string
		tags  [][2]string // sorted by key
	}{
		{1, "hi", [][2]string{{"host", "a"}}},
		{0, "", nil},
	} {
		w.Reset()
		w.Int32(level, line.level)
		w.String(text, line.text)
		for _, kv := range line.tags {
			w.BeginEntryString(tags, kv[0])
			w.String(encoder.MapValue, kv[1])
			w.End()
		}
		b, err := w.Finish()
		if err != nil {
			panic(err)
		}
		fmt.Printf("% x\n", b)
	}
	// Output:
	// 08 01 12 02 68 69 1a 09 0a 04 68 6f 73 74 12 01 61
	//
}

// Every call is checked; the first failure sticks and names the order
// that was expected.
func ExampleWriter_errors() {
	fdp := new(descriptorpb.FileDescriptorProto)
	if err := prototext.Unmarshal([]byte(`
		name: "p.proto" package: "p" syntax: "proto3"
		message_type {
		  name: "Point"
		  field { name: "x" number: 1 type: TYPE_SINT32 json_name: "x" }
		  field { name: "y" number: 2 type: TYPE_SINT32 json_name: "y" }
		}`), fdp); err != nil {
		panic(err)
	}
	fd, err := protodesc.NewFile(fdp, nil)
	if err != nil {
		panic(err)
	}
	w := encoder.NewWriter(fd.Messages().ByName("Point"))
	w.Int32(2, -1)
	w.Int32(1, 5) // out of order: fails, writes nothing
	w.Int32(2, 7) // ignored: the first error sticks
	_, err = w.Finish()
	fmt.Println(errors.Is(err, encoder.ErrOutOfOrder))
	fmt.Println(err)
	// Output:
	// true
	// protolayout: field out of order (field p.Point.x): field 1 (x) after field 2 (y); proto.Marshal's order is extensions by ascending number, then fields outside oneofs by ascending number, then one member per oneof, oneofs in declaration order, then unknown fields; expected next: unknown fields, End or Finish in p.Point at x
}

// Enum fields take enum numbers: a plain integer, such as a status code
// read from a database row, converts with protoreflect.EnumNumber (an
// int32, so the conversion costs nothing); EnumName takes the value's
// name. The integer methods refuse an enum field, and say which to use.
func ExampleWriter_Enum() {
	fdp := new(descriptorpb.FileDescriptorProto)
	if err := prototext.Unmarshal([]byte(`
		name: "job.proto" package: "job" syntax: "proto3"
		enum_type {
		  name: "State"
		  value { name: "STATE_UNSPECIFIED" number: 0 }
		  value { name: "STATE_RUNNING" number: 1 }
		  value { name: "STATE_DONE" number: 2 }
		}
		message_type {
		  name: "Job"
		  field { name: "state" number: 1 type: TYPE_ENUM type_name: ".job.State" json_name: "state" }
		  field { name: "history" number: 2 label: LABEL_REPEATED type: TYPE_ENUM type_name: ".job.State" json_name: "history" }
		}`), fdp); err != nil {
		panic(err)
	}
	fd, err := protodesc.NewFile(fdp, nil)
	if err != nil {
		panic(err)
	}
	w := encoder.NewWriter(fd.Messages().ByName("Job"))
	var code int32 = 2 // from the row
	w.Enum(1, protoreflect.EnumNumber(code))
	w.EnumName(2, "STATE_RUNNING")
	w.EnumName(2, "STATE_DONE")
	b, err := w.Finish()
	fmt.Printf("% x %v\n", b, err)

	w.Reset()
	w.Int32(1, code)
	fmt.Println(w.Err())
	// Output:
	// 08 02 12 02 01 02 <nil>
	// protolayout: value type does not match the field's kind (field job.Job.state): field is enum; the call takes int64/int32/sfixed32/sfixed64/sint32/sint64; for enum field state use Enum(num, protoreflect.EnumNumber(v)), Enums for a slice, or EnumName in job.Job at state
}

// Names of fields nested in other messages resolve up front, from the top
// message, as dotted paths; a misspelled name is an error that names it,
// before anything is written.
func ExampleWriter_Lookup() {
	fdp := new(descriptorpb.FileDescriptorProto)
	if err := prototext.Unmarshal([]byte(`
		name: "batch.proto" package: "log" syntax: "proto3"
		message_type {
		  name: "Batch"
		  field { name: "lines" number: 1 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".log.Line" json_name: "lines" }
		}
		message_type {
		  name: "Line"
		  field { name: "level" number: 1 type: TYPE_INT32 json_name: "level" }
		  field { name: "text" number: 2 type: TYPE_STRING json_name: "text" }
		}`), fdp); err != nil {
		panic(err)
	}
	fd, err := protodesc.NewFile(fdp, nil)
	if err != nil {
		panic(err)
	}
	w := encoder.NewWriter(fd.Messages().ByName("Batch"))
	lines, _ := w.Lookup("lines")
	text, _ := w.Lookup("lines.text")
	fmt.Println(lines, text)

	_, err = w.Lookup("lines.txet")
	fmt.Println(err)

	// Number resolves in the innermost open message, and keeps its
	// failure as the Writer's error.
	w.Begin(lines)
	fmt.Println(w.Number("level"), w.Number("levle"))
	w.End()
	_, err = w.Finish()
	fmt.Println(errors.Is(err, encoder.ErrUnknownField))
	// Output:
	// 1 2
	// protolayout: no such field: "txet" in message log.Line (resolving "lines.txet") in log.Batch
	// 1 0
	// true
}

// Canonical bytes from values, for a hash or a signature: a oneof member
// numbered between two fields is written at its number, where
// proto.Marshal would write it last, and the checker accepts the bytes.
// The canonical Writer refuses proto.Marshal's order.
func ExampleWriterOptions_canonical() {
	fdp := new(descriptorpb.FileDescriptorProto)
	if err := prototext.Unmarshal([]byte(`
		name: "pay.proto" package: "pay" syntax: "proto3"
		message_type {
		  name: "Payment"
		  field { name: "id" number: 1 type: TYPE_STRING json_name: "id" }
		  field { name: "card" number: 2 type: TYPE_STRING oneof_index: 0 json_name: "card" }
		  field { name: "amount" number: 3 type: TYPE_INT64 json_name: "amount" }
		  oneof_decl { name: "method" }
		}`), fdp); err != nil {
		panic(err)
	}
	fd, err := protodesc.NewFile(fdp, nil)
	if err != nil {
		panic(err)
	}
	md := fd.Messages().ByName("Payment")
	w := encoder.NewWriter(md, encoder.WriterOptions{Canonical: encoder.Canonical})
	w.String(1, "p1")
	w.String(2, "4242") // the oneof member, at its number
	w.Int64(3, 500)
	b, err := w.Finish()
	if err == nil {
		err = encoder.CheckCanonical(b, md, encoder.Canonical)
	}
	fmt.Printf("% x (%v)\n", b, err)

	w.Reset()
	w.String(1, "p1")
	w.Int64(3, 500)
	w.String(2, "4242") // where proto.Marshal writes it: refused
	_, err = w.Finish()
	fmt.Println(errors.Is(err, encoder.ErrOutOfOrder))
	// Output:
	// 0a 02 70 31 12 04 34 32 34 32 18 f4 03 (<nil>)
	// true
}
