package encoder_test

// One test per item of the must-match checklist in docs/semantics.md#checklist,
// named after the item's number (TestChecklist14... checks
// docs/semantics.md#item-14, whose text says what it checks). Each builds
// the case on generated types, derives the dynamicpb twin from the
// runtime-loaded schema, and holds protolayout to proto.Marshal's bytes and
// errors.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/protobuftest"
	"github.com/protolayout/protolayout/protobuftest/gen/customoptionspb"
	"github.com/protolayout/protolayout/protobuftest/gen/test2pb"
	"github.com/protolayout/protolayout/protobuftest/gen/test3pb"
	"github.com/protolayout/protolayout/protobuftest/gen/testeditionspb"
)

var det = proto.MarshalOptions{Deterministic: true}

// dynOf returns the dynamicpb twin of the generated message gen: the same
// content in a message of the runtime-loaded schema.
func dynOf(t testing.TB, gen proto.Message) proto.Message {
	t.Helper()
	return protobuftest.DynamicTwin(gen)
}

// same holds protolayout to the reference on gen, its dynamic twins
// (dynamicpb and *dynamic.Message) and its hybrid and Opaque API twins
// (see apiTwins), in both modes.
func same(t *testing.T, gen proto.Message) {
	t.Helper()
	d, dm := dynOf(t, gen), protobuftest.DynamicMessageTwin(gen)
	generated := append([]proto.Message{gen}, apiTwins(gen)...)
	for _, o := range []protobuftest.CheckOptions{{Deterministic: true}, {}} {
		protobuftest.Equivalent(t, o, nil, generated...)
		protobuftest.Equivalent(t, o, protobuftest.DynamicTypes(), d)
		protobuftest.Equivalent(t, o, protobuftest.DynamicMessageTypes(), dm)
	}
}

// apiTwins returns the hybrid and Opaque API twins of gen, a valid message
// of an open generated test type, copied through protoreflect; nil when
// gen's schema has no such copies (customoptions, descriptorpb, the
// well-known types) or gen is not valid.
func apiTwins(gen proto.Message) []proto.Message {
	mr := gen.ProtoReflect()
	name := protobuftest.VariantName(mr.Descriptor().FullName(), protobuftest.APIHybrid)
	if _, err := protoregistry.GlobalTypes.FindMessageByName(name); err != nil || !mr.IsValid() {
		return nil
	}
	return []proto.Message{
		protobuftest.VariantTwin(gen, protobuftest.APIHybrid),
		protobuftest.VariantTwin(gen, protobuftest.APIOpaque),
	}
}

// numbers lists the top-level field numbers of b in order.
func numbers(t testing.TB, b []byte) []protowire.Number {
	t.Helper()
	var out []protowire.Number
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			t.Fatalf("bad tag in % x", b)
		}
		b = b[n:]
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			t.Fatalf("bad value for field %d", num)
		}
		b = b[n:]
		out = append(out, num)
	}
	return out
}

func mustMarshal(t testing.TB, o encoder.MarshalOptions, m proto.Message) []byte {
	t.Helper()
	b, err := o.Marshal(m)
	if err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	return b
}

func hasNumbers(t *testing.T, m proto.Message, want ...protowire.Number) {
	t.Helper()
	for _, x := range []proto.Message{m, dynOf(t, m), protobuftest.DynamicMessageTwin(m)} {
		if got := numbers(t, mustMarshal(t, encoder.MarshalOptions{}, x)); !slices.Equal(got, want) {
			t.Errorf("%T: field order %v, want %v", x, got, want)
		}
	}
}

func oneofOrderAll() *test2pb.OneofOrder {
	m := &test2pb.OneofOrder{
		Z: proto.Int32(30), A: proto.Int32(20), B: proto.Int32(10), After: proto.Int32(200),
		Second: &test2pb.OneofOrder_S9{S9: 9},
		First:  &test2pb.OneofOrder_F3{F3: 3},
	}
	proto.SetExtension(m, test2pb.E_OrderExt150, int32(150))
	proto.SetExtension(m, test2pb.E_OrderExt101, int32(101))
	return m
}

func TestChecklist01ExtensionsFirstAscending(t *testing.T) {
	m := oneofOrderAll()
	hasNumbers(t, m, 101, 150, 10, 20, 30, 200, 9, 3)
	same(t, m)
}

func TestChecklist02FieldsAscendingProto3OptionalIsRegular(t *testing.T) {
	m := &test3pb.TestAllTypes{
		OptionalInt32:  proto.Int32(0), // 81, a proto3 optional (synthetic oneof)
		SingularInt32:  5,              // 1
		RepeatedString: []string{"a"},  // 44
		OneofField:     &test3pb.TestAllTypes_OneofUint32{OneofUint32: 7},
		OneofSecond:    &test3pb.TestAllTypes_OneofSecondInt32{OneofSecondInt32: 1},
		Timestamp:      nil,
		SingularString: "s", // 14
	}
	hasNumbers(t, m, 1, 14, 44, 81, 111, 120)
	same(t, m)
}

func TestChecklist03OneofsByDeclarationIndex(t *testing.T) {
	m := &test2pb.TestAllTypes{
		OneofField:    &test2pb.TestAllTypes_OneofClosedEnum{OneofClosedEnum: test2pb.ClosedEnum_CLOSED_TWO}, // 122, oneof 0
		OneofOptional: &test2pb.TestAllTypes_OneofOptionalUint32{OneofOptionalUint32: 1},                     // 120, oneof 1
	}
	hasNumbers(t, m, 122, 120)
	same(t, m)
}

func TestChecklist04UnknownLastVerbatim(t *testing.T) {
	m := &test3pb.TestAllTypes{SingularInt32: 1}
	m.ProtoReflect().SetUnknown(protowire.AppendTag(protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), 9), 99999, protowire.VarintType))
	m.ProtoReflect().SetUnknown(append(m.ProtoReflect().GetUnknown(), 0x05))
	// Known field 1 and an unknown field 1 both appear; the unknown bytes
	// (including the dangling tail) come last, untouched.
	for _, x := range []proto.Message{m, dynOf(t, &test3pb.TestAllTypes{SingularInt32: 1})} {
		x.ProtoReflect().SetUnknown(m.ProtoReflect().GetUnknown())
		got := mustMarshal(t, encoder.MarshalOptions{}, x)
		want, _ := det.Marshal(x)
		if !bytes.Equal(got, want) || !bytes.HasSuffix(got, m.ProtoReflect().GetUnknown()) {
			t.Errorf("%T: % x, want % x", x, got, want)
		}
	}
	// Garbage is appended as is.
	g := &test2pb.ForeignMessage{C: proto.Int32(1)}
	g.ProtoReflect().SetUnknown(protoreflect.RawFields{0xff, 0xff, 0xff})
	got := mustMarshal(t, encoder.MarshalOptions{}, g)
	if want, _ := det.Marshal(g); !bytes.Equal(got, want) {
		t.Errorf("garbage unknown: % x, want % x", got, want)
	}
}

