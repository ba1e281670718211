package engine_test

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/internal/engine"
	"github.com/protolayout/protolayout/internal/messagesetpb"
	"github.com/protolayout/protolayout/protobuftest"
	"github.com/protolayout/protolayout/protobuftest/gen/customoptionspb"
	opaquetest2pb "github.com/protolayout/protolayout/protobuftest/gen/opaque/test2pb"
	opaquetest3pb "github.com/protolayout/protolayout/protobuftest/gen/opaque/test3pb"
	"github.com/protolayout/protolayout/protobuftest/gen/test2pb"
	"github.com/protolayout/protolayout/protobuftest/gen/test3pb"
)

// defaults are the encoder's default limits.
var defaults = engine.Options{Deterministic: true, MaxDepth: 10000, MaxSize: math.MaxInt32}

// genType is a generated message type with the generated extension
// types of the test schemas that extend it, at its API level.
type genType struct {
	mt   protoreflect.MessageType
	exts []protoreflect.ExtensionType
}

// generatedTypes returns every generated message type of the test
// schemas at the open, hybrid and Opaque levels, which the engine reads,
// with their extensions.
func generatedTypes(t *testing.T) (read []genType) {
	t.Helper()
	for _, tw := range protobuftest.Twins() {
		read = append(read, genType{tw.Gen, tw.GenExts})
	}
	for _, vs := range protobuftest.GeneratedVariants() {
		read = append(read, genType{vs.Hybrid.Type, vs.Hybrid.Exts}, genType{vs.Opaque.Type, vs.Opaque.Exts})
	}
	return read
}

// TestEncodesEveryTestType holds the engine to proto.Marshal on random
// messages of every generated test type, with random extensions where
// the type has some: deterministic bytes, the size, and without
// Deterministic the same bytes up to map order.
func TestEncodesEveryTestType(t *testing.T) {
	read := generatedTypes(t)
	seeds := uint64(12)
	if testing.Short() {
		seeds = 4
	}
	var st engine.State
	handled, withExtensions, opaque := 0, 0, 0
	for _, gt := range read {
		isOpaque := strings.HasPrefix(string(gt.mt.Descriptor().FullName()), "opaque.")
		mt := gt.mt
		for seed := range seeds {
			m := mt.New().Interface()
			protobuftest.Fill(m.ProtoReflect(), seed, protobuftest.RandOptions{Unknown: seed%2 == 0, MaxList: 3, Extensions: gt.exts})
			if hasGenExtension(m.ProtoReflect()) {
				withExtensions++
			}
			want, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
			if err != nil {
				t.Fatalf("%s seed %d: %v", mt.Descriptor().FullName(), seed, err)
			}
			got, n, ok := st.Encode([]byte("prefix"), m, m.ProtoReflect(), &defaults)
			if !ok {
				t.Errorf("%s seed %d: left to the walk", mt.Descriptor().FullName(), seed)
				continue
			}
			handled++
			if isOpaque {
				opaque++
			}
			if !bytes.Equal(got[6:], want) || string(got[:6]) != "prefix" || n != len(want) {
				t.Errorf("%s seed %d:\n got % x (%d)\nwant % x", mt.Descriptor().FullName(), seed, got[6:], n, want)
			}
			size := defaults
			size.SizeOnly = true
			if _, n, ok := st.Encode(nil, m, m.ProtoReflect(), &size); !ok || n != proto.Size(m) {
				t.Errorf("%s seed %d: size %d %v, want %d", mt.Descriptor().FullName(), seed, n, ok, proto.Size(m))
			}
			o := defaults
			o.Deterministic = false
			got, _, ok = st.Encode(nil, m, m.ProtoReflect(), &o)
			if !ok || !bytes.Equal(protobuftest.CanonicalMaps(got, m), protobuftest.CanonicalMaps(want, m)) {
				t.Errorf("%s seed %d: without Deterministic, not the same bytes up to map order", mt.Descriptor().FullName(), seed)
			}
		}
	}
	if handled < 100 || withExtensions < 20 || opaque < 50 {
		t.Errorf("only %d messages encoded, %d with extensions, %d Opaque", handled, withExtensions, opaque)
	}
}

