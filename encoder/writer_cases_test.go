package encoder_test

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/protobuftest"
	"github.com/protolayout/protolayout/protobuftest/gen/test2pb"
	"github.com/protolayout/protolayout/protobuftest/gen/test3pb"
)

// TestWriterCases is the hand-written table: each case writes values and
// must give the reference encoding of the generated message they describe.
func TestWriterCases(t *testing.T) {
	negZero := math.Copysign(0, -1)
	cases := []struct {
		name  string
		write func(w *encoder.Writer)
		want  proto.Message
	}{
		{"every implicit kind", func(w *encoder.Writer) {
			w.Int32(1, -1)
			w.Int64(2, math.MinInt64)
			w.Uint32(3, math.MaxUint32)
			w.Uint64(4, math.MaxUint64)
			w.Int32(5, -1)
			w.Int64(6, math.MinInt64)
			w.Uint32(7, 7)
			w.Uint64(8, 8)
			w.Int32(9, -9)
			w.Int64(10, -10)
			w.Float32(11, 1.5)
			w.Float64(12, -2.5)
			w.Bool(13, true)
			w.String(14, "é")
			w.Bytes(15, []byte{0})
			w.EnumName(21, "NEG")
			w.Enum(22, 99)
		}, &test3pb.TestAllTypes{SingularInt32: -1, SingularInt64: math.MinInt64, SingularUint32: math.MaxUint32, SingularUint64: math.MaxUint64,
			SingularSint32: -1, SingularSint64: math.MinInt64, SingularFixed32: 7, SingularFixed64: 8, SingularSfixed32: -9, SingularSfixed64: -10,
			SingularFloat: 1.5, SingularDouble: -2.5, SingularBool: true, SingularString: "é", SingularBytes: []byte{0},
			SingularNestedEnum: test3pb.TestAllTypes_NEG, SingularForeignEnum: 99}},
		{"strings and bytes of every length class", func(w *encoder.Writer) {
			w.String(14, strings.Repeat("long ", 30))
			w.Bytes(15, bytes.Repeat([]byte{0xff}, 200))
			for _, n := range []int{0, 1, 7, 8, 16, 17, 32, 33, 127, 128, 300} {
				w.String(44, strings.Repeat("a", n))
			}
			for _, n := range []int{9, 20, 40} {
				w.Bytes(45, bytes.Repeat([]byte("é"), n))
			}
		}, &test3pb.TestAllTypes{SingularString: strings.Repeat("long ", 30), SingularBytes: bytes.Repeat([]byte{0xff}, 200),
			RepeatedString: []string{"", "a", strings.Repeat("a", 7), strings.Repeat("a", 8), strings.Repeat("a", 16), strings.Repeat("a", 17),
				strings.Repeat("a", 32), strings.Repeat("a", 33), strings.Repeat("a", 127), strings.Repeat("a", 128), strings.Repeat("a", 300)},
			RepeatedBytes: [][]byte{bytes.Repeat([]byte("é"), 9), bytes.Repeat([]byte("é"), 20), bytes.Repeat([]byte("é"), 40)}}},
		{"implicit zeros skipped, -0.0 and NaN written", func(w *encoder.Writer) {
			w.Int32(1, 0)
			w.Uint64(4, 0)
			w.Float32(11, float32(negZero))
			w.Float64(12, math.NaN())
			w.Bool(13, false)
			w.String(14, "")
			w.Bytes(15, []byte{})
			w.Enum(21, 0)
		}, &test3pb.TestAllTypes{SingularFloat: float32(negZero), SingularDouble: math.NaN()}},
		{"explicit zeros written", func(w *encoder.Writer) {
			w.Int32(81, 0)
			w.String(94, "")
			w.Bytes(95, nil)
			w.Begin(96)
			w.End()
		}, &test3pb.TestAllTypes{OptionalInt32: proto.Int32(0), OptionalString: proto.String(""), OptionalBytes: []byte{},
			OptionalNestedMessage: &test3pb.TestAllTypes_NestedMessage{}}},
		{"packed streamed and sliced, empty dropped", func(w *encoder.Writer) {
			w.Int32(31, 1)
			w.Int32s(31, []int32{-1, 300})
			w.Int32(31, 2)
			w.Int64s(32, nil)
			w.Float64s(42, []float64{1, negZero})
			w.Bools(43, []bool{true, false})
			w.Strings(44, []string{"", "x"})
			w.Int32(61, 0)
			w.Int32s(61, []int32{5})
		}, &test3pb.TestAllTypes{RepeatedInt32: []int32{1, -1, 300, 2}, RepeatedDouble: []float64{1, negZero},
			RepeatedBool: []bool{true, false}, RepeatedString: []string{"", "x"}, UnpackedInt32: []int32{0, 5}}},
		{"maps of several key kinds, defaults written", func(w *encoder.Writer) {
			w.BeginEntryInt(131, -5)
			w.Int32(encoder.MapValue, 0)
			w.End()
			w.Begin(131) // zero key and value from End
			w.End()
			w.BeginEntryBool(143, false)
			w.End()
			w.BeginEntryBool(143, true)
			w.Bool(encoder.MapValue, true)
			w.End()
			w.BeginEntryString(144, "")
			w.End()
			w.BeginEntryString(144, "a")
			w.String(encoder.MapValue, "b")
			w.End()
			w.Begin(146) // message value without key: the zero key comes first
			w.Begin(encoder.MapValue)
			w.Int32(1, 3)
			w.End()
			w.End()
			w.BeginEntryString(146, "z")
			w.End()
			w.BeginEntryUint(150, math.MaxUint64)
			w.End()
		}, &test3pb.TestAllTypes{MapInt32Int32: map[int32]int32{-5: 0, 0: 0}, MapBoolBool: map[bool]bool{false: false, true: true},
			MapStringString:        map[string]string{"": "", "a": "b"},
			MapStringNestedMessage: map[string]*test3pb.TestAllTypes_NestedMessage{"": {A: 3}, "z": {}},
			MapUint64Bytes:         map[uint64][]byte{math.MaxUint64: nil}}},
		{"oneof zero written, nested, embeds, unknown last", func(w *encoder.Writer) {
			w.Begin(18)
			w.Int32(1, 1)
			w.Begin(2)
			w.Int32(1, 2)
			w.End()
			w.End()
			w.Message(19, &test3pb.ForeignMessage{C: 4})
			w.Raw(48, nil)
			w.Message(48, nil)
			w.Raw(48, []byte{0x08, 0x05})
			w.String(113, "")
			w.Int32(120, 0)
			w.Unknown([]byte{0xf8, 0x3e, 0x01})
		}, func() proto.Message {
			m := &test3pb.TestAllTypes{
				SingularNestedMessage:  &test3pb.TestAllTypes_NestedMessage{A: 1, Corecursive: &test3pb.TestAllTypes{SingularInt32: 2}},
				SingularForeignMessage: &test3pb.ForeignMessage{C: 4},
				RepeatedNestedMessage:  []*test3pb.TestAllTypes_NestedMessage{{}, {}, {A: 5}},
				OneofField:             &test3pb.TestAllTypes_OneofString{},
				OneofSecond:            &test3pb.TestAllTypes_OneofSecondInt32{},
			}
			m.ProtoReflect().SetUnknown([]byte{0xf8, 0x3e, 0x01})
			return m
		}()},
		{"groups, proto2 defaults and extensions", func(w *encoder.Writer) {
			w.Int32(1, 0)
			w.Begin(16)
			w.End()
			w.Begin(46)
			w.End()
			w.Message(46, &test2pb.TestAllTypes_RepeatedGroup{})
		}, &test2pb.TestAllTypes{OptionalInt32: proto.Int32(0), Optionalgroup: &test2pb.TestAllTypes_OptionalGroup{},
			Repeatedgroup: []*test2pb.TestAllTypes_RepeatedGroup{{}, {}}}},
	}
	for _, c := range cases {
		for _, s := range strategies {
			want, err := proto.MarshalOptions{Deterministic: true}.Marshal(c.want)
			if err != nil {
				t.Fatal(err)
			}
			w := encoder.NewWriter(c.want.ProtoReflect().Descriptor(), encoder.WriterOptions{Lengths: s})
			c.write(w)
			got, err := w.Finish()
			if err != nil {
				t.Fatalf("%s %v: %v", c.name, s, err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s %v: differs at %s", c.name, s, protobuftest.FirstDiff(got, want, c.want.ProtoReflect().Descriptor()))
			}
			// The fast paths write only into the buffer's free capacity,
			// and leave a call that would grow it to the general path:
			// appended to a prefix in buffers of every capacity up to the
			// output's and some more, each call meets the edge in turn.
			for c2 := range len(want) + 64 {
				buf := append(make([]byte, 0, 3+c2), "abc"...)
				w.ResetAppend(buf)
				c.write(w)
				got, err := w.Finish()
				if err != nil || string(got[:3]) != "abc" || !bytes.Equal(got[3:], want) {
					t.Fatalf("%s %v, appended with capacity %d: %q, %v; want abc%q", c.name, s, 3+c2, got, err, want)
				}
			}
		}
	}
}

// TestWriterExtensions writes extensions of every shape (scalar, message,
// repeated, packed) through a resolver, on the generated descriptor with
// the global registry and on the dynamic twin with the dynamic registry,
// and checks the bytes, the order rules and the errors without a resolver.
func TestWriterExtensions(t *testing.T) {
	m := &test2pb.TestAllExtensions{}
	proto.SetExtension(m, test2pb.E_OptionalInt32Extension, int32(0))
	proto.SetExtension(m, test2pb.E_OptionalInt64Extension, int64(-3))
	proto.SetExtension(m, test2pb.E_OptionalNestedMessageExtension, &test2pb.TestAllTypes_NestedMessage{A: proto.Int32(5)})
	proto.SetExtension(m, test2pb.E_RepeatedInt32Extension, []int32{7, -8})
	proto.SetExtension(m, test2pb.E_PackedInt32Extension, []int32{1, 2, 300})
	want, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	write := func(w *encoder.Writer) {
		w.Int32(1, 0) // explicit presence: the zero is written
		w.Int64(2, -3)
		w.Begin(18)
		w.Int32(1, 5)
		w.End()
		w.Int32(31, 7)
		w.Int32(31, -8)
		w.Int32s(61, []int32{1, 2})
		w.Int32(61, 300) // the packed record stays open across calls
	}
	dyn := protobuftest.TwinByName("protolayout.test2.TestAllExtensions").Dyn.Descriptor()
	for _, c := range []struct {
		name string
		md   protoreflect.MessageDescriptor
		res  protoregistry.ExtensionTypeResolver
	}{
		{"generated", m.ProtoReflect().Descriptor(), protoregistry.GlobalTypes},
		{"dynamic", dyn, protobuftest.DynamicTypes()},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := encoder.NewWriter(c.md, encoder.WriterOptions{Extensions: c.res})
			if n := w.Number("protolayout.test2.optional_nested_message_extension"); n != 18 {
				t.Errorf("Number(extension full name) = %d, want 18", n)
			}
			write(w)
			got, err := w.Finish()
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("got % x, %v; want % x", got, err, want)
			}

			// Extensions come by ascending number.
			w.Reset()
			w.Int64(2, 1)
			w.Int32(1, 1)
			if _, err := w.Finish(); !errors.Is(err, encoder.ErrOutOfOrder) {
				t.Errorf("extension 1 after 2: %v, want ErrOutOfOrder", err)
			}
			// A message extension checks its own fields.
			w.Reset()
			w.Begin(18)
			w.String(1, "x")
			if _, err := w.Finish(); !errors.Is(err, encoder.ErrKindMismatch) {
				t.Errorf("string to an int32 field of an extension's message: %v, want ErrKindMismatch", err)
			}
		})
	}

	// Without a resolver, extension numbers are unknown fields.
	w := encoder.NewWriter(m.ProtoReflect().Descriptor())
	if n := w.Number("protolayout.test2.optional_int32_extension"); n != 0 {
		t.Errorf("Number without a resolver = %d, want 0", n)
	}
	w.Int32(1, 0)
	if _, err := w.Finish(); !errors.Is(err, encoder.ErrUnknownField) {
		t.Errorf("extension without a resolver: %v, want ErrUnknownField", err)
	}
}