func TestChecklist05UnresolvedExtensionsAreUnknown(t *testing.T) {
	m := &test2pb.TestAllExtensions{}
	proto.SetExtension(m, test2pb.E_OptionalInt32Extension, int32(5))
	proto.SetExtension(m, test2pb.E_MaxNumberExtension, int32(1))
	b, _ := det.Marshal(m)
	// Decoded without a resolver, the extensions are unknown bytes.
	for _, x := range []proto.Message{&test2pb.TestAllExtensions{}, protobuftest.TwinByName("protolayout.test2.TestAllExtensions").Dyn.New().Interface()} {
		if err := (proto.UnmarshalOptions{Resolver: new(protoregistry.Types)}).Unmarshal(b, x); err != nil {
			t.Fatal(err)
		}
		if len(x.ProtoReflect().GetUnknown()) != len(b) {
			t.Fatalf("extensions were resolved")
		}
		got := mustMarshal(t, encoder.MarshalOptions{}, x)
		if !bytes.Equal(got, b) {
			t.Errorf("%T: % x, want % x", x, got, b)
		}
	}
}

func TestChecklist06NotRangeOrder(t *testing.T) {
	g := &test2pb.TestAllTypes{}
	protobuftest.Fill(g.ProtoReflect(), 6, protobuftest.RandOptions{MaxDepth: 2})
	d := dynOf(t, g)
	want, _ := det.Marshal(g)
	canon := protobuftest.CanonicalMaps(want, g)
	for range 50 {
		if got := mustMarshal(t, encoder.MarshalOptions{Deterministic: true}, d); !bytes.Equal(got, want) {
			t.Fatal("dynamic output differs from the reference order")
		}
		// Without Deterministic only map entries may move.
		if got := mustMarshal(t, encoder.MarshalOptions{}, d); !bytes.Equal(protobuftest.CanonicalMaps(got, g), canon) {
			t.Fatal("dynamic output differs from the reference order beyond map entries")
		}
	}
}

func TestChecklist07RepeatedContiguousInOrder(t *testing.T) {
	m := &test2pb.TestAllTypes{
		RepeatedInt32:  []int32{3, 1, 2},
		RepeatedString: []string{"z", "a"},
		RepeatedNestedMessage: []*test2pb.TestAllTypes_NestedMessage{
			{A: proto.Int32(2)}, {A: proto.Int32(1)},
		},
	}
	hasNumbers(t, m, 31, 31, 31, 44, 44, 48, 48)
	same(t, m)
}

func TestChecklist08DeterministicMapKeyOrder(t *testing.T) {
	m := &test3pb.TestAllTypes{
		MapInt32Int32:     map[int32]int32{-100: 1, -1: 2, 0: 3, 5: 4},
		MapUint64Uint64:   map[uint64]uint64{0: 1, 7: 2, math.MaxUint64: 3},
		MapStringString:   map[string]string{"": "", "Z": "1", "a": "2", "b": "3", "é": "4"},
		MapBoolBool:       map[bool]bool{true: false, false: true},
		MapSint64Sint64:   map[int64]int64{math.MinInt64: 1, math.MaxInt64: 2, 0: 0},
		MapFixed32Fixed32: map[uint32]uint32{math.MaxUint32: 1, 1: 2},
		MapSfixed64Sfixed64: map[int64]int64{
			-1: 1, 1: 1,
		},
	}
	same(t, m)
}

// Keys that a sort by the first eight bytes alone would misorder: shared
// prefixes longer than eight bytes, embedded NUL bytes, a key that is a
// prefix of another, non-ASCII bytes, and the numeric extremes; 40 of
// each, so the sort partitions rather than inserting.
func TestDeterministicMapKeysTricky(t *testing.T) {
	m := &test3pb.TestAllTypes{
		MapStringString:     map[string]string{},
		MapInt32Int32:       map[int32]int32{math.MinInt32: 1, math.MaxInt32: 2, -1: 3, 0: 4, 1: 5},
		MapInt64Int64:       map[int64]int64{math.MinInt64: 1, math.MaxInt64: 2, -1: 3, 0: 4},
		MapUint64Uint64:     map[uint64]uint64{math.MaxUint64: 1, 1 << 63: 2, 0: 3},
		MapSfixed32Sfixed32: map[int32]int32{math.MinInt32: 1, -2: 2, 2: 3},
	}
	for _, k := range []string{"", "\x00", "\x00\x00", "a", "a\x00", "a\x00b", "ab", "abcdefgh", "abcdefgh\x00",
		"abcdefghi", "abcdefgha", "abcdefg", "abcdefgh" + strings.Repeat("z", 20), "é", "\u00e9a", "zzzzzzzzzz"} {
		m.MapStringString[k] = "v"
	}
	for i := range 40 {
		m.MapStringString["shared-prefix-"+strconv.Itoa(i*7919%1000)] = "w"
		m.MapInt32Int32[int32(i*104729)-1<<20] = int32(i)
		m.MapInt64Int64[int64(i)*-3_000_000_007] = int64(i)
		m.MapUint64Uint64[uint64(i)*0x9e3779b97f4a7c15] = uint64(i)
	}
	same(t, m)
}

func TestChecklist09NonDeterministicMapsAnyOrder(t *testing.T) {
	m := &test3pb.TestAllTypes{MapStringString: map[string]string{"b": "1", "a": "2", "c": "3"}}
	want, _ := det.Marshal(m)
	// Any order is allowed: as in proto.Marshal, the entries come in the
	// order the map yields them, which Go varies from one call to the
	// next (a small map starts at a random entry: three orders here).
	for _, o := range []encoder.MarshalOptions{{Checked: true}, {}} {
		for _, x := range []proto.Message{m, dynOf(t, m)} {
			orders := make(map[string]bool)
			for range 200 {
				got := mustMarshal(t, o, x)
				if !bytes.Equal(protobuftest.CanonicalMaps(got, m), protobuftest.CanonicalMaps(want, m)) {
					t.Fatalf("%T (checked %v): % x, want % x up to entry order", x, o.Checked, got, want)
				}
				orders[string(got)] = true
			}
			if len(orders) < 2 {
				t.Errorf("%T (checked %v): one order in 200 calls", x, o.Checked)
			}
		}
	}
}