// TestEncodesOpaquePresence holds the engine to proto.Marshal on Opaque
// messages whose presence bits disagree with what the values alone would
// say: zero values set, set values cleared, empty lists, nil elements.
func TestEncodesOpaquePresence(t *testing.T) {
	neg0 := float32(math.Copysign(0, -1))
	a := &opaquetest2pb.TestAllTypes{}
	a.SetOptionalInt32(0)
	a.SetOptionalInt64(0)
	a.SetOptionalSint32(0)
	a.SetOptionalFixed64(0)
	a.SetOptionalFloat(neg0)
	a.SetOptionalDouble(0)
	a.SetOptionalBool(false)
	a.SetOptionalString("")
	a.SetOptionalBytes(nil)
	a.SetOptionalNestedEnum(0)
	a.SetDefaultInt32(0)
	a.SetDefaultString("")
	a.SetDefaultBytes([]byte{})
	a.SetRepeatedNestedMessage([]*opaquetest2pb.TestAllTypes_NestedMessage{})
	a.SetRepeatedInt32([]int32{})
	b := &opaquetest2pb.TestAllTypes{}
	b.SetOptionalInt64(5)
	b.ClearOptionalInt64()
	b.SetOptionalString("x")
	b.ClearOptionalString()
	b.SetOptionalBool(true)
	b.ClearOptionalBool()
	b.SetRepeatedNestedMessage([]*opaquetest2pb.TestAllTypes_NestedMessage{nil, {}})
	b.SetOptionalNestedMessage(&opaquetest2pb.TestAllTypes_NestedMessage{})
	c := &opaquetest3pb.TestAllTypes{}
	c.SetSingularFloat(neg0)
	c.SetOptionalInt32(0)
	c.SetOptionalString("")
	c.SetOptionalBytes([]byte{})
	c.SetOptionalBool(false)
	var st engine.State
	for i, m := range []proto.Message{a, b, c, &opaquetest2pb.TestAllTypes{}, &opaquetest3pb.TestAllTypes{}} {
		want, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		got, n, ok := st.Encode(nil, m, m.ProtoReflect(), &defaults)
		if !ok || !bytes.Equal(got, want) || n != proto.Size(m) {
			t.Errorf("message %d: encoded %v\n got % x (%d)\nwant % x", i, ok, got, n, want)
		}
	}
}

