package encoder_test

import (
	"bytes"
	"errors"
	"fmt"
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

var (
	test3Desc    = (&test3pb.TestAllTypes{}).ProtoReflect().Descriptor()
	requiredDesc = (&test2pb.TestRequired{}).ProtoReflect().Descriptor()
	extsDesc     = (&test2pb.TestAllExtensions{}).ProtoReflect().Descriptor()
	recDesc      = (&test3pb.TestRecursive{}).ProtoReflect().Descriptor()
)

// TestWriterMisuse covers every check of the Writer: each case makes some
// valid calls, then one bad call, which must fail with the documented
// error and write nothing; every later call must do nothing, and Finish
// must return the same error.
func TestWriterMisuse(t *testing.T) {
	type tc struct {
		name string
		md   protoreflect.MessageDescriptor
		opts encoder.WriterOptions
		pre  func(w *encoder.Writer)
		bad  func(w *encoder.Writer)
		want error
		text string // a substring of the error text
	}
	nop := func(*encoder.Writer) {}
	cases := []tc{
		{"unknown field", test3Desc, encoder.WriterOptions{}, nop, func(w *encoder.Writer) { w.Int32(999, 1) }, encoder.ErrUnknownField, "field 999"},
		{"field number 0", test3Desc, encoder.WriterOptions{}, nop, func(w *encoder.Writer) { w.Int32(0, 1) }, encoder.ErrUnknownField, ""},
		{"bool on int32", test3Desc, encoder.WriterOptions{}, nop, func(w *encoder.Writer) { w.Bool(1, true) }, encoder.ErrKindMismatch, "field is int32"},
		{"int32 on enum", test3Desc, encoder.WriterOptions{}, nop, func(w *encoder.Writer) { w.Int32(21, 1) }, encoder.ErrKindMismatch, "(field protolayout.test3.TestAllTypes.singular_nested_enum): field is enum; the call takes int64/int32/sfixed32/sfixed64/sint32/sint64; for enum field singular_nested_enum use Enum(num, protoreflect.EnumNumber(v)), Enums for a slice, or EnumName in"},
		{"uint64 on enum", test3Desc, encoder.WriterOptions{}, nop, func(w *encoder.Writer) { w.Uint64(21, 1) }, encoder.ErrKindMismatch, "for enum field singular_nested_enum use Enum("},
		{"int32s on repeated enum", test3Desc, encoder.WriterOptions{}, nop, func(w *encoder.Writer) { w.Int32s(51, []int32{1}) }, encoder.ErrKindMismatch, "field is repeated enum; the call takes int64/int32/sfixed32/sfixed64/sint32/sint64; for enum field repeated_nested_enum use Enum("},
		{"bool on enum", test3Desc, encoder.WriterOptions{}, nop, func(w *encoder.Writer) { w.Bool(21, true) }, encoder.ErrKindMismatch, "field is enum; the call takes bool in"},
		{"uint on int32", test3Desc, encoder.WriterOptions{}, nop, func(w *encoder.Writer) { w.Uint32(1, 1) }, encoder.ErrKindMismatch, ""},
		{"Begin on scalar", test3Desc, encoder.WriterOptions{}, nop, func(w *encoder.Writer) { w.Begin(1) }, encoder.ErrKindMismatch, ""},
		{"string on message", test3Desc, encoder.WriterOptions{}, nop, func(w *encoder.Writer) { w.String(18, "x") }, encoder.ErrKindMismatch, ""},
		{"slice on singular", test3Desc, encoder.WriterOptions{}, nop, func(w *encoder.Writer) { w.Int32s(1, []int32{1}) }, encoder.ErrKindMismatch, ""},
		{"Message of another type", test3Desc, encoder.WriterOptions{}, nop, func(w *encoder.Writer) { w.Message(18, &test3pb.ForeignMessage{}) }, encoder.ErrKindMismatch, "ForeignMessage"},
		{"Message on map", test3Desc, encoder.WriterOptions{}, nop, func(w *encoder.Writer) { w.Message(131, nil) }, encoder.ErrKindMismatch, ""},
		{"entry helper on message", test3Desc, encoder.WriterOptions{}, nop, func(w *encoder.Writer) { w.BeginEntryString(18, "k") }, encoder.ErrKindMismatch, "not a map"},
		{"int64 into int32", test3Desc, encoder.WriterOptions{}, nop, func(w *encoder.Writer) { w.Int64(1, 1<<40) }, encoder.ErrOutOfRange, ""},
		{"int64 into sint32", test3Desc, encoder.WriterOptions{}, nop, func(w *encoder.Writer) { w.Int64(5, math.MinInt32-1) }, encoder.ErrOutOfRange, ""},
		{"uint64 into uint32", test3Desc, encoder.WriterOptions{}, nop, func(w *encoder.Writer) { w.Uint64(3, 1<<33) }, encoder.ErrOutOfRange, ""},
		{"float64 into float", test3Desc, encoder.WriterOptions{}, nop, func(w *encoder.Writer) { w.Float64(11, 1e300) }, encoder.ErrOutOfRange, ""},
		{"map key int64 into int32", test3Desc, encoder.WriterOptions{}, func(w *encoder.Writer) { w.BeginEntryInt(131, 1); w.End() }, func(w *encoder.Writer) { w.BeginEntryInt(131, 1<<40) }, encoder.ErrOutOfRange, ""},
		{"map key int64 into sint32", test3Desc, encoder.WriterOptions{}, func(w *encoder.Writer) { w.BeginEntryInt(135, 1); w.End() }, func(w *encoder.Writer) { w.BeginEntryInt(135, math.MaxInt32+1) }, encoder.ErrOutOfRange, ""},
		{"map key uint64 into uint32", test3Desc, encoder.WriterOptions{}, func(w *encoder.Writer) { w.BeginEntryUint(133, 1); w.End() }, func(w *encoder.Writer) { w.BeginEntryUint(133, 1<<33) }, encoder.ErrOutOfRange, ""},
		{"map sint32 keys descending", test3Desc, encoder.WriterOptions{}, func(w *encoder.Writer) { w.BeginEntryInt(135, -3); w.End(); w.BeginEntryInt(135, -1); w.End() }, func(w *encoder.Writer) { w.BeginEntryInt(135, -2) }, encoder.ErrMapKeyOrder, "below"},
		{"map uint64 keys descending", test3Desc, encoder.WriterOptions{}, func(w *encoder.Writer) { w.BeginEntryUint(134, 0); w.End(); w.BeginEntryUint(134, 1<<63); w.End() }, func(w *encoder.Writer) { w.BeginEntryUint(134, 1) }, encoder.ErrMapKeyOrder, "below"},
		{"map bool key repeated", test3Desc, encoder.WriterOptions{}, func(w *encoder.Writer) { w.BeginEntryBool(143, false); w.End(); w.BeginEntryBool(143, true); w.End() }, func(w *encoder.Writer) { w.BeginEntryBool(143, true) }, encoder.ErrMapKeyOrder, "equal"},
		{"slice element out of range", test3Desc, encoder.WriterOptions{}, nop, func(w *encoder.Writer) { w.Int64s(31, []int64{1, 1 << 40}) }, encoder.ErrOutOfRange, "element 1"},
		{"unknown enum name", test3Desc, encoder.WriterOptions{}, nop, func(w *encoder.Writer) { w.EnumName(21, "NOPE") }, encoder.ErrUnknownEnumName, "NOPE"},
		{"out of order", test3Desc, encoder.WriterOptions{}, func(w *encoder.Writer) { w.Int32(2, 1) }, func(w *encoder.Writer) { w.Int32(1, 1) }, encoder.ErrOutOfOrder, "expected next: 3 (singular_uint32)"},
		{"oneof before field", test3Desc, encoder.WriterOptions{}, func(w *encoder.Writer) { w.Uint32(111, 1) }, func(w *encoder.Writer) { w.Int32(1, 1) }, encoder.ErrOutOfOrder, "oneofs: oneof_field, oneof_second"},
		{"oneofs out of declaration order", test3Desc, encoder.WriterOptions{}, func(w *encoder.Writer) { w.Int32(120, 1) }, func(w *encoder.Writer) { w.Uint32(111, 1) }, encoder.ErrOutOfOrder, ""},
		{"field after unknown", test3Desc, encoder.WriterOptions{}, func(w *encoder.Writer) { w.Unknown([]byte{0xf8, 0x3e, 1}) }, func(w *encoder.Writer) { w.Int32(1, 1) }, encoder.ErrOutOfOrder, "unknown fields"},
		{"singular twice", test3Desc, encoder.WriterOptions{}, func(w *encoder.Writer) { w.Int32(1, 1) }, func(w *encoder.Writer) { w.Int32(1, 2) }, encoder.ErrDuplicateField, ""},
		{"implicit zero twice", test3Desc, encoder.WriterOptions{}, func(w *encoder.Writer) { w.Int32(1, 0) }, func(w *encoder.Writer) { w.Int32(1, 0) }, encoder.ErrDuplicateField, ""},
		{"message twice", test3Desc, encoder.WriterOptions{}, func(w *encoder.Writer) { w.Begin(18); w.End() }, func(w *encoder.Writer) { w.Begin(18) }, encoder.ErrDuplicateField, ""},
		{"repeated not consecutive", test3Desc, encoder.WriterOptions{}, func(w *encoder.Writer) { w.Int32(31, 1); w.Int64(32, 1) }, func(w *encoder.Writer) { w.Int32(31, 2) }, encoder.ErrNotConsecutive, ""},
		{"second oneof member", test3Desc, encoder.WriterOptions{}, func(w *encoder.Writer) { w.Uint32(111, 0) }, func(w *encoder.Writer) { w.String(113, "x") }, encoder.ErrOneofConflict, "oneof_field"},
		// The same in a message of few fields, where the calls take the
		// fast paths (TestAllTypes's oneofs lie past its 64th field).
		{"second oneof member, fast path", recDesc, encoder.WriterOptions{}, func(w *encoder.Writer) { w.Begin(5); w.End() }, func(w *encoder.Writer) { w.String(6, "x") }, encoder.ErrOneofConflict, "oneof node"},
		{"second oneof member before, fast path", recDesc, encoder.WriterOptions{}, func(w *encoder.Writer) { w.String(6, "x") }, func(w *encoder.Writer) { w.Begin(5) }, encoder.ErrOneofConflict, "oneof node"},
		{"oneof member twice", test3Desc, encoder.WriterOptions{}, func(w *encoder.Writer) { w.Uint32(111, 0) }, func(w *encoder.Writer) { w.Uint32(111, 1) }, encoder.ErrDuplicateField, ""},
		{"depth after map entries", test3Desc, encoder.WriterOptions{MaxDepth: 4}, func(w *encoder.Writer) {
			w.Begin(18) // level 2 (the top message is level 1)
			w.Begin(2)  // level 3
			for _, k := range []string{"a", "b", "c"} {
				w.BeginEntryString(144, k) // level 4: entries count, as for the decoder
				w.String(encoder.MapValue, "v")
				w.End()
			}
			w.BeginEntryString(146, "k") // level 4
		}, func(w *encoder.Writer) { w.Begin(encoder.MapValue) /* level 5 */ }, encoder.ErrDepthExceeded, "of 4"},
		{"map entry past the limit", test3Desc, encoder.WriterOptions{MaxDepth: 3}, func(w *encoder.Writer) { w.Begin(18); w.Begin(2) }, func(w *encoder.Writer) { w.BeginEntryString(144, "a") }, encoder.ErrDepthExceeded, "of 3"},
		{"map entry past the limit, int key", test3Desc, encoder.WriterOptions{MaxDepth: 3}, func(w *encoder.Writer) { w.Begin(18); w.Begin(2) }, func(w *encoder.Writer) { w.BeginEntryInt(131, 1) }, encoder.ErrDepthExceeded, "of 3"},
		{"map entry past the limit, Begin", test3Desc, encoder.WriterOptions{MaxDepth: 3}, func(w *encoder.Writer) { w.Begin(18); w.Begin(2) }, func(w *encoder.Writer) { w.Begin(144) }, encoder.ErrDepthExceeded, "of 3"},
		{"map key invalid UTF-8", test3Desc, encoder.WriterOptions{}, func(w *encoder.Writer) { w.BeginEntryString(144, "a"); w.End() }, func(w *encoder.Writer) { w.BeginEntryString(144, "b\xff") }, encoder.ErrInvalidUTF8, ""},
		{"map key invalid UTF-8, long", test3Desc, encoder.WriterOptions{}, func(w *encoder.Writer) { w.BeginEntryString(144, "a"); w.End() }, func(w *encoder.Writer) { w.BeginEntryString(144, strings.Repeat("b", 40)+"\xed\xa0\x80") }, encoder.ErrInvalidUTF8, ""},
		{"map keys descending", test3Desc, encoder.WriterOptions{}, func(w *encoder.Writer) { w.BeginEntryString(144, "b"); w.End() }, func(w *encoder.Writer) { w.BeginEntryString(144, "a") }, encoder.ErrMapKeyOrder, "below"},
		{"map key repeated", test3Desc, encoder.WriterOptions{}, func(w *encoder.Writer) { w.BeginEntryInt(131, -1); w.End() }, func(w *encoder.Writer) { w.BeginEntryInt(131, -1) }, encoder.ErrMapKeyOrder, "equal"},
		{"map zero key after a key", test3Desc, encoder.WriterOptions{}, func(w *encoder.Writer) { w.BeginEntryInt(131, 5); w.End(); w.Begin(131) }, func(w *encoder.Writer) { w.End() }, encoder.ErrMapKeyOrder, ""},
		{"map key after value", test3Desc, encoder.WriterOptions{}, func(w *encoder.Writer) { w.Begin(144); w.String(encoder.MapValue, "v") }, func(w *encoder.Writer) { w.String(encoder.MapKey, "k") }, encoder.ErrOutOfOrder, "(field protolayout.test3.TestAllTypes.MapStringStringEntry.key): a map entry's key (field 1) comes before its value (field 2); the value came first, so the entry already holds the zero key in protolayout.test3.TestAllTypes at map_string_string[\"\"]"},
		{"map int key after value", test3Desc, encoder.WriterOptions{}, func(w *encoder.Writer) { w.Begin(131); w.Int32(encoder.MapValue, 1) }, func(w *encoder.Writer) { w.Int32(encoder.MapKey, 1) }, encoder.ErrOutOfOrder, "key (field 1) comes before its value (field 2)"},
		// A key written, then the value, then a key again is a second key,
		// also in a frame that held an entry with a zero key before.
		{"map key twice", test3Desc, encoder.WriterOptions{}, func(w *encoder.Writer) {
			w.Begin(144)
			w.String(encoder.MapValue, "v")
			w.End()
			w.Begin(144)
			w.String(encoder.MapKey, "a")
			w.String(encoder.MapValue, "v")
		}, func(w *encoder.Writer) { w.String(encoder.MapKey, "b") }, encoder.ErrDuplicateField, "MapStringStringEntry.key"},
		{"map key twice, BeginEntry", test3Desc, encoder.WriterOptions{}, func(w *encoder.Writer) {
			w.Begin(144)
			w.String(encoder.MapValue, "v")
			w.End()
			w.BeginEntryString(144, "a")
			w.String(encoder.MapValue, "v")
		}, func(w *encoder.Writer) { w.String(encoder.MapKey, "b") }, encoder.ErrDuplicateField, "MapStringStringEntry.key"},
		{"unknown in map entry", test3Desc, encoder.WriterOptions{}, func(w *encoder.Writer) { w.Begin(131) }, func(w *encoder.Writer) { w.Unknown([]byte{8, 1}) }, encoder.ErrKindMismatch, ""},
		{"invalid UTF-8", test3Desc, encoder.WriterOptions{}, nop, func(w *encoder.Writer) { w.String(14, "a\xffb") }, encoder.ErrInvalidUTF8, "contains invalid UTF-8"},
		{"invalid UTF-8 bytes into string", test3Desc, encoder.WriterOptions{}, nop, func(w *encoder.Writer) { w.Bytes(14, []byte{0xff}) }, encoder.ErrInvalidUTF8, ""},
		{"invalid UTF-8 map key", test3Desc, encoder.WriterOptions{}, func(w *encoder.Writer) { w.Begin(144) }, func(w *encoder.Writer) { w.String(1, "\xff") }, encoder.ErrInvalidUTF8, ""},
		{"required missing at Finish", requiredDesc, encoder.WriterOptions{}, func(w *encoder.Writer) { w.Int32(5, 1) }, func(w *encoder.Writer) { _, _ = w.Finish() }, encoder.ErrRequiredNotSet, "required field protolayout.test2.TestRequired.r2 not set"},
		{"required missing at End", requiredDesc, encoder.WriterOptions{}, func(w *encoder.Writer) { w.Begin(1); w.Int32(2, 1) }, func(w *encoder.Writer) { w.End() }, encoder.ErrRequiredNotSet, "at inner.x"},
		{"required missing in embed", requiredDesc, encoder.WriterOptions{}, nop, func(w *encoder.Writer) { w.Message(1, &test2pb.TestRequired_Inner{}) }, encoder.ErrRequiredNotSet, ""},
		{"depth", test3Desc, encoder.WriterOptions{MaxDepth: 3}, func(w *encoder.Writer) { w.Begin(18); w.Begin(2) }, func(w *encoder.Writer) { w.Begin(18) }, encoder.ErrDepthExceeded, "of 3"},
		{"depth in an embed", test3Desc, encoder.WriterOptions{MaxDepth: 3}, func(w *encoder.Writer) { w.Begin(18) }, func(w *encoder.Writer) {
			// a dynamic message at level 3 holding one at level 4
			w.Message(2, protobuftest.DynamicTwin(&test3pb.TestAllTypes{SingularNestedMessage: &test3pb.TestAllTypes_NestedMessage{A: 1}}))
		}, encoder.ErrDepthExceeded, ""},
		{"nil embed with required fields", requiredDesc, encoder.WriterOptions{}, nop, func(w *encoder.Writer) { w.Message(1, nil) }, encoder.ErrRequiredNotSet, "TestRequired.Inner.x"},
		{"size", test3Desc, encoder.WriterOptions{MaxSize: 10}, func(w *encoder.Writer) { w.Int32(1, 1) }, func(w *encoder.Writer) { w.String(14, "0123456789") }, encoder.ErrSizeExceeded, "of 10"},
		{"size on End", test3Desc, encoder.WriterOptions{MaxSize: 131}, func(w *encoder.Writer) { w.Begin(18); w.Unknown(make([]byte, 128)) }, func(w *encoder.Writer) { w.End() }, encoder.ErrSizeExceeded, ""},
		{"size closing packed", test3Desc, encoder.WriterOptions{MaxSize: 131}, func(w *encoder.Writer) { w.Int32s(31, make([]int32, 128)) }, func(w *encoder.Writer) { _, _ = w.Finish() }, encoder.ErrSizeExceeded, ""},
		{"End without Begin", test3Desc, encoder.WriterOptions{}, nop, func(w *encoder.Writer) { w.End() }, encoder.ErrEndWithoutBegin, ""},
		{"Finish with open Begin", test3Desc, encoder.WriterOptions{}, func(w *encoder.Writer) { w.Begin(18) }, func(w *encoder.Writer) { _, _ = w.Finish() }, encoder.ErrNotEnded, "1 Begin without End"},
		{"after Finish", test3Desc, encoder.WriterOptions{}, func(w *encoder.Writer) { _, _ = w.Finish() }, func(w *encoder.Writer) { w.Int32(1, 1) }, encoder.ErrFinished, ""},
		{"extensions descending", extsDesc, encoder.WriterOptions{Extensions: protoregistry.GlobalTypes}, func(w *encoder.Writer) { w.Int64(2, 1) }, func(w *encoder.Writer) { w.Int32(1, 1) }, encoder.ErrOutOfOrder, ""},
		{"extension without resolver", extsDesc, encoder.WriterOptions{}, nop, func(w *encoder.Writer) { w.Int32(1, 1) }, encoder.ErrUnknownField, ""},
		{"extension after field", requiredDesc, encoder.WriterOptions{Extensions: protoregistry.GlobalTypes, AllowPartial: true}, func(w *encoder.Writer) { w.Int32(2, 1) }, func(w *encoder.Writer) { w.Begin(100) }, encoder.ErrOutOfOrder, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := encoder.NewWriter(c.md, c.opts)
			c.pre(w)
			if err := w.Err(); err != nil {
				t.Fatalf("valid calls failed: %v", err)
			}
			n := w.Len()
			c.bad(w)
			err := w.Err()
			if c.want == nil {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if !errors.Is(err, c.want) || !errors.Is(err, proto.Error) {
				t.Fatalf("got %v, want %v (and proto.Error)", err, c.want)
			}
			var e *encoder.Error
			if !errors.As(err, &e) {
				t.Fatalf("%T is not an *encoder.Error", err)
			}
			if !strings.Contains(err.Error(), c.text) {
				t.Errorf("error %q does not contain %q", err, c.text)
			}
			if w.Len() != n {
				t.Errorf("the failing call wrote %d bytes", w.Len()-n)
			}
			w.Int32(1, 5)
			w.Begin(18)
			w.End()
			w.Unknown([]byte{1})
			if w.Len() != n || w.Err() != err {
				t.Errorf("later calls wrote or changed the error: len %d -> %d, %v", n, w.Len(), w.Err())
			}
			if b, ferr := w.Finish(); ferr != err || b != nil {
				t.Errorf("Finish = %x, %v; want nil, the first error", b, ferr)
			}
			w.Reset()
			if w.Err() != nil || w.Len() != 0 {
				t.Errorf("Reset left error %v, %d bytes", w.Err(), w.Len())
			}
		})
	}
	t.Run("zero Writer", func(t *testing.T) {
		var w encoder.Writer
		w.Int32(1, 1)
		if !errors.Is(w.Err(), encoder.ErrNotStarted) || !errors.Is(w.Err(), proto.Error) {
			t.Errorf("got %v, want ErrNotStarted", w.Err())
		}
		if _, err := w.Finish(); !errors.Is(err, encoder.ErrNotStarted) {
			t.Errorf("Finish: %v", err)
		}
	})
}

// TestWriterResetAppend checks buffer hygiene in ResetAppend mode: the
// prefix is kept, bytes past its length are untouched on error.
func TestWriterResetAppend(t *testing.T) {
	w := encoder.NewWriter(test3Desc)
	prefix := []byte("abc")
	w.ResetAppend(prefix)
	w.Int32(1, 1)
	b, err := w.Finish()
	if err != nil || string(b) != "abc\x08\x01" {
		t.Fatalf("got %q, %v", b, err)
	}
	w.ResetAppend(prefix[:3:3])
	w.String(14, "\xff")
	b, err = w.Finish()
	if err == nil || string(b) != "abc" {
		t.Fatalf("on error got %q, %v; want the prefix", b, err)
	}
	off, n := w.LastItem()
	if off != -1 || n != 0 {
		t.Errorf("LastItem before any item = %d, %d", off, n)
	}
}

// TestWriterResetAppendError checks that on error Finish returns the very
// slice ResetAppend was given, in ResetAppend mode, whether the Writer
// wrote into its spare capacity or grew it first; and nil otherwise.
func TestWriterResetAppendError(t *testing.T) {
	for _, long := range []int{1, 1000} { // within the capacity, and beyond it
		buf := make([]byte, 3, 64)
		copy(buf, "abc")
		w := encoder.NewWriter(test3Desc)
		w.ResetAppend(buf)
		w.Int32(1, 1)
		w.String(14, strings.Repeat("x", long))
		w.String(15, "y")
		w.Begin(18)
		w.Int32(1, 1<<20)
		w.End()
		w.Int32(2, 2) // out of order
		b, err := w.Finish()
		if !errors.Is(err, encoder.ErrOutOfOrder) {
			t.Fatalf("got %v, want %v", err, encoder.ErrOutOfOrder)
		}
		if len(b) != len(buf) || cap(b) != cap(buf) || &b[:1][0] != &buf[0] || string(b) != "abc" {
			t.Errorf("value of %d bytes: on error got len %d cap %d %q, want the slice given (len %d cap %d)", long, len(b), cap(b), b, len(buf), cap(buf))
		}
	}
	w := encoder.NewWriter(test3Desc)
	w.ResetAppend(nil)
	w.String(14, "\xff")
	if b, err := w.Finish(); err == nil || b != nil {
		t.Errorf("ResetAppend(nil): on error got %q, %v; want nil and the error", b, err)
	}
	w.ResetAppend([]byte("p"))
	w.Reset() // back to the Writer's own buffer
	w.String(14, "\xff")
	if b, err := w.Finish(); err == nil || b != nil {
		t.Errorf("after Reset: on error got %q, %v; want nil and the error", b, err)
	}
}

// TestWriterLastItem checks the byte ranges of finished top-level items.
func TestWriterLastItem(t *testing.T) {
	for _, s := range strategies {
		w := encoder.NewWriter(test3Desc, encoder.WriterOptions{Lengths: s})
		w.ResetAppend([]byte("prefix"))
		w.Int32(1, 7)
		var ranges [][2]int
		for i := range 3 {
			w.Begin(48)
			w.Int32(1, int32(i))
			w.Unknown(bytes.Repeat([]byte{0x18, 0x01}, 100*i))
			w.End()
			off, n := w.LastItem()
			ranges = append(ranges, [2]int{off, n})
			if got := w.LastItemBytes(); len(got) != n {
				t.Fatalf("LastItemBytes has %d bytes, LastItem says %d", len(got), n)
			}
		}
		// Map entries are top-level items too, begun by BeginEntryString
		// (its fast path once the entry's table is built), with values
		// of 0 and 200 bytes (the second moves under one-byte lengths).
		var entries [][2]int
		for i, k := range []string{"k0", "k1"} {
			w.BeginEntryString(144, k)
			w.String(encoder.MapValue, strings.Repeat("v", 200*i))
			w.End()
			off, n := w.LastItem()
			entries = append(entries, [2]int{off, n})
		}
		b, err := w.Finish()
		if err != nil {
			t.Fatal(err)
		}
		b = b[len("prefix"):]
		for i, r := range ranges {
			item := b[r[0] : r[0]+r[1]]
			num, typ, tn := protowire.ConsumeTag(item)
			body, bn := protowire.ConsumeBytes(item[tn:])
			if num != 48 || typ != protowire.BytesType || tn+bn != len(item) {
				t.Fatalf("%v item %d: range %v is not one record: % x", s, i, r, item[:min(len(item), 8)])
			}
			m := new(test3pb.TestAllTypes_NestedMessage)
			if err := proto.Unmarshal(body, m); err != nil || m.GetA() != int32(i) {
				t.Fatalf("%v item %d: %v %v", s, i, m, err)
			}
		}
		for i, r := range entries {
			m := new(test3pb.TestAllTypes)
			if err := proto.Unmarshal(b[r[0]:r[0]+r[1]], m); err != nil || len(m.MapStringString) != 1 ||
				m.MapStringString[fmt.Sprint("k", i)] != strings.Repeat("v", 200*i) {
				t.Fatalf("%v entry %d: range %v holds %v (%v)", s, i, r, m, err)
			}
		}
	}
	_ = protobuftest.Op(0)
}

var globalTypes = protoregistry.GlobalTypes

// TestWriterFrameStackGrowth checks every frame once the frame stack has
// grown under it: after a chain of nested messages deep enough to move the
// stack, each level closed on the way back must still be the frame the
// checks read, so a second value of a singular field written after the
// chain fails as a duplicate at every level, on a fresh Writer (whose
// stack starts small) and on a reused one.
func TestWriterFrameStackGrowth(t *testing.T) {
	reused := encoder.NewWriter(recDesc)
	for depth := 1; depth <= 80; depth++ {
		for _, w := range []*encoder.Writer{encoder.NewWriter(recDesc), reused} {
			w.Reset()
			for range depth {
				w.Begin(1) // child
			}
			for range depth {
				w.End()
			}
			w.Int32(2, 5) // value, after child
			if err := w.Err(); err != nil {
				t.Fatalf("depth %d: %v", depth, err)
			}
			w.Int32(2, 6)
			if err := w.Err(); !errors.Is(err, encoder.ErrDuplicateField) {
				t.Fatalf("depth %d: a second value: got %v, want %v", depth, err, encoder.ErrDuplicateField)
			}
		}
	}
	// The same at every level of the chain, not only the root.
	for depth := 2; depth <= 80; depth++ {
		for level := 1; level < depth; level++ {
			w := encoder.NewWriter(recDesc)
			for range depth {
				w.Begin(1)
			}
			for range depth - level {
				w.End()
			}
			w.Int32(2, 5)
			w.Int32(2, 6)
			if err := w.Err(); !errors.Is(err, encoder.ErrDuplicateField) {
				t.Fatalf("depth %d, level %d: a second value: got %v, want %v", depth, level, err, encoder.ErrDuplicateField)
			}
		}
	}
}

// TestWriterOpenPath checks the path of errors that blame an open message
// itself (Finish with messages open, End over the size limit): each open
// level appears once, with its index, and the field is the one that
// opened the innermost level.
func TestWriterOpenPath(t *testing.T) {
	cases := []struct {
		name string
		md   protoreflect.MessageDescriptor
		opts encoder.WriterOptions
		do   func(w *encoder.Writer)
		want string
	}{
		{"one level", test3Desc, encoder.WriterOptions{}, func(w *encoder.Writer) { w.Begin(18) },
			"protolayout: messages still open at finish (field protolayout.test3.TestAllTypes.singular_nested_message): 1 Begin without End in protolayout.test3.TestAllTypes at singular_nested_message"},
		{"repeated twice", recDesc, encoder.WriterOptions{}, func(w *encoder.Writer) { w.Begin(3); w.Begin(3) },
			"protolayout: messages still open at finish (field protolayout.test3.TestRecursive.children): 2 Begin without End in protolayout.test3.TestRecursive at children[0].children[0]"},
		{"mixed", recDesc, encoder.WriterOptions{}, func(w *encoder.Writer) { w.Begin(3); w.End(); w.Begin(3); w.Begin(1); w.Begin(3) },
			"protolayout: messages still open at finish (field protolayout.test3.TestRecursive.children): 3 Begin without End in protolayout.test3.TestRecursive at children[1].child.children[0]"},
		{"map value", recDesc, encoder.WriterOptions{}, func(w *encoder.Writer) { w.BeginEntryString(4, "k"); w.Begin(encoder.MapValue) },
			"protolayout: messages still open at finish (field protolayout.test3.TestRecursive.ByNameEntry.value): 2 Begin without End in protolayout.test3.TestRecursive at by_name[\"k\"]"},
		{"End over the size limit", test3Desc, encoder.WriterOptions{MaxSize: 131}, func(w *encoder.Writer) {
			w.Begin(18)
			w.Unknown(make([]byte, 128))
			w.End()
		}, "protolayout: encoded size exceeds the size limit of 131 (field protolayout.test3.TestAllTypes.singular_nested_message) in protolayout.test3.TestAllTypes at singular_nested_message"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := encoder.NewWriter(c.md, c.opts)
			c.do(w)
			_, err := w.Finish()
			if err == nil || err.Error() != c.want {
				t.Errorf("got  %v\nwant %s", err, c.want)
			}
		})
	}
}