func TestChecklist10MapEntryKeyAndValueAlwaysWritten(t *testing.T) {
	m := &test3pb.TestAllTypes{
		MapInt32Int32:           map[int32]int32{0: 0},
		MapStringString:         map[string]string{"": ""},
		MapStringBytes:          map[string][]byte{"a": nil},
		MapStringNestedEnum:     map[string]test3pb.TestAllTypes_NestedEnum{"e": 0},
		MapStringNestedMessage:  map[string]*test3pb.TestAllTypes_NestedMessage{"m": {}},
		MapSint32NestedMessage:  map[int32]*test3pb.TestAllTypes_NestedMessage{0: {}},
		MapStringForeignMessage: map[string]*test3pb.ForeignMessage{"": {}},
	}
	got := mustMarshal(t, encoder.MarshalOptions{}, &test3pb.TestAllTypes{MapInt32Int32: map[int32]int32{0: 0}})
	if want := []byte{0x9a, 0x08, 0x04, 0x08, 0x00, 0x10, 0x00}; !bytes.Equal(got, want) {
		t.Errorf("{0:0}: % x, want % x", got, want)
	}
	same(t, m)
}

func TestChecklist11ImplicitZeroSkipped(t *testing.T) {
	m := &test3pb.TestAllTypes{SingularNestedEnum: 0, SingularBytes: []byte{}, SingularString: "", SingularBool: false}
	if got := mustMarshal(t, encoder.MarshalOptions{}, m); len(got) != 0 {
		t.Errorf("zero values written: % x", got)
	}
	e := &testeditionspb.TestAllTypes{ImplicitInt32: 0, ImplicitBytes: []byte{}, ImplicitNestedEnum: 0}
	if got := mustMarshal(t, encoder.MarshalOptions{}, e); len(got) != 0 {
		t.Errorf("editions IMPLICIT zero values written: % x", got)
	}
	same(t, m)
	same(t, e)
}

func TestChecklist12ImplicitFloatOnlyPositiveZeroSkipped(t *testing.T) {
	negZero := math.Copysign(0, -1)
	for _, c := range []struct {
		m     proto.Message
		empty bool
	}{
		{&test3pb.TestAllTypes{SingularDouble: 0}, true},
		{&test3pb.TestAllTypes{SingularDouble: negZero}, false},
		{&test3pb.TestAllTypes{SingularFloat: float32(negZero)}, false},
		{&test3pb.TestAllTypes{SingularDouble: math.NaN()}, false},
		{&test3pb.TestAllTypes{SingularFloat: float32(math.NaN())}, false},
		{&testeditionspb.TestAllTypes{ImplicitDouble: negZero}, false},
	} {
		got := mustMarshal(t, encoder.MarshalOptions{}, c.m)
		if (len(got) == 0) != c.empty {
			t.Errorf("%v: % x", c.m, got)
		}
		want, _ := det.Marshal(c.m)
		if !bytes.Equal(got, want) {
			t.Errorf("%v: % x, want % x", c.m, got, want)
		}
		d := dynOf(t, c.m)
		if got := mustMarshal(t, encoder.MarshalOptions{}, d); !bytes.Equal(got, want) {
			t.Errorf("dynamic %v: % x, want % x", c.m, got, want)
		}
	}
}

func TestChecklist13ExplicitPresenceAlwaysWritten(t *testing.T) {
	m := &test2pb.TestAllTypes{
		OptionalInt32: proto.Int32(0), OptionalString: proto.String(""), OptionalBytes: []byte{},
		DefaultInt32: proto.Int32(-41), DefaultString: proto.String("hello \"world\" é"),
		DefaultDoubleNan: proto.Float64(math.NaN()),
	}
	hasNumbers(t, m, 1, 14, 15, 81, 94, 101)
	same(t, m)
	p3 := &test3pb.TestAllTypes{OptionalInt32: proto.Int32(0)}
	if got := mustMarshal(t, encoder.MarshalOptions{}, p3); !bytes.Equal(got, []byte{0x88, 0x05, 0x00}) {
		t.Errorf("proto3 optional 0: % x", got)
	}
	same(t, p3)
	e := &testeditionspb.TestAllTypes{OptionalString: proto.String("")}
	same(t, e)
}

func TestChecklist14Proto3ExtensionsHavePresence(t *testing.T) {
	m := &descriptorpb.MessageOptions{}
	proto.SetExtension(m, customoptionspb.E_OptInt32, int32(0))
	got := mustMarshal(t, encoder.MarshalOptions{}, m)
	want, _ := det.Marshal(m)
	if !bytes.Equal(got, want) || len(got) == 0 {
		t.Errorf("% x, want % x", got, want)
	}
	same(t, m) // the checked walk and the dynamic twin too
}

func TestChecklist15UnsetDefaultsNotWritten(t *testing.T) {
	for _, m := range []proto.Message{&test2pb.TestAllTypes{}, &testeditionspb.TestAllTypes{}, &test2pb.TestAllExtensions{}} {
		if got := mustMarshal(t, encoder.MarshalOptions{}, m); len(got) != 0 {
			t.Errorf("%T: % x", m, got)
		}
		if got := mustMarshal(t, encoder.MarshalOptions{}, dynOf(t, m)); len(got) != 0 {
			t.Errorf("dynamic %T: % x", m, got)
		}
	}
}

func TestChecklist16OneofZeroWritten(t *testing.T) {
	for _, m := range []proto.Message{
		&test3pb.TestAllTypes{OneofField: &test3pb.TestAllTypes_OneofUint32{}},
		&test3pb.TestAllTypes{OneofField: &test3pb.TestAllTypes_OneofString{}},
		&test3pb.TestAllTypes{OneofField: &test3pb.TestAllTypes_OneofBytes{}},
		&test3pb.TestAllTypes{OneofField: &test3pb.TestAllTypes_OneofNestedMessage{OneofNestedMessage: &test3pb.TestAllTypes_NestedMessage{}}},
		&test3pb.TestAllTypes{OneofField: &test3pb.TestAllTypes_OneofEnum{}},
		&test3pb.TestAllTypes{OneofField: &test3pb.TestAllTypes_OneofFloat{}},
	} {
		if got := mustMarshal(t, encoder.MarshalOptions{}, m); len(got) == 0 {
			t.Errorf("%v: nothing written", m)
		}
		same(t, m)
	}
}

