package engine_test

import (
	"bytes"
	"runtime"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/protolayout/protolayout/internal/engine"
	"github.com/protolayout/protolayout/protobuftest/gen/customoptionspb"
	"github.com/protolayout/protolayout/protobuftest/gen/test2pb"
	"github.com/protolayout/protolayout/protobuftest/gen/testeditionspb"
)

// hasExtension reports whether m, or a message in it, has an extension
// set.
func hasGenExtension(m protoreflect.Message) bool {
	found := false
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsExtension():
			found = true
		case fd.IsMap():
			if fd.MapValue().Message() != nil {
				v.Map().Range(func(_ protoreflect.MapKey, v protoreflect.Value) bool {
					found = hasGenExtension(v.Message())
					return !found
				})
			}
		case fd.Message() != nil && fd.IsList():
			for i := range v.List().Len() {
				if found = hasGenExtension(v.List().Get(i).Message()); found {
					break
				}
			}
		case fd.Message() != nil:
			found = hasGenExtension(v.Message())
		}
		return !found
	})
	return found
}

// wantMarshal holds the engine to proto.MarshalOptions{Deterministic:
// true} and proto.Size on m: it must encode m, appending to what the
// buffer holds, to the same bytes.
func wantMarshal(t *testing.T, st *engine.State, name string, m proto.Message) {
	t.Helper()
	want, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		t.Fatalf("%s: proto.Marshal: %v", name, err)
	}
	got, n, ok := st.Encode([]byte("prefix"), m, m.ProtoReflect(), &defaults)
	if !ok {
		t.Errorf("%s: left to the walk", name)
		return
	}
	if string(got[:6]) != "prefix" || !bytes.Equal(got[6:], want) || n != len(want) {
		t.Errorf("%s:\n got % x (%d)\nwant % x", name, got[6:], n, want)
	}
	size := defaults
	size.SizeOnly = true
	if _, n, ok := st.Encode(nil, m, m.ProtoReflect(), &size); !ok || n != proto.Size(m) {
		t.Errorf("%s: size %d %v, want %d", name, n, ok, proto.Size(m))
	}
}

