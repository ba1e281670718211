package engine_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/dynamic"
	"github.com/protolayout/protolayout/protobuftest"
)

// A run of records of one list of messages, which the decoder takes in
// one go, decodes as the records one by one do: runs broken by another
// field, by the same number with another wire type, by the tag written
// in more bytes than it needs, by a bad length, runs within runs, and
// runs of fields whose tags take one byte and two, all as the generated
// type decodes them.
func TestListOfMessagesRuns(t *testing.T) {
	nested := func(a int) []byte {
		b := protowire.AppendTag(nil, 1, protowire.VarintType)
		return protowire.AppendVarint(b, uint64(a))
	}
	rec := func(b []byte, num protowire.Number, v []byte) []byte {
		b = protowire.AppendTag(b, num, protowire.BytesType)
		return protowire.AppendBytes(b, v)
	}
	for _, f := range []struct {
		name protoreflect.FullName
		// num is the list's number, msg and scalar those of a message
		// field and a scalar field.
		num, msg, scalar protowire.Number
	}{
		{"protolayout.test2.TestAllTypes", 48, 18, 1}, // repeated_nested_message
		{"protolayout.test2.TestAllTypes", 49, 18, 1}, // repeated_foreign_message
		{"protolayout.test3.TestRecursive", 3, 1, 2},  // children, a tag of one byte
	} {
		tw := protobuftest.TwinByName(f.name)
		md := tw.Dyn.Descriptor()
		num := f.num
		// An element holding a run of its own, where it can.
		inner := rec(rec(nested(2), num, nested(4)), num, nested(5))
		run := rec(rec(rec(rec(nil, num, nested(1)), num, nil), num, nested(3)), num, inner)
		long := protowire.AppendTag(nil, num, protowire.BytesType)
		long[len(long)-1] |= 0x80
		long = protowire.AppendBytes(append(long, 0x00), nested(7))
		for _, c := range []struct {
			name string
			in   []byte
		}{
			{"one", rec(nil, num, nested(1))},
			{"run", run},
			{"run, another field, run", append(rec(append([]byte(nil), run...), f.msg, nested(5)), run...)},
			{"run, a scalar, run", append(protowire.AppendVarint(protowire.AppendTag(append([]byte(nil), run...), f.scalar, protowire.VarintType), 9), run...)},
			{"run, the number as a varint, run", append(protowire.AppendVarint(protowire.AppendTag(append([]byte(nil), run...), num, protowire.VarintType), 9), run...)},
			{"run, a long tag, run", append(append(append([]byte(nil), run...), long...), run...)},
			{"run, a length past the end", append(append(append([]byte(nil), run...), protowire.AppendTag(nil, num, protowire.BytesType)...), 0x05, 0x08)},
			{"run, a tag alone", append(append([]byte(nil), run...), protowire.AppendTag(nil, num, protowire.BytesType)...)},
			{"run, a bad element", rec(append([]byte(nil), run...), num, []byte{0x08})},
		} {
			sameDecode(t, fmt.Sprintf("%s field %d, %s", f.name, num, c.name), c.in, tw.Gen.New().Interface(), dynamic.NewMessage(md))
		}
	}
}

// A run of a list whose tag takes three bytes (a field numbered 2048 or
// more, found by the dense index in a message of 512 fields or more) ends
// at every record, as a run of a tag written otherwise does: a record
// whose first tag byte is the list's and whose second is 0 is a tag of
// two bytes, another field's, written in more bytes than it needs.
func TestListOfMessagesRunLongTag(t *testing.T) {
	const items = 2100
	m := &descriptorpb.DescriptorProto{Name: proto.String("M")}
	for n := int32(1); n < 600; n++ {
		m.Field = append(m.Field, &descriptorpb.FieldDescriptorProto{
			Name: proto.String(fmt.Sprintf("f%d", n)), Number: proto.Int32(n), JsonName: proto.String(fmt.Sprintf("f%d", n)),
			Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), Type: descriptorpb.FieldDescriptorProto_TYPE_INT32.Enum()})
	}
	m.Field = append(m.Field, &descriptorpb.FieldDescriptorProto{
		Name: proto.String("items"), Number: proto.Int32(items), JsonName: proto.String("items"),
		Label: descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum(), Type: descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(),
		TypeName: proto.String(".protolayout.runs.M")})
	fdp := &descriptorpb.FileDescriptorProto{
		Name:        proto.String("protolayout/runs/longtag.proto"),
		Package:     proto.String("protolayout.runs"),
		Syntax:      proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{m},
	}
	fd, err := protodesc.NewFile(fdp, nil)
	if err != nil {
		t.Fatal(err)
	}
	md := fd.Messages().Get(0)
	item := func(b []byte, a uint64) []byte {
		b = protowire.AppendTag(b, items, protowire.BytesType)
		return protowire.AppendBytes(b, protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), a))
	}
	tag := protowire.AppendTag(nil, items, protowire.BytesType)
	if len(tag) != 3 {
		t.Fatalf("the tag takes %d bytes", len(tag))
	}
	// Another field's record (field 4, a bytes record for an int32, so
	// an unknown field), its tag written in two bytes: the list tag's
	// first byte, then 0.
	other := append([]byte{tag[0], 0x00}, protowire.AppendBytes(nil, []byte{1, 2, 3})...)
	if v, n := protowire.ConsumeVarint(other); n != 2 || v != uint64(protowire.EncodeTag(4, protowire.BytesType)) {
		t.Fatalf("the other record's tag reads %d in %d bytes", v, n)
	}
	for _, in := range [][]byte{
		item(item(nil, 1), 2),
		item(append(item(nil, 1), other...), 2),
		append(append(item(item(nil, 1), 2), other...), item(nil, 3)...),
	} {
		sameDecode(t, fmt.Sprintf("%x", in), in, dynamicpb.NewMessage(md), dynamic.NewMessage(md))
	}
}