func TestChecklist17NilMessagesAreEmpty(t *testing.T) {
	cases := []proto.Message{
		&test3pb.TestAllTypes{OneofField: &test3pb.TestAllTypes_OneofNestedMessage{}},                    // nil in a oneof wrapper
		&test3pb.TestAllTypes{RepeatedNestedMessage: []*test3pb.TestAllTypes_NestedMessage{nil, {A: 1}}}, // nil element
		&test3pb.TestAllTypes{MapStringNestedMessage: map[string]*test3pb.TestAllTypes_NestedMessage{"k": nil}},
		&test2pb.TestAllTypes{OneofField: &test2pb.TestAllTypes_Oneofgroup{}},
	}
	for _, m := range cases {
		got := mustMarshal(t, encoder.MarshalOptions{}, m)
		want, _ := det.Marshal(m)
		if !bytes.Equal(got, want) {
			t.Errorf("%v: % x, want % x", m, got, want)
		}
		if n := encoder.Size(m); n != len(want) {
			t.Errorf("%v: Size %d, want %d", m, n, len(want))
		}
		// The checked walk reads the nil messages through protoreflect.
		if got := mustMarshal(t, encoder.MarshalOptions{Checked: true}, m); !bytes.Equal(got, want) {
			t.Errorf("%v, checked: % x, want % x", m, got, want)
		}
		same(t, m)
	}
	// The typed-nil wrapper itself is "not set".
	var w *test3pb.TestAllTypes_OneofNestedMessage
	m := &test3pb.TestAllTypes{OneofField: w}
	for _, o := range []encoder.MarshalOptions{{}, {Checked: true}} {
		if got := mustMarshal(t, o, m); len(got) != 0 {
			t.Errorf("%+v: typed-nil oneof wrapper written: % x", o, got)
		}
	}
}

func TestChecklist18EmptyCollectionsWriteNothing(t *testing.T) {
	m := &test3pb.TestAllTypes{RepeatedInt32: []int32{}, MapStringString: map[string]string{}, RepeatedNestedMessage: []*test3pb.TestAllTypes_NestedMessage{}}
	x := &test2pb.TestAllExtensions{}
	proto.SetExtension(x, test2pb.E_PackedInt32Extension, []int32{})
	proto.SetExtension(x, test2pb.E_RepeatedStringExtension, []string{})
	for _, o := range []encoder.MarshalOptions{{}, {Checked: true}} {
		if got := mustMarshal(t, o, m); len(got) != 0 {
			t.Errorf("%+v: % x", o, got)
		}
		if got := mustMarshal(t, o, x); len(got) != 0 {
			t.Errorf("%+v: empty repeated extensions: % x", o, got)
		}
	}
	// Empty collections built through protoreflect on the dynamic twin
	// (Mutable on a list or map stores it, empty).
	d := protobuftest.TwinByName("protolayout.test3.TestAllTypes").Dyn.New()
	for _, name := range []protoreflect.Name{"repeated_int32", "map_string_string", "repeated_nested_message"} {
		d.Mutable(d.Descriptor().Fields().ByName(name))
	}
	if got := mustMarshal(t, encoder.MarshalOptions{}, d.Interface()); len(got) != 0 {
		t.Errorf("dynamic: % x", got)
	}
}

func TestChecklist19PackedIffPackedAndNonEmpty(t *testing.T) {
	p3 := &test3pb.TestAllTypes{RepeatedInt32: []int32{1, -1, 300}, UnpackedInt32: []int32{1, 2}, RepeatedDouble: []float64{1.5}}
	hasNumbers(t, p3, 31, 42, 61, 61)
	same(t, p3)
	p2 := &test2pb.TestAllTypes{RepeatedInt32: []int32{1, 2}, PackedInt32: []int32{1, 2}, PackedSint64: []int64{-1, math.MinInt64}, PackedBool: []bool{true, false}, PackedClosedEnum: []test2pb.ClosedEnum{test2pb.ClosedEnum_CLOSED_NEG}}
	hasNumbers(t, p2, 31, 31, 61, 66, 73, 75)
	same(t, p2)
	e := &testeditionspb.TestAllTypes{ExpandedInt32: []int32{1, 2}, RepeatedInt32: []int32{1, 2}}
	same(t, e)
	x := &test2pb.TestAllExtensions{}
	proto.SetExtension(x, test2pb.E_PackedSint32Extension, []int32{-5, 5})
	proto.SetExtension(x, test2pb.E_RepeatedSint32Extension, []int32{-5, 5})
	same(t, x)
}

func TestChecklist20NeverPackedKinds(t *testing.T) {
	m := &test3pb.TestAllTypes{RepeatedString: []string{"a", "b"}, RepeatedBytes: [][]byte{nil, {1}}, RepeatedForeignMessage: []*test3pb.ForeignMessage{{}, {C: 1}}}
	hasNumbers(t, m, 44, 44, 45, 45, 49, 49)
	same(t, m)
}

func TestChecklist21Groups(t *testing.T) {
	m := &test2pb.TestAllTypes{
		Optionalgroup: &test2pb.TestAllTypes_OptionalGroup{},
		Repeatedgroup: []*test2pb.TestAllTypes_RepeatedGroup{{A: proto.Int32(1)}, {}},
	}
	got := mustMarshal(t, encoder.MarshalOptions{}, &test2pb.TestAllTypes{Optionalgroup: &test2pb.TestAllTypes_OptionalGroup{}})
	if want := []byte{0x83, 0x01, 0x84, 0x01}; !bytes.Equal(got, want) {
		t.Errorf("empty group: % x, want % x", got, want)
	}
	same(t, m)
	e := &testeditionspb.TestAllTypes{
		DelimitedNestedMessage:         &testeditionspb.TestAllTypes_NestedMessage{A: proto.Int32(1)},
		RepeatedDelimitedNestedMessage: []*testeditionspb.TestAllTypes_NestedMessage{{}, {A: proto.Int32(2)}},
	}
	same(t, e)
}

func TestChecklist22NegativeVarints(t *testing.T) {
	m := &test3pb.TestAllTypes{SingularInt32: -1, SingularNestedEnum: test3pb.TestAllTypes_NEG}
	got := mustMarshal(t, encoder.MarshalOptions{}, &test3pb.TestAllTypes{SingularInt32: -1})
	if want := []byte{0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}; !bytes.Equal(got, want) {
		t.Errorf("int32 -1: % x", got)
	}
	same(t, m)
}

func TestChecklist23ZigZag(t *testing.T) {
	same(t, &test3pb.TestAllTypes{SingularSint32: -1, SingularSint64: math.MinInt64, RepeatedSint32: []int32{math.MinInt32, math.MaxInt32}})
}