// TestEncodesExtensions checks every kind of extension of the test
// schemas by hand, against proto.Marshal.
func TestEncodesExtensions(t *testing.T) {
	set := proto.SetExtension
	type build func(m *test2pb.TestAllExtensions)
	cases := []struct {
		name string
		set  build
	}{
		{"zero scalars", func(m *test2pb.TestAllExtensions) {
			set(m, test2pb.E_OptionalInt32Extension, int32(0))
			set(m, test2pb.E_OptionalInt64Extension, int64(0))
			set(m, test2pb.E_OptionalUint32Extension, uint32(0))
			set(m, test2pb.E_OptionalUint64Extension, uint64(0))
			set(m, test2pb.E_OptionalSint32Extension, int32(0))
			set(m, test2pb.E_OptionalSint64Extension, int64(0))
			set(m, test2pb.E_OptionalFixed32Extension, uint32(0))
			set(m, test2pb.E_OptionalFixed64Extension, uint64(0))
			set(m, test2pb.E_OptionalSfixed32Extension, int32(0))
			set(m, test2pb.E_OptionalSfixed64Extension, int64(0))
			set(m, test2pb.E_OptionalFloatExtension, float32(0))
			set(m, test2pb.E_OptionalDoubleExtension, float64(0))
			set(m, test2pb.E_OptionalBoolExtension, false)
			set(m, test2pb.E_OptionalStringExtension, "")
			set(m, test2pb.E_OptionalBytesExtension, []byte{})
			set(m, test2pb.E_OptionalClosedEnumExtension, test2pb.ClosedEnum(0))
			set(m, test2pb.E_OptionalNestedEnumExtension, test2pb.TestAllTypes_NestedEnum(0))
			set(m, test2pb.E_OptionalForeignEnumExtension, test2pb.ForeignEnum(0))
			set(m, test2pb.E_DefaultInt32Extension, int32(0))
			set(m, test2pb.E_DefaultStringExtension, "")
		}},
		{"scalars", func(m *test2pb.TestAllExtensions) {
			set(m, test2pb.E_OptionalInt32Extension, int32(-1))
			set(m, test2pb.E_OptionalInt64Extension, int64(-1<<40))
			set(m, test2pb.E_OptionalUint32Extension, uint32(1<<31))
			set(m, test2pb.E_OptionalUint64Extension, uint64(1<<63))
			set(m, test2pb.E_OptionalSint32Extension, int32(-300))
			set(m, test2pb.E_OptionalSint64Extension, int64(-1<<50))
			set(m, test2pb.E_OptionalFixed32Extension, uint32(7))
			set(m, test2pb.E_OptionalFixed64Extension, uint64(1<<60))
			set(m, test2pb.E_OptionalSfixed32Extension, int32(-7))
			set(m, test2pb.E_OptionalSfixed64Extension, int64(-1<<60))
			set(m, test2pb.E_OptionalFloatExtension, float32(1.5))
			set(m, test2pb.E_OptionalDoubleExtension, -2.25)
			set(m, test2pb.E_OptionalBoolExtension, true)
			set(m, test2pb.E_OptionalStringExtension, "héllo")
			set(m, test2pb.E_OptionalBytesExtension, []byte{0, 0xff})
			set(m, test2pb.E_OptionalClosedEnumExtension, test2pb.ClosedEnum(2))
			set(m, test2pb.E_OptionalNestedEnumExtension, test2pb.TestAllTypes_NestedEnum(-1))
			set(m, test2pb.E_OptionalForeignEnumExtension, test2pb.ForeignEnum(5))
			set(m, test2pb.E_DefaultBytesExtension, []byte(nil))
			set(m, test2pb.E_MaxNumberExtension, int32(9))
			set(m, test2pb.E_TestNestedExtension_NestedStringExtension, "nested")
		}},
		{"empty lists", func(m *test2pb.TestAllExtensions) {
			set(m, test2pb.E_RepeatedInt32Extension, []int32{})
			set(m, test2pb.E_PackedInt32Extension, []int32{})
			set(m, test2pb.E_RepeatedStringExtension, []string{})
			set(m, test2pb.E_RepeatedNestedMessageExtension, []*test2pb.TestAllTypes_NestedMessage{})
			set(m, test2pb.E_RepeatedgroupExtension, []*test2pb.RepeatedGroupExtension{})
		}},
		{"empty lists beside a set one", func(m *test2pb.TestAllExtensions) {
			set(m, test2pb.E_RepeatedInt32Extension, []int32{})
			set(m, test2pb.E_OptionalInt32Extension, int32(3))
			set(m, test2pb.E_PackedSint64Extension, []int64{})
		}},
		{"unpacked lists", func(m *test2pb.TestAllExtensions) {
			set(m, test2pb.E_RepeatedInt32Extension, []int32{0, -1, 1 << 20})
			set(m, test2pb.E_RepeatedInt64Extension, []int64{-1, 2})
			set(m, test2pb.E_RepeatedUint32Extension, []uint32{1 << 31})
			set(m, test2pb.E_RepeatedUint64Extension, []uint64{0, 1 << 63})
			set(m, test2pb.E_RepeatedSint32Extension, []int32{-1, 1})
			set(m, test2pb.E_RepeatedSint64Extension, []int64{-1 << 62})
			set(m, test2pb.E_RepeatedFixed32Extension, []uint32{1, 2})
			set(m, test2pb.E_RepeatedFixed64Extension, []uint64{3})
			set(m, test2pb.E_RepeatedSfixed32Extension, []int32{-4})
			set(m, test2pb.E_RepeatedSfixed64Extension, []int64{-5, 0})
			set(m, test2pb.E_RepeatedFloatExtension, []float32{0.5, -0})
			set(m, test2pb.E_RepeatedDoubleExtension, []float64{1e300})
			set(m, test2pb.E_RepeatedBoolExtension, []bool{true, false})
			set(m, test2pb.E_RepeatedStringExtension, []string{"", "a"})
			set(m, test2pb.E_RepeatedBytesExtension, [][]byte{nil, {1}})
			set(m, test2pb.E_RepeatedClosedEnumExtension, []test2pb.ClosedEnum{1, 2})
			set(m, test2pb.E_RepeatedNestedEnumExtension, []test2pb.TestAllTypes_NestedEnum{-1, 1})
		}},
		{"packed lists", func(m *test2pb.TestAllExtensions) {
			set(m, test2pb.E_PackedInt32Extension, []int32{0, -1, 1 << 20})
			set(m, test2pb.E_PackedInt64Extension, []int64{-1, 2})
			set(m, test2pb.E_PackedUint32Extension, []uint32{1 << 31})
			set(m, test2pb.E_PackedUint64Extension, []uint64{0, 1 << 63})
			set(m, test2pb.E_PackedSint32Extension, []int32{-1, 1})
			set(m, test2pb.E_PackedSint64Extension, []int64{-1 << 62})
			set(m, test2pb.E_PackedFixed32Extension, []uint32{1, 2})
			set(m, test2pb.E_PackedFixed64Extension, []uint64{3})
			set(m, test2pb.E_PackedSfixed32Extension, []int32{-4})
			set(m, test2pb.E_PackedSfixed64Extension, []int64{-5, 0})
			set(m, test2pb.E_PackedFloatExtension, []float32{0.5, -0})
			set(m, test2pb.E_PackedDoubleExtension, []float64{1e300})
			set(m, test2pb.E_PackedBoolExtension, []bool{true, false})
			set(m, test2pb.E_PackedNestedEnumExtension, []test2pb.TestAllTypes_NestedEnum{-1, 1})
		}},
		{"groups", func(m *test2pb.TestAllExtensions) {
			set(m, test2pb.E_OptionalgroupExtension, &test2pb.OptionalGroupExtension{A: proto.Int32(5)})
			set(m, test2pb.E_RepeatedgroupExtension, []*test2pb.RepeatedGroupExtension{{A: proto.Int32(1)}, {}})
		}},
		{"messages", func(m *test2pb.TestAllExtensions) {
			set(m, test2pb.E_OptionalNestedMessageExtension, &test2pb.TestAllTypes_NestedMessage{A: proto.Int32(1),
				Corecursive: &test2pb.TestAllTypes{OptionalString: proto.String("deep")}})
			set(m, test2pb.E_OptionalForeignMessageExtension, &test2pb.ForeignMessage{})
			set(m, test2pb.E_RepeatedNestedMessageExtension, []*test2pb.TestAllTypes_NestedMessage{{A: proto.Int32(2)}, {}})
			set(m, test2pb.E_RepeatedForeignMessageExtension, []*test2pb.ForeignMessage{{C: proto.Int32(3)}})
			set(m, test2pb.E_TestNestedExtension_NestedMessageExtension, []*test2pb.TestNestedExtension{{A: proto.Int32(4)}})
		}},
		{"messages holding extensions", func(m *test2pb.TestAllExtensions) {
			r := &test2pb.TestRequired{R2: proto.Int32(1), R5: proto.Int32(2)}
			set(r, test2pb.E_TestRequired_InnerExtension, &test2pb.TestRequired_Inner{X: proto.Int32(3)})
			set(r, test2pb.E_TestRequired_RepeatedInnerExtension, []*test2pb.TestRequired_Inner{{X: proto.Int32(4)}, {X: proto.Int32(5), Y: proto.Int32(6)}})
			set(m, test2pb.E_RequiredMessageExtension, r)
			set(m, test2pb.E_OptionalInt32Extension, int32(7))
		}},
		{"invalid UTF-8, not validated", func(m *test2pb.TestAllExtensions) {
			set(m, test2pb.E_OptionalStringExtension, "\xff")
			set(m, test2pb.E_RepeatedStringExtension, []string{"a", "\xc0"})
		}},
	}
	var st engine.State
	for _, c := range cases {
		m := &test2pb.TestAllExtensions{}
		c.set(m)
		wantMarshal(t, &st, c.name, m)
	}

	// The bytes of the first two by hand: a zero scalar is written, an
	// empty list is not.
	m := &test2pb.TestAllExtensions{}
	set(m, test2pb.E_OptionalInt32Extension, int32(0))
	set(m, test2pb.E_RepeatedInt32Extension, []int32{})
	if got, _, ok := st.Encode(nil, m, m.ProtoReflect(), &defaults); !ok || !bytes.Equal(got, []byte{0x08, 0x00}) {
		t.Errorf("a zero int32 and an empty list: % x %v, want 08 00", got, ok)
	}

	// Extensions come first, by number, before the fields.
	r := &test2pb.TestRequired{R2: proto.Int32(1), R5: proto.Int32(2), S: proto.String("s")}
	set(r, test2pb.E_TestRequired_RepeatedInnerExtension, []*test2pb.TestRequired_Inner{{X: proto.Int32(1)}})
	set(r, test2pb.E_TestRequired_InnerExtension, &test2pb.TestRequired_Inner{X: proto.Int32(2)})
	wantMarshal(t, &st, "extensions before fields", r)
	order := &test2pb.OneofOrder{Z: proto.Int32(1), B: proto.Int32(2), Second: &test2pb.OneofOrder_S9{S9: 3}}
	set(order, test2pb.E_OrderExt150, int32(4))
	set(order, test2pb.E_OrderExt101, int32(5))
	wantMarshal(t, &st, "OneofOrder", order)

	// Editions: delimited messages, expanded lists, strings never
	// validated.
	ed := &testeditionspb.TestAllExtensions{}
	set(ed, testeditionspb.E_DelimitedNestedMessageExtension, &testeditionspb.TestAllTypes_NestedMessage{A: proto.Int32(1)})
	set(ed, testeditionspb.E_RepeatedDelimitedNestedMessageExtension, []*testeditionspb.TestAllTypes_NestedMessage{{A: proto.Int32(2)}, {}})
	set(ed, testeditionspb.E_ExpandedSint32Extension, []int32{-1, 2})
	set(ed, testeditionspb.E_RepeatedSint32Extension, []int32{-1, 2})
	set(ed, testeditionspb.E_OptionalStringExtension, "\xff")
	set(ed, testeditionspb.E_Utf8NoneStringExtension, "\xfe")
	set(ed, testeditionspb.E_RepeatedStringExtension, []string{"\xfd"})
	set(ed, testeditionspb.E_FileDelimitedExtension, &testeditionspb.TestFileOverrides{})
	set(ed, testeditionspb.E_FileRepeatedStringExtension, []string{"\xfc"})
	wantMarshal(t, &st, "editions", ed)

	// Custom options of a proto3 file, valid UTF-8.
	opts := &descriptorpb.MessageOptions{Deprecated: proto.Bool(true)}
	set(opts, customoptionspb.E_OptInt32, int32(-7))
	set(opts, customoptionspb.E_OptString, "ok")
	set(opts, customoptionspb.E_OptRepeatedString, []string{"a", "b"})
	set(opts, customoptionspb.E_OptRepeatedInt32, []int32{1, 2})
	set(opts, customoptionspb.E_OptRepeatedSint32, []int32{-1, 2})
	set(opts, customoptionspb.E_OptMessage, &customoptionspb.OptionMessage{Name: "m", Tags: []string{"x"}})
	set(opts, customoptionspb.E_OptRepeatedMessage, []*customoptionspb.OptionMessage{{Value: 1}, {}})
	set(opts, customoptionspb.E_OptEnum, customoptionspb.OptionEnum_OPTION_NEG)
	set(opts, customoptionspb.E_OptBytes, []byte{})
	set(opts, customoptionspb.E_OptBool, false)
	file := &descriptorpb.DescriptorProto{Name: proto.String("M"), Options: opts}
	wantMarshal(t, &st, "custom options", file)
}