// TestLeavesToTheWalk checks each case the engine leaves to the walk:
// it reports it did not encode, and appends nothing.
func TestLeavesToTheWalk(t *testing.T) {
	cycle := &test3pb.TestRecursive{}
	cycle.Child = cycle
	// A doubling DAG: every level holds the next twice.
	dag := &test3pb.TestRecursive{}
	for range 40 {
		dag = &test3pb.TestRecursive{Children: []*test3pb.TestRecursive{dag, dag}}
	}
	deep := &test3pb.TestRecursive{}
	for range 20 {
		deep = &test3pb.TestRecursive{Child: deep}
	}
	set := proto.SetExtension
	// A required field missing in an extension's message, and in an
	// extension of that message.
	requiredInExtension := &test2pb.TestAllExtensions{}
	set(requiredInExtension, test2pb.E_RequiredMessageExtension, &test2pb.TestRequired{R2: proto.Int32(1)})
	requiredDeeper := &test2pb.TestAllExtensions{}
	required := &test2pb.TestRequired{R2: proto.Int32(1), R5: proto.Int32(1)}
	set(required, test2pb.E_TestRequired_RepeatedInnerExtension, []*test2pb.TestRequired_Inner{{X: proto.Int32(1)}, {}})
	set(requiredDeeper, test2pb.E_RequiredMessageExtension, required)
	// Three levels through extensions: TestAllExtensions, TestRequired,
	// Inner.
	threeLevels := &test2pb.TestAllExtensions{}
	level2 := &test2pb.TestRequired{R2: proto.Int32(1), R5: proto.Int32(1)}
	set(level2, test2pb.E_TestRequired_InnerExtension, &test2pb.TestRequired_Inner{X: proto.Int32(1)})
	set(threeLevels, test2pb.E_RequiredMessageExtension, level2)
	// Invalid UTF-8 where a proto3 file's extensions are validated.
	invalidOption := &descriptorpb.MessageOptions{}
	set(invalidOption, customoptionspb.E_OptString, "\xff")
	invalidRepeatedOption := &descriptorpb.MessageOptions{}
	set(invalidRepeatedOption, customoptionspb.E_OptRepeatedString, []string{"a", "\xc0"})
	invalidInExtension := &descriptorpb.MessageOptions{}
	set(invalidInExtension, customoptionspb.E_OptMessage, &customoptionspb.OptionMessage{Name: "\xff"})
	opaqueRequired := &opaquetest2pb.TestRequired{}
	opaqueRequired.SetR5(0) // r2 unset
	opaqueInvalid := &opaquetest3pb.TestAllTypes{}
	opaqueInvalid.SetOptionalString("\xff")
	messageSet := &messagesetpb.MessageSet{}
	set(messageSet, messagesetpb.E_MessageSetItem_MessageSetExtension, &messagesetpb.MessageSetItem{I: proto.Int32(1)})
	// A message of another implementation as an extension's value.
	dynamicValue := &test2pb.TestAllExtensions{}
	dynamicExt := dynamicpb.NewExtensionType(test2pb.E_OptionalForeignMessageExtension.TypeDescriptor().Descriptor())
	dynamicValue.ProtoReflect().Set(dynamicExt.TypeDescriptor(), dynamicExt.New())
	withOptions := func(f func(o *engine.Options)) engine.Options {
		o := defaults
		f(&o)
		return o
	}
	cases := []struct {
		name string
		m    proto.Message
		o    engine.Options
	}{
		{"invalid UTF-8", &test3pb.TestAllTypes{SingularString: "\xff"}, defaults},
		{"invalid UTF-8 in a list", &test3pb.TestAllTypes{RepeatedString: []string{"a", "\xff"}}, defaults},
		{"invalid UTF-8 in a map key", &test3pb.TestAllTypes{MapStringString: map[string]string{"\xff": "a"}}, defaults},
		{"invalid UTF-8 in a oneof", &test3pb.TestAllTypes{OneofField: &test3pb.TestAllTypes_OneofString{OneofString: "\xc0"}}, defaults},
		{"required field not set", &test2pb.TestRequired{}, defaults},
		{"required field not set (Opaque)", opaqueRequired, defaults},
		{"invalid UTF-8 (Opaque)", opaqueInvalid, defaults},
		{"required field not set, nested", &test2pb.TestRequiredContainer{Single: &test2pb.TestRequired{}}, defaults},
		{"required field not set, in an extension", requiredInExtension, defaults},
		{"required field not set, in an extension's extension", requiredDeeper, defaults},
		{"invalid UTF-8 in a string extension", invalidOption, defaults},
		{"invalid UTF-8 in a repeated string extension", invalidRepeatedOption, defaults},
		{"invalid UTF-8 in an extension's message", invalidInExtension, defaults},
		{"a MessageSet type", messageSet, defaults},
		{"a message of another implementation in an extension", dynamicValue, defaults},
		{"depth through extensions", threeLevels, withOptions(func(o *engine.Options) { o.MaxDepth = 2 })},
		{"a cycle", cycle, defaults},
		{"a doubling DAG", dag, defaults},
		{"depth", deep, withOptions(func(o *engine.Options) { o.MaxDepth = 10 })},
		{"size", &test3pb.TestAllTypes{SingularString: "0123456789"}, withOptions(func(o *engine.Options) { o.MaxSize = 8 })},
	}
	var st engine.State
	for _, c := range cases {
		b := []byte("kept")
		out, n, ok := st.Encode(b, c.m, c.m.ProtoReflect(), &c.o)
		if ok || n != 0 || string(out) != "kept" || len(out) != 4 {
			t.Errorf("%s: encoded %v (%d bytes), want it left to the walk", c.name, ok, n)
		}
	}
	// The same messages within the limits, or allowed partial, encode.
	partial := defaults
	partial.Partial = true
	if _, _, ok := st.Encode(nil, &test2pb.TestRequired{}, (&test2pb.TestRequired{}).ProtoReflect(), &partial); !ok {
		t.Error("a message missing required fields, Partial: left to the walk")
	}
	opaqueRequired.SetR2(0)
	if _, _, ok := st.Encode(nil, opaqueRequired, opaqueRequired.ProtoReflect(), &defaults); !ok {
		t.Error("an Opaque message with its required fields set to zero: left to the walk")
	}
	if _, _, ok := st.Encode(nil, deep, deep.ProtoReflect(), &defaults); !ok {
		t.Error("21 levels under the default depth: left to the walk")
	}
	for _, m := range []proto.Message{requiredInExtension, requiredDeeper} {
		if _, _, ok := st.Encode(nil, m, m.ProtoReflect(), &partial); !ok {
			t.Error("a required field missing in an extension, Partial: left to the walk")
		}
	}
	three := withOptions(func(o *engine.Options) { o.MaxDepth = 3 })
	if _, _, ok := st.Encode(nil, threeLevels, threeLevels.ProtoReflect(), &three); !ok {
		t.Error("three levels through extensions, MaxDepth 3: left to the walk")
	}
	small := &test3pb.TestRecursive{Children: []*test3pb.TestRecursive{{}, {}}}
	small = &test3pb.TestRecursive{Children: []*test3pb.TestRecursive{small, small}}
	if _, _, ok := st.Encode(nil, small, small.ProtoReflect(), &defaults); !ok {
		t.Error("a message shared twice: left to the walk")
	}
}