func TestChecklist24FixedAndBool(t *testing.T) {
	same(t, &test3pb.TestAllTypes{
		SingularFixed32: math.MaxUint32, SingularSfixed32: -2, SingularFloat: 1.5,
		SingularFixed64: math.MaxUint64, SingularSfixed64: math.MinInt64, SingularDouble: math.Inf(-1),
		SingularBool: true, RepeatedBool: []bool{false, true},
	})
}

func TestChecklist25EnumsVerbatim(t *testing.T) {
	m := &test2pb.TestAllTypes{
		OptionalClosedEnum:  test2pb.ClosedEnum(99).Enum(),
		RepeatedClosedEnum:  []test2pb.ClosedEnum{77, test2pb.ClosedEnum_CLOSED_NEG},
		OptionalForeignEnum: test2pb.ForeignEnum(-7).Enum(),
	}
	same(t, m)
	same(t, &test3pb.TestAllTypes{SingularNestedEnum: 12345, RepeatedNestedEnum: []test3pb.TestAllTypes_NestedEnum{-3, 0}})
}

func TestChecklist26MinimalTagsUpToMaxNumber(t *testing.T) {
	m := &test3pb.TestFieldNumbers{
		F1: 1, F15: 1, F16: 1, F2047: "a", F2048: "b", F262143: []byte{1}, F262144: []byte{2},
		F33554431: &test3pb.TestFieldNumbers{F1: 1}, F33554432: 1, F536870910: []int32{1},
		F536870909: map[int32]string{1: "x"}, Choice: &test3pb.TestFieldNumbers_F18999{F18999: -1},
		F536870911: proto.Uint64(1),
	}
	same(t, m)
	// A 300-byte string crosses the one-byte length prefix.
	same(t, &test3pb.TestFieldNumbers{F2048: strings.Repeat("é", 150)})
}

func invalidUTF8Cases() []proto.Message {
	bad := "a\xffb"
	return []proto.Message{
		&test3pb.TestAllTypes{SingularString: bad},
		&test3pb.TestAllTypes{OptionalString: proto.String(bad)},
		&test3pb.TestAllTypes{OneofField: &test3pb.TestAllTypes_OneofString{OneofString: bad}},
		&test3pb.TestAllTypes{RepeatedString: []string{"ok", bad}},
		&test3pb.TestAllTypes{MapStringString: map[string]string{bad: "v"}},
		&test3pb.TestAllTypes{MapStringString: map[string]string{"k": bad}},
		&test3pb.TestAllTypes{SingularNestedMessage: &test3pb.TestAllTypes_NestedMessage{Corecursive: &test3pb.TestAllTypes{SingularString: bad}}},
		&testeditionspb.TestAllTypes{OptionalString: proto.String(bad)},
		&testeditionspb.TestAllTypes{RepeatedString: []string{bad}},
	}
}

func TestChecklist27UTF8ValidatedIffSchemaAsks(t *testing.T) {
	bad := "a\xffb"
	for _, m := range invalidUTF8Cases()[:1] {
		expectError(t, m, encoder.ErrInvalidUTF8)
	}
	// proto2 and editions NONE: never validated.
	for _, m := range []proto.Message{
		&test2pb.TestAllTypes{OptionalString: proto.String(bad), RepeatedString: []string{bad}, MapStringString: map[string]string{bad: bad}},
		&testeditionspb.TestAllTypes{Utf8NoneString: proto.String(bad), Utf8NoneRepeatedString: []string{bad}, Utf8NoneMapStringString: map[string]string{bad: bad}},
	} {
		same(t, m)
	}
}

// expectError checks that proto.Marshal and protolayout both fail on m,
// its dynamic twin and its hybrid and Opaque API twins, with protolayout's
// error wrapping want and proto.Error and appending nothing.
func expectError(t *testing.T, m proto.Message, want error) {
	t.Helper()
	for _, x := range append([]proto.Message{m, dynOf(t, m)}, apiTwins(m)...) {
		if _, err := det.Marshal(x); err == nil {
			t.Errorf("%T %v: proto.Marshal succeeded", x, x)
		}
		prefix := []byte{1, 2, 3}
		b, err := encoder.MarshalOptions{}.MarshalAppend(prefix, x)
		if !errors.Is(err, want) || !errors.Is(err, proto.Error) {
			t.Errorf("%T %v: err %v, want %v", x, x, err, want)
		}
		if !bytes.Equal(b, prefix) {
			t.Errorf("%T: buffer changed on error: % x", x, b)
		}
		if b, err := encoder.Marshal(x); b != nil || err == nil {
			t.Errorf("%T: Marshal returned % x, %v", x, b, err)
		}
	}
}

func TestChecklist28UTF8ValidationEverywhere(t *testing.T) {
	for _, m := range invalidUTF8Cases() {
		expectError(t, m, encoder.ErrInvalidUTF8)
	}
	// Singular string extension of a proto3 file.
	x := &descriptorpb.MessageOptions{}
	proto.SetExtension(x, customoptionspb.E_OptString, "a\xffb")
	if _, err := encoder.Marshal(x); !errors.Is(err, encoder.ErrInvalidUTF8) {
		t.Errorf("proto3 string extension: %v", err)
	}
	if _, err := det.Marshal(x); err == nil {
		t.Error("proto.Marshal accepted it")
	}
}

// The decision recorded in the package doc: a repeated string extension of
// a proto3 file is validated, as proto.Marshal does for dynamic messages
// (the generated fast path skips it).
func TestChecklist29RepeatedStringExtensionValidated(t *testing.T) {
	x := &descriptorpb.MessageOptions{}
	proto.SetExtension(x, customoptionspb.E_OptRepeatedString, []string{"a\xffb"})
	if _, err := det.Marshal(x); err != nil {
		t.Fatalf("fast path no longer skips it: %v (revisit the decision)", err)
	}
	for _, o := range []encoder.MarshalOptions{{}, {Checked: true}} {
		if _, err := o.Marshal(x); !errors.Is(err, encoder.ErrInvalidUTF8) {
			t.Errorf("generated, %+v: %v, want ErrInvalidUTF8", o, err)
		}
	}
	// The generated fast path (MarshalOptions.Unchecked) keeps its own
	// behaviour, as documented there.
	if _, err := (encoder.MarshalOptions{Unchecked: true}).Marshal(x); err != nil {
		t.Errorf("generated, fast path: %v", err)
	}
	// The dynamic twin, through proto.Marshal's reflection path, fails too.
	d := dynamicpb.NewMessage(x.ProtoReflect().Descriptor())
	xd, err := protobuftest.DynamicTypes().FindExtensionByName("protolayout.customoptions.opt_repeated_string")
	if err != nil {
		t.Fatal(err)
	}
	d.Mutable(xd.TypeDescriptor()).List().Append(protoreflect.ValueOfString("a\xffb"))
	if _, err := det.Marshal(d); err == nil {
		t.Error("proto.Marshal accepted the dynamic form")
	}
	if _, err := encoder.Marshal(d); !errors.Is(err, encoder.ErrInvalidUTF8) {
		t.Errorf("dynamic: %v, want ErrInvalidUTF8", err)
	}
}