// extChange is a change made between the passes.
type extChange struct {
	name string
	// moves is set for a change the engine must give up on: a length
	// moves, or the set of extensions changes.
	moves  bool
	change func(m *test2pb.TestAllExtensions)
	// start builds the message changed (a default one when nil).
	start func() *test2pb.TestAllExtensions
}

// TestExtensionsChangedBetweenPasses changes extensions between the size
// and the write pass: the engine gives up when a length moves, and never
// writes a value the message no longer holds.
func TestExtensionsChangedBetweenPasses(t *testing.T) {
	set := proto.SetExtension
	base := func() *test2pb.TestAllExtensions {
		m := &test2pb.TestAllExtensions{}
		set(m, test2pb.E_OptionalInt32Extension, int32(1))
		set(m, test2pb.E_OptionalStringExtension, "abc")
		set(m, test2pb.E_PackedInt32Extension, []int32{1, 2})
		set(m, test2pb.E_RepeatedInt32Extension, []int32{1, 2})
		set(m, test2pb.E_OptionalNestedMessageExtension, &test2pb.TestAllTypes_NestedMessage{A: proto.Int32(1)})
		set(m, test2pb.E_RepeatedNestedMessageExtension, []*test2pb.TestAllTypes_NestedMessage{{A: proto.Int32(1)}})
		r := &test2pb.TestRequired{R2: proto.Int32(1), R5: proto.Int32(2)}
		set(r, test2pb.E_TestRequired_InnerExtension, &test2pb.TestRequired_Inner{X: proto.Int32(3)})
		set(m, test2pb.E_RequiredMessageExtension, r)
		return m
	}
	// withoutAny holds a message of an extendable type without
	// extensions, in an extension.
	withoutAny := func() *test2pb.TestAllExtensions {
		m := &test2pb.TestAllExtensions{}
		set(m, test2pb.E_RequiredMessageExtension, &test2pb.TestRequired{R2: proto.Int32(1), R5: proto.Int32(2)})
		return m
	}
	required := func(m *test2pb.TestAllExtensions) *test2pb.TestRequired {
		return proto.GetExtension(m, test2pb.E_RequiredMessageExtension).(*test2pb.TestRequired)
	}
	cases := []extChange{
		{name: "scalar, same size", change: func(m *test2pb.TestAllExtensions) { set(m, test2pb.E_OptionalInt32Extension, int32(2)) }},
		{name: "scalar, larger", moves: true, change: func(m *test2pb.TestAllExtensions) { set(m, test2pb.E_OptionalInt32Extension, int32(1<<30)) }},
		{name: "string, same size", change: func(m *test2pb.TestAllExtensions) { set(m, test2pb.E_OptionalStringExtension, "xyz") }},
		{name: "string, longer", moves: true, change: func(m *test2pb.TestAllExtensions) { set(m, test2pb.E_OptionalStringExtension, "abcd") }},
		{name: "extension added", moves: true, change: func(m *test2pb.TestAllExtensions) { set(m, test2pb.E_OptionalBoolExtension, true) }},
		{name: "extension cleared", moves: true, change: func(m *test2pb.TestAllExtensions) { proto.ClearExtension(m, test2pb.E_OptionalInt32Extension) }},
		{name: "extension swapped for one of the same size", moves: true, change: func(m *test2pb.TestAllExtensions) {
			proto.ClearExtension(m, test2pb.E_OptionalInt32Extension)
			set(m, test2pb.E_OptionalUint32Extension, uint32(1))
		}},
		{name: "packed element", moves: true, change: func(m *test2pb.TestAllExtensions) {
			proto.GetExtension(m, test2pb.E_PackedInt32Extension).([]int32)[0] = -1
		}},
		{name: "packed element, same size", change: func(m *test2pb.TestAllExtensions) {
			proto.GetExtension(m, test2pb.E_PackedInt32Extension).([]int32)[0] = 5
		}},
		{name: "packed list longer", moves: true, change: func(m *test2pb.TestAllExtensions) { set(m, test2pb.E_PackedInt32Extension, []int32{1, 2, 3}) }},
		{name: "unpacked list longer", moves: true, change: func(m *test2pb.TestAllExtensions) { set(m, test2pb.E_RepeatedInt32Extension, []int32{1, 2, 3}) }},
		{name: "list emptied", moves: true, change: func(m *test2pb.TestAllExtensions) { set(m, test2pb.E_RepeatedInt32Extension, []int32{}) }},
		{name: "message field", moves: true, change: func(m *test2pb.TestAllExtensions) {
			proto.GetExtension(m, test2pb.E_OptionalNestedMessageExtension).(*test2pb.TestAllTypes_NestedMessage).A = proto.Int32(1 << 20)
		}},
		{name: "message replaced, same size", change: func(m *test2pb.TestAllExtensions) {
			set(m, test2pb.E_OptionalNestedMessageExtension, &test2pb.TestAllTypes_NestedMessage{A: proto.Int32(9)})
		}},
		{name: "message replaced, larger", moves: true, change: func(m *test2pb.TestAllExtensions) {
			set(m, test2pb.E_OptionalNestedMessageExtension, &test2pb.TestAllTypes_NestedMessage{A: proto.Int32(1), Corecursive: &test2pb.TestAllTypes{}})
		}},
		{name: "message list longer", moves: true, change: func(m *test2pb.TestAllExtensions) {
			set(m, test2pb.E_RepeatedNestedMessageExtension, []*test2pb.TestAllTypes_NestedMessage{{}, {}})
		}},
		{name: "extension of a message in an extension cleared", moves: true, change: func(m *test2pb.TestAllExtensions) {
			proto.ClearExtension(required(m), test2pb.E_TestRequired_InnerExtension)
		}},
		{name: "extension set on a message without any", moves: true, start: withoutAny, change: func(m *test2pb.TestAllExtensions) {
			set(required(m), test2pb.E_TestRequired_InnerExtension, &test2pb.TestRequired_Inner{X: proto.Int32(3)})
		}},
		{name: "extension set on the top message without any", moves: true,
			start:  func() *test2pb.TestAllExtensions { return &test2pb.TestAllExtensions{} },
			change: func(m *test2pb.TestAllExtensions) { set(m, test2pb.E_OptionalInt32Extension, int32(1)) }},
	}
	var st engine.State
	defer engine.SetGenBetweenPasses(nil)
	for _, c := range cases {
		m := base()
		if c.start != nil {
			m = c.start()
		}
		engine.SetGenBetweenPasses(func() { c.change(m) })
		out, _, ok := st.Encode(nil, m, m.ProtoReflect(), &defaults)
		engine.SetGenBetweenPasses(nil)
		switch {
		case ok && c.moves:
			t.Errorf("%s: encoded % x, want it left to the walk", c.name, out)
		case !ok && !c.moves:
			t.Errorf("%s: left to the walk", c.name)
		case ok:
			want, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out, want) {
				t.Errorf("%s: encoded\n% x\nwant what the message holds now\n% x", c.name, out, want)
			}
		}
	}
}

// TestHoldsNoExtension checks that a State keeps no reference to the
// extensions of the messages it encoded.
func TestHoldsNoExtension(t *testing.T) {
	var st engine.State
	value := &test2pb.TestAllTypes_NestedMessage{A: proto.Int32(1)}
	gone := make(chan struct{})
	runtime.AddCleanup(value, func(c chan struct{}) { close(c) }, gone)
	m := &test2pb.TestAllExtensions{}
	proto.SetExtension(m, test2pb.E_OptionalNestedMessageExtension, value)
	if _, _, ok := st.Encode(nil, m, m.ProtoReflect(), &defaults); !ok {
		t.Fatal("left to the walk")
	}
	value, m = nil, nil
	for range 50 {
		runtime.GC()
		select {
		case <-gone:
			runtime.KeepAlive(&st)
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Error("the extension's message is still reachable after the call")
	runtime.KeepAlive(&st)
}