// TestChangedBetweenPasses changes a message between the size and the
// write pass in every way that moves a length: the engine never returns
// bytes whose lengths disagree with their bodies.
func TestChangedBetweenPasses(t *testing.T) {
	type change struct {
		name   string
		m      *test3pb.TestAllTypes
		change func(m *test3pb.TestAllTypes)
	}
	nested := func() *test3pb.TestAllTypes {
		return &test3pb.TestAllTypes{
			SingularNestedMessage:  &test3pb.TestAllTypes_NestedMessage{A: 1},
			RepeatedInt32:          []int32{1, 2, 3},
			RepeatedNestedMessage:  []*test3pb.TestAllTypes_NestedMessage{{A: 1}, {A: 2}},
			MapStringString:        map[string]string{"a": "b"},
			MapSint32NestedMessage: map[int32]*test3pb.TestAllTypes_NestedMessage{1: {A: 1}},
		}
	}
	changes := []change{
		{"nested scalar", nested(), func(m *test3pb.TestAllTypes) { m.SingularNestedMessage.A = 1 << 30 }},
		{"packed element", nested(), func(m *test3pb.TestAllTypes) { m.RepeatedInt32[1] = -1 }},
		{"list longer", nested(), func(m *test3pb.TestAllTypes) {
			m.RepeatedNestedMessage = append(m.RepeatedNestedMessage, &test3pb.TestAllTypes_NestedMessage{})
		}},
		{"list shorter", nested(), func(m *test3pb.TestAllTypes) { m.RepeatedNestedMessage = m.RepeatedNestedMessage[:1] }},
		{"map entry added", nested(), func(m *test3pb.TestAllTypes) { m.MapStringString["c"] = "d" }},
		{"map message value", nested(), func(m *test3pb.TestAllTypes) { m.MapSint32NestedMessage[1].A = 1 << 20 }},
		{"message removed", nested(), func(m *test3pb.TestAllTypes) { m.SingularNestedMessage = nil }},
		{"two opposite changes", nested(), func(m *test3pb.TestAllTypes) {
			m.SingularNestedMessage.A = 1 << 20                                    // three more bytes here
			m.RepeatedNestedMessage[1] = &test3pb.TestAllTypes_NestedMessage{A: 0} // two fewer there
			m.RepeatedInt32 = append(m.RepeatedInt32, 1)                           // one more in the packed list
		}},
	}
	var st engine.State
	defer engine.SetGenBetweenPasses(nil)
	for _, c := range changes {
		engine.SetGenBetweenPasses(func() { c.change(c.m) })
		out, _, ok := st.Encode(nil, c.m, c.m.ProtoReflect(), &defaults)
		engine.SetGenBetweenPasses(nil)
		if ok {
			t.Errorf("%s: encoded % x, want it left to the walk", c.name, out)
		}
	}
}