func TestChecklist30ErrorsAreProtoErrors(t *testing.T) {
	for _, m := range []proto.Message{
		&test3pb.TestAllTypes{SingularString: "\xff"},
		&test2pb.TestRequired{},
	} {
		_, err := encoder.Marshal(m)
		if !errors.Is(err, proto.Error) {
			t.Errorf("%T: %v is not a proto.Error", m, err)
		}
		var e *encoder.Error
		if !errors.As(err, &e) || e.Field == "" || !strings.Contains(err.Error(), string(e.Field)) {
			t.Errorf("%T: %v does not name the field", m, err)
		}
	}
}

func requiredComplete() *test2pb.TestRequired {
	return &test2pb.TestRequired{R5: proto.Int32(5), R2: proto.Int32(2)}
}

func TestChecklist31RequiredOnlyWithoutAllowPartial(t *testing.T) {
	m := &test2pb.TestRequired{R5: proto.Int32(5)}
	expectError(t, m, encoder.ErrRequiredNotSet)
	for _, x := range []proto.Message{m, dynOf(t, m)} {
		got, err := encoder.MarshalOptions{AllowPartial: true}.Marshal(x)
		want, _ := proto.MarshalOptions{AllowPartial: true, Deterministic: true}.Marshal(x)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%T AllowPartial: % x, %v; want % x", x, got, err, want)
		}
	}
	same(t, requiredComplete())
}

// proto.Marshal returns the complete encoding along with the error; this
// encoder returns nothing (a documented difference), with the same error.
func TestChecklist32MissingRequiredError(t *testing.T) {
	m := &test2pb.TestRequired{R5: proto.Int32(5)}
	pb, perr := proto.Marshal(m)
	if perr == nil || len(pb) == 0 {
		t.Fatalf("proto.Marshal: % x, %v", pb, perr)
	}
	b, err := encoder.Marshal(m)
	if b != nil || !errors.Is(err, encoder.ErrRequiredNotSet) || !strings.Contains(perr.Error(), "protolayout.test2.TestRequired.r2") ||
		!strings.Contains(err.Error(), "protolayout.test2.TestRequired.r2") {
		t.Errorf("got % x, %v; proto: %v", b, err, perr)
	}
}

func TestChecklist33RequiredRecursesEverywhere(t *testing.T) {
	inner := &test2pb.TestRequired_Inner{} // x missing
	cases := []*test2pb.TestRequiredContainer{
		{Single: &test2pb.TestRequired{R5: proto.Int32(1), R2: proto.Int32(1), Inner: inner}},
		{Many: []*test2pb.TestRequired{requiredComplete(), {R5: proto.Int32(1), R2: proto.Int32(1), RepeatedInner: []*test2pb.TestRequired_Inner{inner}}}},
		{ByKey: map[string]*test2pb.TestRequired{"k": {R5: proto.Int32(1), R2: proto.Int32(1), MapInner: map[int32]*test2pb.TestRequired_Inner{1: inner}}}},
		{Choice: &test2pb.TestRequiredContainer_OneofRequired{OneofRequired: &test2pb.TestRequired{R5: proto.Int32(1), R2: proto.Int32(1), Choice: &test2pb.TestRequired_OneofInner{OneofInner: inner}}}},
		{Single: &test2pb.TestRequired{R5: proto.Int32(1), R2: proto.Int32(1), Requiredgroup: &test2pb.TestRequired_RequiredGroup{}}},
	}
	for _, m := range cases {
		expectError(t, m, encoder.ErrRequiredNotSet)
	}
	ext := requiredComplete()
	proto.SetExtension(ext, test2pb.E_TestRequired_InnerExtension, inner)
	expectError(t, ext, encoder.ErrRequiredNotSet)
	rx := &test2pb.TestAllExtensions{}
	proto.SetExtension(rx, test2pb.E_RequiredMessageExtension, &test2pb.TestRequired{})
	expectError(t, rx, encoder.ErrRequiredNotSet)
}

func TestChecklist34FirstMissingInEmissionOrder(t *testing.T) {
	for _, c := range []struct {
		m    proto.Message
		name string
	}{
		{&test2pb.TestRequired{}, "protolayout.test2.TestRequired.r2"}, // r5 is declared first, r2 has the lower number
		{&test2pb.TestRequired{Inner: &test2pb.TestRequired_Inner{}}, "protolayout.test2.TestRequired.Inner.x"},
	} {
		_, perr := proto.Marshal(c.m) // the generated fast path
		for _, x := range []proto.Message{c.m, dynOf(t, c.m)} {
			_, err := encoder.Marshal(x)
			var e *encoder.Error
			if !errors.As(err, &e) || string(e.Field) != c.name {
				t.Errorf("%T: %v, want %s", x, err, c.name)
			}
		}
		if perr == nil || !strings.Contains(perr.Error(), c.name+" ") {
			t.Errorf("proto.Marshal reports %v, want %s", perr, c.name)
		}
	}
}

func TestChecklist35InvalidMessageWithRequired(t *testing.T) {
	var m *test2pb.TestRequired
	b, err := encoder.Marshal(m)
	if b != nil || !errors.Is(err, encoder.ErrRequiredNotSet) {
		t.Errorf("typed nil: % x, %v", b, err)
	}
	if _, perr := proto.Marshal(m); perr == nil {
		t.Error("proto.Marshal accepted it")
	}
	z := protobuftest.TwinByName("protolayout.test2.TestRequired").Dyn.Zero().Interface()
	if b, err := encoder.Marshal(z); b != nil || !errors.Is(err, encoder.ErrRequiredNotSet) {
		t.Errorf("dynamic zero: % x, %v", b, err)
	}
	if b, err := (encoder.MarshalOptions{AllowPartial: true}).Marshal(m); b != nil || err != nil {
		t.Errorf("AllowPartial typed nil: % x, %v", b, err)
	}
}