// TestWriterNestingLengths writes nested message, packed and map entry
// bodies of the lengths where the length prefix changes width, under each
// strategy, and checks the bytes.
func TestWriterNestingLengths(t *testing.T) {
	lengths := []int{0, 1, 127, 128, 16383, 16384, 2 << 20}
	for _, s := range strategies {
		for _, n := range lengths {
			body := bytes.Repeat([]byte{0x18}, n)
			// A nested message whose body is n unknown bytes.
			w := encoder.NewWriter(test3Desc, encoder.WriterOptions{Lengths: s})
			w.Begin(18)
			w.Unknown(body)
			w.End()
			got, err := w.Finish()
			want := protowire.AppendBytes(protowire.AppendTag(nil, 18, protowire.BytesType), body)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%v message body %d: %v, %d bytes, want %d", s, n, err, len(got), len(want))
			}
			// A packed record of n one-byte elements, one call each.
			if n > 0 && (n < 1<<20 || !testing.Short()) {
				w.Reset()
				for range n {
					w.Int32(31, 1)
				}
				got, err = w.Finish()
				want = protowire.AppendBytes(protowire.AppendTag(nil, 31, protowire.BytesType), bytes.Repeat([]byte{1}, n))
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("%v packed body %d: %v", s, n, err)
				}
			}
			// A map entry whose value makes the entry n bytes long.
			if n >= 4 {
				w.Reset()
				w.BeginEntryString(144, "")
				w.String(encoder.MapValue, string(body[:n-3-protowire.SizeVarint(uint64(n-3))+1]))
				w.End()
				got, err = w.Finish()
				ref, _ := proto.MarshalOptions{Deterministic: true}.Marshal(&test3pb.TestAllTypes{
					MapStringString: map[string]string{"": string(body[:n-3-protowire.SizeVarint(uint64(n-3))+1])}})
				if err != nil || !bytes.Equal(got, ref) {
					t.Fatalf("%v entry body %d: %v", s, n, err)
				}
			}
		}
	}
}