// TestEncodeAllocs checks that a reused State encodes without allocating
// once warm, maps and extensions included.
func TestEncodeAllocs(t *testing.T) {
	if purego {
		t.Skip("the protolayout_purego build reads structs through reflect, which allocates")
	}
	m := &test3pb.TestAllTypes{}
	protobuftest.Fill(m.ProtoReflect(), 7, protobuftest.RandOptions{})
	if len(m.MapStringString) == 0 || len(m.MapStringNestedMessage) == 0 {
		t.Fatal("the random message has no maps to read")
	}
	tw := protobuftest.TwinByName("protolayout.test2.TestAllExtensions")
	ext := tw.Gen.New()
	protobuftest.Fill(ext, 3, protobuftest.RandOptions{Extensions: tw.GenExts})
	proto.SetExtension(ext.Interface(), test2pb.E_RepeatedNestedMessageExtension, []*test2pb.TestAllTypes_NestedMessage{{A: proto.Int32(1)}})
	var opaque []proto.Message
	for _, name := range []protoreflect.FullName{"opaque.protolayout.test2.TestAllTypes", "opaque.protolayout.test3.TestAllTypes", "opaque.protolayout.test2.TestAllExtensions"} {
		for _, vs := range protobuftest.GeneratedVariants() {
			if vs.Opaque.Type.Descriptor().FullName() == name {
				opaque = append(opaque, vs.Opaque.Random(3, protobuftest.RandOptions{}))
			}
		}
	}
	if len(opaque) != 3 {
		t.Fatalf("%d Opaque types found", len(opaque))
	}
	var st engine.State
	buf := make([]byte, 0, 1<<16)
	for _, m := range append([]proto.Message{m, ext.Interface()}, opaque...) {
		allocs := testing.AllocsPerRun(100, func() {
			if _, _, ok := st.Encode(buf[:0], m, m.ProtoReflect(), &defaults); !ok {
				t.Fatal("left to the walk")
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per call, want 0", m.ProtoReflect().Descriptor().FullName(), allocs)
		}
	}
}

// TestScratchBounded checks that what a State keeps between calls stays
// within its bounds after a large call, and is used again below them.
func TestScratchBounded(t *testing.T) {
	var st engine.State
	big := &test3pb.TestAllTypes{MapStringString: map[string]string{}}
	for i := range 10_000 {
		big.MapStringString[strconv.Itoa(i)] = "v"
	}
	for i := range 100_000 {
		big.RepeatedNestedMessage = append(big.RepeatedNestedMessage, &test3pb.TestAllTypes_NestedMessage{A: int32(i)})
	}
	// Ten thousand messages with an extension each.
	bigExts := &descriptorpb.DescriptorProto{}
	for i := range 10_000 {
		o := &descriptorpb.MessageOptions{}
		proto.SetExtension(o, customoptionspb.E_OptInt32, int32(i))
		bigExts.NestedType = append(bigExts.NestedType, &descriptorpb.DescriptorProto{Options: o})
	}
	for _, m := range []proto.Message{big, bigExts} {
		if _, _, ok := st.Encode(nil, m, m.ProtoReflect(), &defaults); !ok {
			t.Fatal("left to the walk")
		}
		sizes, entries, exts, scratch := st.Kept()
		if sizes > engine.MaxKeptSizes || entries > engine.MaxKeptGenEntries || exts > engine.MaxKeptExtensions || scratch > engine.MaxScratch {
			t.Errorf("kept %d sizes, %d entries, %d extensions, %d scratch values, want at most %d, %d, %d, %d",
				sizes, entries, exts, scratch, engine.MaxKeptSizes, engine.MaxKeptGenEntries, engine.MaxKeptExtensions, engine.MaxScratch)
		}
	}
	// What the encoder's documentation promises (besides the table of
	// visited messages and the scratch values).
	if n := engine.MaxKeptGenEntries*engine.MapEntryBytes + engine.MaxKeptSizes*engine.SizeBytes + engine.MaxKeptExtensions*engine.ExtBytes; n > 832<<10 {
		t.Errorf("up to %d bytes of entries, sizes and extensions kept, more than 832 KiB", n)
	}
	small := &test3pb.TestAllTypes{MapStringString: map[string]string{"a": "b"},
		RepeatedNestedMessage: []*test3pb.TestAllTypes_NestedMessage{{A: 1}}}
	smallExts := &descriptorpb.DescriptorProto{Options: &descriptorpb.MessageOptions{}}
	proto.SetExtension(smallExts.Options, customoptionspb.E_OptInt32, int32(1))
	for _, m := range []proto.Message{small, smallExts} {
		if _, _, ok := st.Encode(nil, m, m.ProtoReflect(), &defaults); !ok {
			t.Fatal("left to the walk")
		}
	}
	if sizes, entries, exts, _ := st.Kept(); sizes == 0 || entries == 0 || exts == 0 {
		t.Errorf("kept nothing after small calls (%d sizes, %d entries, %d extensions): the scratch is not reused", sizes, entries, exts)
	}
}