func TestChecklist36NilMessage(t *testing.T) {
	if b, err := encoder.Marshal(nil); b != nil || err != nil {
		t.Errorf("Marshal(nil) = % x, %v", b, err)
	}
	if n := encoder.Size(nil); n != 0 {
		t.Errorf("Size(nil) = %d", n)
	}
	prefix := []byte{9}
	if b, err := (encoder.MarshalOptions{}).MarshalAppend(prefix, nil); !bytes.Equal(b, prefix) || err != nil {
		t.Errorf("MarshalAppend(b, nil) = % x, %v", b, err)
	}
}

func TestChecklist37InvalidMessageWithoutRequired(t *testing.T) {
	var m *test3pb.TestAllTypes
	if b, err := encoder.Marshal(m); b != nil || err != nil {
		t.Errorf("typed nil: % x, %v", b, err)
	}
	z := protobuftest.TwinByName("protolayout.test3.TestAllTypes").Dyn.Zero().Interface()
	if b, err := encoder.Marshal(z); b != nil || err != nil {
		t.Errorf("dynamic zero: % x, %v", b, err)
	}
}

func TestChecklist38EmptyValidMessage(t *testing.T) {
	for _, m := range []proto.Message{&test3pb.TestAllTypes{}, dynOf(t, &test3pb.TestAllTypes{})} {
		b, err := encoder.Marshal(m)
		if b == nil || len(b) != 0 || cap(b) != 0 || err != nil {
			t.Errorf("%T: %#v (cap %d), %v", m, b, cap(b), err)
		}
	}
}

func TestChecklist39MarshalAppendKeepsPrefix(t *testing.T) {
	if b, err := (encoder.MarshalOptions{}).MarshalAppend(nil, &test3pb.TestAllTypes{}); b != nil || err != nil {
		t.Errorf("MarshalAppend(nil, empty) = %#v, %v", b, err)
	}
	buf := make([]byte, 3, 64)
	copy(buf, "abc")
	m := &test3pb.TestAllTypes{SingularInt32: 1}
	out, err := encoder.MarshalOptions{}.MarshalAppend(buf, m)
	if err != nil || string(out[:3]) != "abc" || !bytes.Equal(out[3:], []byte{8, 1}) || &out[0] != &buf[0] {
		t.Errorf("% x, %v", out, err)
	}
	// Bytes past the capacity of a full buffer are untouched: the result
	// is a new array.
	full := []byte("xyz")
	out, _ = encoder.MarshalOptions{}.MarshalAppend(full, m)
	if string(full) != "xyz" || &out[0] == &full[0] {
		t.Error("full buffer was written in place")
	}
}

func TestChecklist40ExactCapacity(t *testing.T) {
	g := &test2pb.TestAllTypes{}
	protobuftest.Fill(g.ProtoReflect(), 40, protobuftest.RandOptions{MaxDepth: 2})
	for _, x := range []proto.Message{g, dynOf(t, g)} {
		b := mustMarshal(t, encoder.MarshalOptions{}, x)
		if cap(b) != len(b) {
			t.Errorf("%T: cap %d, len %d", x, cap(b), len(b))
		}
	}
}

func TestChecklist41BufferOnError(t *testing.T) {
	buf := make([]byte, 2, 100)
	m := &test3pb.TestAllTypes{SingularInt32: 1, RepeatedString: []string{"\xff"}}
	out, err := encoder.MarshalOptions{}.MarshalAppend(buf, m)
	if err == nil || len(out) != 2 || &out[0] != &buf[0] {
		t.Errorf("% x, %v", out, err)
	}
}

func TestChecklist42SizeEqualsLength(t *testing.T) {
	for seed := range uint64(50) {
		g := &test3pb.TestAllTypes{}
		protobuftest.Fill(g.ProtoReflect(), seed, protobuftest.RandOptions{MaxDepth: 2, Unknown: true})
		for _, x := range []proto.Message{g, dynOf(t, g)} {
			if n, b := encoder.Size(x), mustMarshal(t, encoder.MarshalOptions{}, x); n != len(b) || n != proto.Size(x) {
				t.Fatalf("seed %d %T: Size %d, len %d, proto.Size %d", seed, x, n, len(b), proto.Size(x))
			}
		}
	}
}

func TestChecklist43DeterministicOnlyAffectsMapOrder(t *testing.T) {
	g := &test3pb.TestAllTypes{}
	protobuftest.Fill(g.ProtoReflect(), 43, protobuftest.RandOptions{MaxDepth: 2})
	for _, x := range []proto.Message{g, dynOf(t, g)} {
		a := mustMarshal(t, encoder.MarshalOptions{Checked: true}, x)
		b := mustMarshal(t, encoder.MarshalOptions{Checked: true, Deterministic: true}, x)
		if !bytes.Equal(protobuftest.CanonicalMaps(a, g), protobuftest.CanonicalMaps(b, g)) ||
			(encoder.MarshalOptions{Deterministic: true}).Size(x) != len(a) || encoder.Size(x) != len(a) {
			t.Errorf("%T: modes differ", x)
		}
	}
}

func TestChecklist44UseCachedSizeIgnored(t *testing.T) {
	m := &test3pb.TestAllTypes{SingularNestedMessage: &test3pb.TestAllTypes_NestedMessage{A: 1}}
	_ = proto.Size(m) // fills the size cache
	m.SingularNestedMessage.A = 1 << 20
	got, err := encoder.MarshalOptions{UseCachedSize: true}.Marshal(m)
	want, _ := det.Marshal(m)
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("stale cache: % x, %v; want % x", got, err, want)
	}
}

func TestChecklist45CyclesAndDepthAreErrors(t *testing.T) {
	// A dynamic message that contains itself (proto.Marshal would
	// overflow the stack and kill the process).
	d := protobuftest.TwinByName("protolayout.test3.TestRecursive").Dyn.New()
	d.Set(d.Descriptor().Fields().ByName("child"), protoreflect.ValueOfMessage(d))
	_, err := encoder.Marshal(d.Interface())
	if !errors.Is(err, encoder.ErrCycle) || !errors.Is(err, encoder.ErrDepthExceeded) || !errors.Is(err, proto.Error) {
		t.Fatalf("self-containing message: %v", err)
	}
	// The same through a generated type, on the checked walk (its own
	// fast path, the default for generated types, has no depth limit).
	checked := encoder.MarshalOptions{Checked: true}
	g := &test3pb.TestRecursive{}
	g.Child = g
	if _, err := checked.Marshal(g); !errors.Is(err, encoder.ErrCycle) {
		t.Fatalf("self-containing generated message: %v", err)
	}
	// 100,000 levels fail with the default limit and encode with a higher
	// one, matching proto.Marshal byte for byte.
	const n = 100_000
	root := &test3pb.TestRecursive{}
	cur := root
	for range n {
		cur.Child = &test3pb.TestRecursive{}
		cur = cur.Child
	}
	if _, err := checked.Marshal(root); !errors.Is(err, encoder.ErrDepthExceeded) {
		t.Fatalf("100,000 deep with the default limit: %v", err)
	}
	got, err := encoder.MarshalOptions{MaxDepth: n + 1, Checked: true}.Marshal(root)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := det.Marshal(root)
	if !bytes.Equal(got, want) {
		t.Fatal("100,000 deep: bytes differ")
	}
	// The size limit: a message above MaxSize fails before writing.
	big := &test3pb.TestAllTypes{SingularBytes: make([]byte, 1000)}
	if _, err := (encoder.MarshalOptions{MaxSize: 1000}).Marshal(big); !errors.Is(err, encoder.ErrSizeExceeded) {
		t.Errorf("MaxSize: %v", err)
	}
	if b, err := (encoder.MarshalOptions{MaxSize: 1003}).Marshal(big); err != nil || len(b) != 1003 {
		t.Errorf("exactly MaxSize: %d, %v", len(b), err)
	}
}