// TestWriterDeepNesting writes 10,000 nested messages (the default depth
// limit) and fails on one more.
func TestWriterDeepNesting(t *testing.T) {
	// The top message and depth levels below it: the default limit, as
	// proto.Unmarshal counts (the output decodes with its defaults).
	const depth = encoder.DefaultMaxDepth - 1
	m := &test3pb.TestRecursive{Value: 1}
	for range depth {
		m = &test3pb.TestRecursive{Child: m}
	}
	want, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range strategies {
		w := encoder.NewWriter(recDesc, encoder.WriterOptions{Lengths: s})
		for range depth {
			w.Begin(1)
		}
		w.Int32(2, 1)
		for range depth {
			w.End()
		}
		got, err := w.Finish()
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%v: %v, %d bytes, want %d", s, err, len(got), len(want))
		}
		if err := proto.Unmarshal(got, &test3pb.TestRecursive{}); err != nil {
			t.Fatalf("%v: the output does not decode with proto.Unmarshal's defaults: %v", s, err)
		}
		w.Reset()
		for range depth + 1 {
			w.Begin(1)
		}
		if !errors.Is(w.Err(), encoder.ErrDepthExceeded) {
			t.Fatalf("%v: depth %d: %v", s, depth+1, w.Err())
		}
	}
}