// sameDecode decodes in into want, a message of a reference
// implementation, and into got, a dynamic message of the same type: both
// must fail, or both succeed and encode deterministically alike. what
// names the case.
func sameDecode(t *testing.T, what string, in []byte, want, got proto.Message) {
	t.Helper()
	errw, errg := proto.Unmarshal(in, want), proto.Unmarshal(in, got)
	if (errw == nil) != (errg == nil) {
		t.Fatalf("%s: reference error %v, dynamic error %v", what, errw, errg)
	}
	if errw != nil {
		return
	}
	wb, err := proto.MarshalOptions{Deterministic: true}.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	gb, err := proto.MarshalOptions{Deterministic: true}.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(gb, wb) {
		t.Fatalf("%s: dynamic encodes\n%x\nwant\n%x", what, gb, wb)
	}
}

// Records decode alike whatever their order: for every test type, random
// messages' records as written, reversed, shuffled, each one twice, and
// with other wire types than their fields' (retype), decode into a
// dynamic message as into the generated type; a tag of 0 (no field's),
// after the last record or first, fails as it does there.
func TestDecodeRecordsInAnyOrder(t *testing.T) {
	for _, tw := range protobuftest.Twins() {
		md := tw.Dyn.Descriptor()
		for seed := range uint64(4) {
			g := tw.Gen.New()
			protobuftest.Fill(g, seed, protobuftest.RandOptions{Unknown: seed%2 == 1})
			in, err := proto.MarshalOptions{Deterministic: true}.Marshal(g.Interface())
			if err != nil {
				t.Fatal(err)
			}
			var recs [][]byte
			for b := in; len(b) > 0; {
				_, _, n := protowire.ConsumeField(b)
				if n < 0 {
					t.Fatalf("%s: bad record in %x", tw.Name, in)
				}
				recs, b = append(recs, b[:n]), b[n:]
			}
			reversed := slices.Clone(recs)
			slices.Reverse(reversed)
			shuffled := slices.Clone(recs)
			r := rand.New(rand.NewPCG(seed, 1))
			r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			var twice, retyped [][]byte
			for _, rec := range recs {
				twice = append(twice, rec, rec)
				retyped = append(retyped, retype(rec))
			}
			for _, c := range []struct {
				name string
				recs [][]byte
			}{
				{"as written", recs},
				{"reversed", reversed},
				{"shuffled", shuffled},
				{"each twice", twice},
				{"other wire types", retyped},
				{"other wire types between", slices.Concat(recs, retyped, recs)},
				{"zero tag last", append(slices.Clone(recs), []byte{0})},
				{"zero tag first", append([][]byte{{0}}, recs...)},
			} {
				b := bytes.Join(c.recs, nil)
				what := fmt.Sprintf("%s seed %d, %s", tw.Name, seed, c.name)
				sameDecode(t, what, b, tw.Gen.New().Interface(), dynamic.NewMessage(md))
			}
		}
	}
}

// retype returns rec, one record, with the value of a varint written as
// a fixed64 and that of a fixed32 or fixed64 as a varint: the same number
// with a wire type its field does not have. Other records are kept.
func retype(rec []byte) []byte {
	num, typ, n := protowire.ConsumeTag(rec)
	switch typ {
	case protowire.VarintType:
		v, _ := protowire.ConsumeVarint(rec[n:])
		return protowire.AppendFixed64(protowire.AppendTag(nil, num, protowire.Fixed64Type), v)
	case protowire.Fixed32Type:
		v, _ := protowire.ConsumeFixed32(rec[n:])
		return protowire.AppendVarint(protowire.AppendTag(nil, num, protowire.VarintType), uint64(v))
	case protowire.Fixed64Type:
		v, _ := protowire.ConsumeFixed64(rec[n:])
		return protowire.AppendVarint(protowire.AppendTag(nil, num, protowire.VarintType), v)
	}
	return rec
}