func TestChecklist46MessageSetRefused(t *testing.T) {
	md, err := protobuftest.DynamicFiles().FindDescriptorByName("protolayout.messageset.MessageSetContainer")
	if err != nil {
		t.Skipf("no MessageSet schema: %v", err)
	}
	c := dynamicpb.NewMessage(md.(protoreflect.MessageDescriptor))
	c.Mutable(c.Descriptor().Fields().ByName("message_set"))
	_, perr := det.Marshal(c)
	_, err = encoder.Marshal(c)
	// Built with protolegacy, proto.Marshal encodes MessageSet types
	// through reflection too; this package refuses them in every build.
	if !errors.Is(err, encoder.ErrMessageSet) || perr == nil && !protoLegacy {
		t.Errorf("err %v, proto.Marshal %v", err, perr)
	}
}

func TestChecklist47AnyOpaque(t *testing.T) {
	// A payload whose map entries are out of order stays as it is.
	inner := []byte{0xa2, 0x09, 0x06, 0x0a, 0x01, 'b', 0x12, 0x01, '1', 0xa2, 0x09, 0x06, 0x0a, 0x01, 'a', 0x12, 0x01, '2'}
	m := &test3pb.TestAllTypes{Any: &anypb.Any{TypeUrl: "type.googleapis.com/protolayout.test3.TestAllTypes", Value: inner}}
	got := mustMarshal(t, encoder.MarshalOptions{Deterministic: true}, m)
	if !bytes.Contains(got, inner) {
		t.Error("Any payload re-encoded")
	}
	same(t, m)
	s, _ := structpb.NewStruct(map[string]any{"b": 1, "a": []any{"x", true, nil}})
	same(t, &test3pb.TestAllTypes{Struct: s})
}

// The one byte difference reflection cannot avoid: protoreflect stores a
// float32 as a float64, which quiets a signalling NaN.
func TestChecklist48SignallingNaNQuieted(t *testing.T) {
	snan := math.Float32frombits(0x7f800001)
	m := &test3pb.TestAllTypes{SingularFloat: snan}
	want, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	// The default options take the generated fast path, and Checked the
	// engine, which reads the struct: both keep the payload, as
	// proto.Marshal does.
	if got := mustMarshal(t, encoder.MarshalOptions{}, m); !bytes.Equal(got, want) {
		t.Errorf("fast path: % x, want proto.Marshal's % x", got, want)
	}
	if got := mustMarshal(t, encoder.MarshalOptions{Checked: true}, m); !bytes.Equal(got, want) {
		t.Errorf("checked: % x, want proto.Marshal's % x", got, want)
	}
	// The dynamic twin is read through protoreflect, which stores a
	// float32 as a float64: the conversion quiets a signalling NaN where
	// the hardware does (amd64 and arm64 do).
	wide := float64(snan)
	quieted := math.Float32bits(float32(wide))
	if quieted == 0x7f800001 {
		t.Skip("this platform's float conversions keep a signalling NaN's payload")
	}
	dyn := protobuftest.DynamicTwin(m)
	for name, got := range map[string][]byte{
		"dynamic twin": mustMarshal(t, encoder.MarshalOptions{}, dyn),
	} {
		if len(got) != len(want) || !bytes.Equal(got[:len(got)-4], want[:len(want)-4]) {
			t.Fatalf("%s: % x vs % x", name, got, want)
		}
		if bits := binary.LittleEndian.Uint32(got[len(got)-4:]); bits != quieted || bits != 0x7fc00001 {
			t.Errorf("%s: bits %#x, want the quiet NaN 0x7fc00001", name, bits)
		}
	}
}

func TestChecklist49NilOneofMessageIsSet(t *testing.T) {
	m := &test2pb.TestAllTypes{OneofField: &test2pb.TestAllTypes_OneofNestedMessage{}}
	want := []byte{0x82, 0x07, 0x00}
	for name, got := range map[string][]byte{
		"fast path":        mustMarshal(t, encoder.MarshalOptions{}, m),
		"checked (engine)": mustMarshal(t, encoder.MarshalOptions{Checked: true}, m),
		"dynamic twin":     mustMarshal(t, encoder.MarshalOptions{}, dynOf(t, m)),
	} {
		if !bytes.Equal(got, want) {
			t.Errorf("%s: % x, want % x", name, got, want)
		}
	}
}

// Hot code never calls the allocating accessors (Value.Interface,
// MapKey.Interface), fmt, or reflect.ValueOf; this keeps it so. Files
// built only with the protolayout_debug tag (the Writer's invariant
// check) are not hot code.
func TestChecklist50NoAllocatingCallsInHotCode(t *testing.T) {
	banned := regexp.MustCompile(`\.Interface\(\)|\bfmt\.|reflect\.ValueOf\(|protoreflect\.ValueOf\(`)
	for _, dir := range []string{".", "../internal/cursor", "../internal/sizing", "../internal/layout",
		"../internal/fault", "../internal/walk", "../internal/weakcache", "../internal/wire", "../cursor", "../layout"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		if len(files) == 0 {
			t.Fatalf("no Go files in %s: the list of hot packages is stale", dir)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(string(src), "//go:build protolayout_debug\n") {
				continue
			}
			for i, line := range strings.Split(string(src), "\n") {
				if strings.HasPrefix(strings.TrimSpace(line), "//") {
					continue
				}
				if banned.MatchString(line) {
					t.Errorf("%s:%d: %s", f, i+1, strings.TrimSpace(line))
				}
			}
		}
	}
}
