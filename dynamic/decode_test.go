package dynamic_test

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/dynamic"
	"github.com/protolayout/protolayout/internal/dyntest"
	"github.com/protolayout/protolayout/protobuftest"
)

// The decoder is held to proto.Unmarshal into dynamicpb (the reflection
// path): for the same input and options, both fail or both succeed, and
// both messages then encode to the same bytes.

var (
	decodeTypesDyn = dynamic.NewTypes(protobuftest.DynamicFiles())
	partialMarshal = proto.MarshalOptions{Deterministic: true, AllowPartial: true}
)

// decodePair unmarshals b into pre (a dynamicpb message, maybe holding
// content already) and into its dynamic twin dyn, with o (o.Resolver is
// set to each side's own types), and compares the outcomes. It returns
// the dynamicpb error.
func decodePair(t testing.TB, b []byte, o proto.UnmarshalOptions, dpb, dyn proto.Message) error {
	t.Helper()
	md := dpb.ProtoReflect().Descriptor()
	od, om := o, o
	od.Resolver = protobuftest.DynamicTypes()
	om.Resolver = decodeTypesDyn
	panicked, errd := unmarshalRecover(od, b, dpb)
	errm := om.Unmarshal(b, dyn)
	if panicked != nil {
		// proto.Unmarshal panics on dynamicpb where a map entry holds a
		// key and then a key of another wire type (protobuf-go's
		// reflection path sets the key to an invalid value). The
		// generated code keeps the first key, as the decoder does: hold
		// dynamic to the generated type then.
		gen := generatedOf(t, md, panicked)
		errg := proto.UnmarshalOptions{Merge: o.Merge, AllowPartial: o.AllowPartial, DiscardUnknown: o.DiscardUnknown, RecursionLimit: o.RecursionLimit}.Unmarshal(b, gen)
		if (errg == nil) != (errm == nil) {
			t.Fatalf("%v %+v: Unmarshal of %x: generated error %v, dynamic error %v", md.FullName(), o, b, errg, errm)
		}
		if errg == nil {
			bg, _ := partialMarshal.Marshal(gen)
			bm, _ := partialMarshal.Marshal(dyn)
			if !bytes.Equal(bg, bm) {
				t.Fatalf("%v: re-encoding differs from the generated type's:\n%s", md.FullName(), protobuftest.FirstDiff(bm, bg, md))
			}
		}
		return errg
	}
	if (errd == nil) != (errm == nil) {
		t.Fatalf("%v %+v: Unmarshal of %x: dynamicpb error %v, dynamic error %v\n%s", md.FullName(), o, b, errd, errm, protobuftest.WireTree(b, md))
	}
	if errm != nil {
		if !errors.Is(errm, proto.Error) {
			t.Fatalf("%v: error %q (%T) is not a proto.Error", md.FullName(), errm, errm)
		}
		return errd
	}
	sameContents(t, dpb, dyn)
	return nil
}

// unmarshalRecover runs o.Unmarshal(b, m), recovering a panic.
func unmarshalRecover(o proto.UnmarshalOptions, b []byte, m proto.Message) (panicked any, err error) {
	defer func() { panicked = recover() }()
	return nil, o.Unmarshal(b, m)
}

// generatedOf returns a new message of the generated type of md, whose
// dynamicpb decoding panicked with p (which it reports if md has none,
// or if the message holds content already).
func generatedOf(t testing.TB, md protoreflect.MessageDescriptor, p any) proto.Message {
	t.Helper()
	for _, tw := range protobuftest.Twins() {
		if tw.Name == md.FullName() {
			return tw.Gen.New().Interface()
		}
	}
	t.Fatalf("%v: proto.Unmarshal panics on dynamicpb: %v", md.FullName(), p)
	return nil
}

// sameContents checks that dpb and dyn, a dynamicpb message and a dynamic
// one of the same type, encode to the same bytes and populate the same
// fields.
func sameContents(t testing.TB, dpb, dyn proto.Message) {
	t.Helper()
	md := dpb.ProtoReflect().Descriptor()
	protobuftest.QuietFloat32NaNs(dpb)
	protobuftest.QuietFloat32NaNs(dyn)
	want, errw := partialMarshal.Marshal(dpb)
	got, errg := partialMarshal.Marshal(dyn)
	if (errw == nil) != (errg == nil) {
		t.Fatalf("%v: Marshal errors %v (dynamicpb), %v (dynamic)", md.FullName(), errw, errg)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%v: re-encoding differs from dynamicpb's:\n%s\ndynamic:\n%s\ndynamicpb:\n%s", md.FullName(),
			protobuftest.FirstDiff(got, want, md), protobuftest.WireTree(got, md), protobuftest.WireTree(want, md))
	}
	if a, b := populated(dpb), populated(dyn); a != b {
		t.Fatalf("%v: populated fields differ: dynamicpb %s, dynamic %s", md.FullName(), a, b)
	}
	if !bytes.Equal(dpb.ProtoReflect().GetUnknown(), dyn.ProtoReflect().GetUnknown()) {
		t.Fatalf("%v: unknown fields differ: dynamicpb %x, dynamic %x", md.FullName(), dpb.ProtoReflect().GetUnknown(), dyn.ProtoReflect().GetUnknown())
	}
}

// populated lists the numbers of the fields Range visits, in number
// order, as a string.
func populated(m proto.Message) string {
	var set [][2]int
	m.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		n := 1
		switch {
		case fd.IsList():
			n = v.List().Len()
		case fd.IsMap():
			n = v.Map().Len()
		}
		set = append(set, [2]int{int(fd.Number()), n})
		return true
	})
	for i := range set {
		for j := i + 1; j < len(set); j++ {
			if set[j][0] < set[i][0] {
				set[i], set[j] = set[j], set[i]
			}
		}
	}
	return fmt.Sprint(set)
}

// TestUnmarshalRandom decodes random messages of every test type, with
// every option, into dynamicpb and dynamic messages.
func TestUnmarshalRandom(t *testing.T) {
	seeds := uint64(12)
	if testing.Short() {
		seeds = 4
	}
	for _, tw := range protobuftest.Twins() {
		t.Run(string(tw.Name), func(t *testing.T) {
			md := tw.Dyn.Descriptor()
			for seed := range seeds {
				opts := protobuftest.RandOptions{Unknown: seed%2 == 0, Partial: seed%3 == 1, MaxDepth: 1 + int(seed%4)}
				src, _ := dyntest.Filled(tw, seed, opts)
				b, err := proto.MarshalOptions{AllowPartial: true}.Marshal(src)
				if err != nil {
					t.Fatal(err)
				}
				for _, o := range []proto.UnmarshalOptions{
					{},
					{AllowPartial: true},
					{DiscardUnknown: true, AllowPartial: true},
					{RecursionLimit: 1 + int(seed%5)},
					{RecursionLimit: 2 + int(seed%3), AllowPartial: true},
				} {
					decodePair(t, b, o, dynamicpb.NewMessage(md), dynamic.NewMessage(md))
					sameAsProto(t, b, o, md)
				}
				// Merge into messages holding content; and proto.Unmarshal
				// resets them first.
				for _, merge := range []bool{true, false} {
					dpb, dyn := dyntest.Filled(tw, seed+1000, protobuftest.RandOptions{Unknown: true, Partial: true})
					decodePair(t, b, proto.UnmarshalOptions{Merge: merge, AllowPartial: true}, dpb, dyn)
				}
				// Two encodings in a row: the second merges into the first.
				src2, _ := dyntest.Filled(tw, seed+2000, opts)
				b2, _ := proto.MarshalOptions{AllowPartial: true}.Marshal(src2)
				decodePair(t, append(append([]byte(nil), b...), b2...), proto.UnmarshalOptions{AllowPartial: true}, dynamicpb.NewMessage(md), dynamic.NewMessage(md))
			}
		})
	}
}

// TestCheckInitialized compares proto.CheckInitialized on random messages
// that may miss required fields.
func TestCheckInitialized(t *testing.T) {
	for _, tw := range protobuftest.Twins() {
		for seed := range uint64(6) {
			dpb, dyn := dyntest.Filled(tw, seed, protobuftest.RandOptions{Partial: true})
			errd, errm := proto.CheckInitialized(dpb), proto.CheckInitialized(dyn)
			if (errd == nil) != (errm == nil) {
				t.Fatalf("%v seed %d: CheckInitialized: dynamicpb %v, dynamic %v", tw.Name, seed, errd, errm)
			}
			if errm != nil && !errors.Is(errm, proto.Error) {
				t.Fatalf("%v: error %q is not a proto.Error", tw.Name, errm)
			}
		}
	}
}

// rec builds wire records for the hand cases.
type rec []byte

func (r rec) varint(num protowire.Number, v uint64) rec {
	return protowire.AppendVarint(protowire.AppendTag(r, num, protowire.VarintType), v)
}

func (r rec) fixed32(num protowire.Number, v uint32) rec {
	return protowire.AppendFixed32(protowire.AppendTag(r, num, protowire.Fixed32Type), v)
}

func (r rec) fixed64(num protowire.Number, v uint64) rec {
	return protowire.AppendFixed64(protowire.AppendTag(r, num, protowire.Fixed64Type), v)
}

func (r rec) bytes(num protowire.Number, v []byte) rec {
	return protowire.AppendBytes(protowire.AppendTag(r, num, protowire.BytesType), v)
}

func (r rec) str(num protowire.Number, s string) rec { return r.bytes(num, []byte(s)) }

func (r rec) group(num protowire.Number, body []byte) rec {
	r = append(protowire.AppendTag(r, num, protowire.StartGroupType), body...)
	return protowire.AppendTag(r, num, protowire.EndGroupType)
}

func (r rec) raw(b ...byte) rec { return append(r, b...) }

// packed returns the packed varints vs.
func packed(vs ...uint64) []byte {
	var b []byte
	for _, v := range vs {
		b = protowire.AppendVarint(b, v)
	}
	return b
}

// handCase is one input and what proto.Unmarshal does with it.
type handCase struct {
	name    string
	message protoreflect.FullName
	in      rec
	opts    proto.UnmarshalOptions
	// err says whether Unmarshal fails (on both sides).
	err bool
	// missingRequired says that the input misses required fields: it
	// fails only without AllowPartial.
	missingRequired bool
}

const (
	all2  = "protolayout.test2.TestAllTypes"
	all3  = "protolayout.test3.TestAllTypes"
	allEd = "protolayout.testeditions.TestAllTypes"
	// edOver's r (6, int32) and rd (8, double) are expanded lists with
	// one-byte tags.
	edOver = "protolayout.testeditions.TestFileOverrides"
	ext2   = "protolayout.test2.TestAllExtensions"
)

func handCases() []handCase {
	nested := rec(nil).varint(1, 7)
	return []handCase{
		// Scalars: the last value wins; every kind.
		{name: "last wins", message: all2, in: rec(nil).varint(1, 5).varint(1, 6).str(14, "a").str(14, "b")},
		{name: "int32 sign extension", message: all2, in: rec(nil).varint(1, 1<<63|0xffffffff)},
		{name: "sint32 zigzag high bits", message: all2, in: rec(nil).varint(5, 1<<40|3).varint(6, 3)},
		{name: "uint32 truncation", message: all2, in: rec(nil).varint(3, 1<<33|9)},
		{name: "bool from big varint", message: all2, in: rec(nil).varint(13, 1<<40)},
		{name: "fixed kinds", message: all2, in: rec(nil).fixed32(7, 1<<31).fixed64(8, 1<<63).fixed32(9, 1<<31).fixed64(10, 1<<63).fixed32(11, 0x7f800001).fixed64(12, 0x7ff0000000000001)},
		{name: "proto3 zeros", message: all3, in: rec(nil).varint(1, 0).str(14, "").bytes(15, nil)},
		{name: "empty bytes", message: all2, in: rec(nil).bytes(15, nil)},
		// Repeated: packed and unpacked both accepted.
		{name: "unpacked into packed", message: all3, in: rec(nil).varint(31, 1).varint(31, 2)},
		{name: "packed into unpacked", message: all2, in: rec(nil).bytes(31, packed(1, 2, 300))},
		{name: "mixed", message: all2, in: rec(nil).varint(31, 1).bytes(31, packed(2, 3)).varint(31, 4)},
		{name: "packed fixed", message: all3, in: rec(nil).bytes(37, []byte{1, 0, 0, 0, 2, 0, 0, 0}).fixed32(37, 3)},
		{name: "packed fixed ragged", message: all3, in: rec(nil).bytes(37, []byte{1, 0, 0}), err: true},
		{name: "packed varint truncated", message: all3, in: rec(nil).bytes(31, []byte{0x80}), err: true},
		{name: "empty packed", message: all3, in: rec(nil).bytes(31, nil)},
		// Packed runs of every element op, at the edges of each word rule.
		{name: "packed int32 sign extension", message: all3, in: rec(nil).bytes(31, packed(1<<63|0xffffffff, 1<<32|5, 0, 1<<63))},
		{name: "packed enum negative", message: all3, in: rec(nil).bytes(51, packed(0xffffffffffffffff, 1, 1<<40|2))},
		{name: "packed uint32 truncation", message: all3, in: rec(nil).bytes(33, packed(1<<33|9, 0xffffffff, 1<<63))},
		{name: "packed sint32 zigzag high bits", message: all3, in: rec(nil).bytes(35, packed(1<<40|3, 0xffffffff, 0xfffffffe, 1))},
		{name: "packed sint64", message: all3, in: rec(nil).bytes(36, packed(0xffffffffffffffff, 0xfffffffffffffffe, 3))},
		{name: "packed int64 and uint64", message: all3, in: rec(nil).bytes(32, packed(1<<63, 127, 128)).bytes(34, packed(1<<63|1, 16383, 16384))},
		{name: "packed bool from big varints", message: all3, in: rec(nil).bytes(43, packed(1<<40, 0, 2, 1<<63))},
		{name: "packed sfixed32 negative", message: all3, in: rec(nil).bytes(39, []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0x80, 1, 0, 0, 0})},
		{name: "packed float and double", message: all3, in: rec(nil).bytes(41, []byte{1, 0, 0xc0, 0x7f}).bytes(42, []byte{1, 0, 0, 0, 0, 0, 0xf0, 0xff})},
		{name: "packed fixed64 ragged", message: all3, in: rec(nil).bytes(38, []byte{1, 0, 0, 0, 0, 0, 0, 0, 2}), err: true},
		{name: "packed varint too long", message: all3, in: rec(nil).bytes(32, []byte{1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}), err: true},
		{name: "packed varint truncated after values", message: all3, in: rec(nil).bytes(34, []byte{1, 2, 0xff}), err: true},
		{name: "packed runs appended", message: all3, in: rec(nil).bytes(35, packed(1, 2)).varint(35, 3).bytes(35, packed(4))},
		// Runs of unpacked elements, which the decoder reads in one loop:
		// every element op, tags of one and of two bytes, runs cut short,
		// interleaved, continued after other fields, and with a tag in
		// more bytes than it needs.
		{name: "unpacked run int32", message: all2, in: rec(nil).varint(31, 1<<63|0xffffffff).varint(31, 1<<32|5).varint(31, 300).varint(1, 1)},
		{name: "unpacked run of every op", message: all2, in: rec(nil).varint(32, 1<<63).varint(32, 1).varint(33, 1<<33|9).varint(33, 7).varint(34, 1<<63|1).varint(35, 1<<40|3).varint(35, 0xffffffff).varint(36, 0xffffffffffffffff).varint(36, 3).fixed32(37, 1<<31).fixed32(37, 2).fixed64(38, 1<<63).fixed64(38, 5).fixed32(39, 0xffffffff).fixed32(39, 1).fixed64(40, 1<<63).fixed32(41, 0x7fc00001).fixed64(42, 0xfff0000000000001).varint(43, 1<<40).varint(43, 0).varint(51, 0xffffffffffffffff).varint(51, 2)},
		{name: "unpacked run one-byte tag", message: edOver, in: rec(nil).varint(6, 1).varint(6, 0xffffffff).varint(6, 300).fixed64(8, 1).fixed64(8, 2).varint(1, 5).varint(6, 4)},
		{name: "unpacked run interleaved", message: all2, in: rec(nil).varint(31, 1).varint(32, 2).varint(31, 3).str(44, "a").varint(31, 4).varint(31, 5)},
		{name: "unpacked run long tag", message: edOver, in: rec(nil).varint(6, 1).raw(0xb0, 0x00, 0x02).varint(6, 3)},
		{name: "unpacked run truncated varint", message: all2, in: rec(nil).varint(31, 1).varint(31, 2).raw(0xf8, 0x01, 0x80), err: true},
		{name: "unpacked run truncated fixed", message: edOver, in: rec(nil).fixed64(8, 1).raw(0x41, 1, 2, 3), err: true},
		{name: "unpacked run tag at the end", message: edOver, in: rec(nil).varint(6, 1).raw(0x30), err: true},
		{name: "unpacked run, tags alike in their first byte", message: all2, in: rec(nil).varint(35, 1).varint(51, 2).varint(35, 3).varint(51, 4)},
		{name: "unpacked then packed", message: all2, in: rec(nil).varint(35, 1).varint(35, 2).bytes(35, packed(3, 4)).varint(35, 5)},
		// Runs of list elements, which the decoder counts ahead to size
		// the list: contiguous, interleaved, with a tag in more bytes
		// than it needs, cut short, and a run that continues a list.
		{name: "message run", message: all2, in: rec(nil).bytes(48, nested).bytes(48, nil).bytes(48, nested).varint(1, 1)},
		{name: "message run interleaved", message: all2, in: rec(nil).bytes(48, nested).varint(1, 1).bytes(48, nil).str(44, "a").bytes(48, nested).str(44, "b").str(44, "c")},
		{name: "message run long tag", message: all2, in: rec(nil).bytes(48, nested).raw(0x82, 0x83, 0x00, 0x00).bytes(48, nested)},
		{name: "message run truncated", message: all2, in: rec(nil).bytes(48, nested).bytes(48, nested).raw(0x82, 0x03, 0x05, 0x08), err: true},
		{name: "message run bad length", message: all2, in: rec(nil).bytes(48, nested).raw(0x82, 0x03, 0xff), err: true},
		{name: "message run as groups", message: all2, in: rec(nil).group(48, nested).group(48, nil).bytes(48, nested)},
		{name: "string and bytes runs", message: all2, in: rec(nil).str(44, "a").str(44, "b").bytes(45, nil).bytes(45, []byte("x")).str(44, "c").bytes(45, []byte("y"))},
		{name: "string run bad utf8", message: all3, in: rec(nil).str(44, "a").str(44, "b").str(44, "\xff"), err: true},
		// Messages merge; a oneof member read clears the one set before.
		{name: "message merge", message: all2, in: rec(nil).bytes(18, rec(nil).varint(1, 1)).bytes(18, rec(nil).bytes(3, rec(nil).str(1, "x")))},
		{name: "oneof switch", message: all2, in: rec(nil).bytes(112, nested).varint(119, 1).bytes(112, rec(nil).bytes(2, nil))},
		{name: "oneof same member merges", message: all2, in: rec(nil).bytes(112, nested).bytes(112, rec(nil).bytes(2, nil))},
		{name: "oneof scalar then string", message: all3, in: rec(nil).varint(111, 5).str(113, "s").varint(111, 6)},
		// Groups.
		{name: "group", message: all2, in: rec(nil).group(16, rec(nil).varint(17, 3).str(18, "g")).group(16, rec(nil).varint(17, 4))},
		{name: "repeated group", message: all2, in: rec(nil).group(46, rec(nil).varint(47, 1)).group(46, nil)},
		{name: "group mismatched end", message: all2, in: rec(nil).raw(0x83, 0x01).varint(17, 3).raw(0x7c), err: true},
		{name: "group unterminated", message: all2, in: rec(nil).raw(0x83, 0x01).varint(17, 3), err: true},
		{name: "stray end group", message: all2, in: rec(nil).raw(0x2c), err: true},
		{name: "unknown group", message: all2, in: rec(nil).group(900, rec(nil).varint(1, 1).group(2, nil))},
		{name: "group as bytes", message: all2, in: rec(nil).bytes(16, rec(nil).varint(17, 3))},
		{name: "message as group", message: all2, in: rec(nil).group(18, rec(nil).varint(1, 3))},
		// Maps.
		{name: "map entry", message: all2, in: rec(nil).bytes(131, rec(nil).varint(1, 1).varint(2, 2))},
		{name: "map entry reversed", message: all2, in: rec(nil).bytes(131, rec(nil).varint(2, 2).varint(1, 1))},
		{name: "map no key", message: all2, in: rec(nil).bytes(131, rec(nil).varint(2, 2))},
		{name: "map no value", message: all2, in: rec(nil).bytes(144, rec(nil).str(1, "k"))},
		{name: "map empty entry", message: all2, in: rec(nil).bytes(146, nil)},
		{name: "map duplicate keys", message: all2, in: rec(nil).bytes(131, rec(nil).varint(1, 1).varint(2, 2)).bytes(131, rec(nil).varint(1, 1).varint(2, 3))},
		{name: "map message value replaced", message: all2, in: rec(nil).bytes(146, rec(nil).str(1, "k").bytes(2, nested)).bytes(146, rec(nil).str(1, "k").bytes(2, rec(nil).bytes(2, nil)))},
		{name: "map message value merged in entry", message: all2, in: rec(nil).bytes(146, rec(nil).bytes(2, nested).str(1, "k").bytes(2, rec(nil).bytes(2, nil)))},
		{name: "map extra fields", message: all2, in: rec(nil).bytes(131, rec(nil).varint(3, 9).varint(1, 1).fixed32(4, 0).varint(2, 2))},
		{name: "map key wrong wire type", message: all2, in: rec(nil).bytes(131, rec(nil).fixed32(1, 1).varint(2, 2))},
		{name: "map key twice, second of another wire type", message: all2, in: rec(nil).bytes(131, rec(nil).varint(1, 5).fixed32(1, 1).varint(2, 2))},
		{name: "map as group", message: all2, in: rec(nil).group(131, nil)},
		{name: "map truncated entry", message: all2, in: rec(nil).bytes(131, []byte{0x08}), err: true},
		{name: "map bad tag", message: all2, in: rec(nil).bytes(131, []byte{0x00, 0x01}), err: true},
		{name: "map bool key", message: all2, in: rec(nil).bytes(143, rec(nil).varint(1, 7).varint(2, 1<<35))},
		// Enums: numbers stored as read, closed enums included.
		{name: "closed enum unknown value", message: all2, in: rec(nil).varint(20, 99).varint(1, 1)},
		{name: "closed enum list unknown values", message: all2, in: rec(nil).bytes(50, packed(1, 99, 2)).varint(75, 77)},
		{name: "open enum", message: all3, in: rec(nil).varint(21, 12345).varint(21, 1<<63)},
		{name: "map closed enum value", message: all2, in: rec(nil).bytes(148, rec(nil).varint(1, 1).varint(2, 77))},
		// UTF-8.
		{name: "proto3 bad utf8", message: all3, in: rec(nil).str(14, "\xff"), err: true},
		{name: "proto3 repeated bad utf8", message: all3, in: rec(nil).str(44, "\xc3"), err: true},
		{name: "proto3 map key bad utf8", message: all3, in: rec(nil).bytes(144, rec(nil).str(1, "\xff")), err: true},
		{name: "proto3 map value bad utf8", message: all3, in: rec(nil).bytes(144, rec(nil).str(1, "k").str(2, "\xff")), err: true},
		{name: "proto2 bad utf8", message: all2, in: rec(nil).str(14, "\xff").str(44, "\xfe").bytes(144, rec(nil).str(1, "\xff").str(2, "\xfe"))},
		// Invalid wire data.
		{name: "truncated tag", message: all2, in: rec(nil).raw(0x80), err: true},
		{name: "truncated varint", message: all2, in: rec(nil).raw(0x08, 0x80), err: true},
		{name: "overlong varint", message: all2, in: rec(nil).raw(0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02), err: true},
		{name: "truncated fixed32", message: all2, in: rec(nil).raw(0x3d, 1, 2), err: true},
		{name: "truncated fixed64", message: all2, in: rec(nil).raw(0x41, 1, 2, 3), err: true},
		{name: "truncated length", message: all2, in: rec(nil).raw(0x72, 0x05, 'a'), err: true},
		{name: "huge length", message: all2, in: rec(nil).raw(0x72, 0xff, 0xff, 0xff, 0xff, 0x0f), err: true},
		{name: "truncated submessage", message: all2, in: rec(nil).bytes(18, []byte{0x08}), err: true},
		{name: "wire type 6", message: all2, in: rec(nil).raw(0x0e, 0x01), err: true},
		{name: "wire type 7", message: all2, in: rec(nil).raw(0x0f), err: true},
		{name: "field number 0", message: all2, in: rec(nil).raw(0x00, 0x01), err: true},
		{name: "field number too big", message: all2, in: rec(nil).raw(protowire.AppendVarint(nil, uint64(protowire.MaxValidNumber+1)<<3)...).raw(0), err: true},
		{name: "largest field number", message: all2, in: rec(nil).varint(protowire.MaxValidNumber, 1)},
		{name: "reserved numbers", message: all2, in: rec(nil).varint(19000, 1).varint(19999, 2)},
		// Known fields with the wrong wire type are unknown fields.
		{name: "wrong wire type scalar", message: all2, in: rec(nil).fixed32(1, 5).varint(1, 6).fixed64(1, 7)},
		{name: "wrong wire type string", message: all3, in: rec(nil).varint(14, 5)},
		{name: "wrong wire type message", message: all3, in: rec(nil).varint(18, 5)},
		{name: "wrong wire type list", message: all3, in: rec(nil).fixed64(31, 5)},
		{name: "wrong wire type string list", message: all3, in: rec(nil).varint(44, 5)},
		{name: "wrong wire type map", message: all3, in: rec(nil).varint(131, 5)},
		{name: "unknown fields in order", message: all2, in: rec(nil).varint(900, 1).varint(1, 1).fixed32(901, 2).str(14, "x").bytes(902, []byte("u"))},
		{name: "discard unknown", message: all2, in: rec(nil).varint(900, 1).bytes(18, rec(nil).varint(901, 1)), opts: proto.UnmarshalOptions{DiscardUnknown: true}},
		// Extensions, through the resolver.
		{name: "extension scalars", message: ext2, in: rec(nil).varint(1, 5).varint(1, 6).str(14, "x")},
		{name: "extension packed and unpacked", message: ext2, in: rec(nil).varint(31, 1).bytes(31, packed(2, 3))},
		{name: "extension message merge", message: ext2, in: rec(nil).bytes(18, rec(nil).varint(1, 1)).bytes(18, rec(nil).bytes(3, nil))},
		{name: "extension group", message: ext2, in: rec(nil).group(16, rec(nil).varint(17, 1)).group(46, nil).group(46, rec(nil).varint(47, 2))},
		{name: "extension wrong wire type", message: ext2, in: rec(nil).fixed32(1, 5).varint(14, 1).varint(18, 1)},
		{name: "extension repeated strings", message: ext2, in: rec(nil).str(44, "a").str(44, "\xff")},
		{name: "extension depth", message: ext2, in: rec(nil).bytes(18, nil), opts: proto.UnmarshalOptions{RecursionLimit: 1}, err: true},
		{name: "extension in range unknown", message: "protolayout.test2.TestRequired", in: rec(nil).varint(5, 1).varint(2, 1).varint(150, 1)},
		// Required fields.
		{name: "required missing", message: "protolayout.test2.TestRequired", in: rec(nil).varint(5, 1), err: true, missingRequired: true},
		{name: "required set", message: "protolayout.test2.TestRequired", in: rec(nil).varint(5, 1).varint(2, 1)},
		{name: "required nested missing", message: "protolayout.test2.TestRequiredContainer", in: rec(nil).bytes(1, rec(nil).varint(5, 1).varint(2, 1).bytes(1, nil)), err: true, missingRequired: true},
		{name: "required in list", message: "protolayout.test2.TestRequiredContainer", in: rec(nil).bytes(2, rec(nil).varint(5, 1)), err: true, missingRequired: true},
		{name: "required in map", message: "protolayout.test2.TestRequiredContainer", in: rec(nil).bytes(3, rec(nil).str(1, "k").bytes(2, nil)), err: true, missingRequired: true},
		{name: "required in oneof", message: "protolayout.test2.TestRequiredContainer", in: rec(nil).bytes(4, rec(nil).varint(2, 1)), err: true, missingRequired: true},
		{name: "required in group", message: "protolayout.test2.TestRequired", in: rec(nil).varint(5, 1).varint(2, 1).group(9, nil), err: true, missingRequired: true},
		{name: "required in extension", message: "protolayout.test2.TestRequired", in: rec(nil).varint(5, 1).varint(2, 1).bytes(100, nil), err: true, missingRequired: true},
		{name: "required in extension set", message: "protolayout.test2.TestRequired", in: rec(nil).varint(5, 1).varint(2, 1).bytes(101, rec(nil).varint(1, 1))},
		{name: "editions required missing", message: "protolayout.testeditions.TestRequired", in: rec(nil).varint(5, 1), err: true, missingRequired: true},
		// Editions: UTF-8 checked unless NONE; delimited messages.
		{name: "editions bad utf8", message: allEd, in: rec(nil).str(14, "\xff"), err: true},
		{name: "editions repeated bad utf8", message: allEd, in: rec(nil).str(44, "\xff"), err: true},
		{name: "editions utf8 none", message: allEd, in: rec(nil).str(101, "\xff").str(103, "\xfe").bytes(104, rec(nil).str(1, "\xff").str(2, "\xfe")).str(122, "\xff")},
		{name: "editions delimited", message: allEd, in: rec(nil).group(16, rec(nil).varint(1, 1)).group(46, nil).bytes(16, rec(nil).varint(1, 2))},
		// Recursion.
		{name: "depth 1 flat", message: all2, in: rec(nil).varint(1, 1), opts: proto.UnmarshalOptions{RecursionLimit: 1}},
		{name: "depth 1 nested", message: all2, in: rec(nil).bytes(19, rec(nil).varint(1, 1)), opts: proto.UnmarshalOptions{RecursionLimit: 1}, err: true},
		{name: "depth 2 nested", message: all2, in: rec(nil).bytes(19, rec(nil).varint(1, 1)), opts: proto.UnmarshalOptions{RecursionLimit: 2}},
		{name: "depth 1 map entry", message: all2, in: rec(nil).bytes(131, nil), opts: proto.UnmarshalOptions{RecursionLimit: 1}, err: true},
		{name: "depth 2 map message value", message: all2, in: rec(nil).bytes(146, rec(nil).bytes(2, nil)), opts: proto.UnmarshalOptions{RecursionLimit: 2}, err: true},
		{name: "depth 3 map message value", message: all2, in: rec(nil).bytes(146, rec(nil).bytes(2, nil)), opts: proto.UnmarshalOptions{RecursionLimit: 3}},
		{name: "depth 1 map wrong wire type", message: all2, in: rec(nil).varint(131, 1), opts: proto.UnmarshalOptions{RecursionLimit: 1}, err: true},
		{name: "depth 1 group", message: all2, in: rec(nil).group(16, nil), opts: proto.UnmarshalOptions{RecursionLimit: 1}, err: true},
		{name: "depth 1 unknown group", message: all2, in: rec(nil).group(900, rec(nil).group(901, nil)), opts: proto.UnmarshalOptions{RecursionLimit: 1}},
		{name: "negative limit", message: all2, in: nil, opts: proto.UnmarshalOptions{RecursionLimit: -1}, err: true},
		{name: "deep default limit", message: "protolayout.test2.TestAllTypes.NestedMessage.DeepNested", in: deep(9999)},
		{name: "deep over default limit", message: "protolayout.test2.TestAllTypes.NestedMessage.DeepNested", in: deep(10000), err: true},
	}
}

// deep returns a DeepNested chain of n messages below the top.
func deep(n int) rec {
	var b rec
	for range n {
		b = rec(nil).bytes(2, b)
	}
	return b
}

func TestUnmarshalHandCases(t *testing.T) {
	for _, c := range handCases() {
		t.Run(c.name, func(t *testing.T) {
			md := protobuftest.TwinByName(c.message).Dyn.Descriptor()
			for _, partial := range []bool{false, true} {
				o := c.opts
				o.AllowPartial = partial
				err := decodePair(t, c.in, o, dynamicpb.NewMessage(md), dynamic.NewMessage(md))
				if (err != nil) != (c.err && !(partial && c.missingRequired)) {
					t.Fatalf("Unmarshal error %v, want error %v", err, c.err)
				}
			}
		})
	}
}

// TestUnmarshalForeignExtensionTypes decodes extensions whose types are
// dynamicpb's (another implementation's values in a dynamic message).
func TestUnmarshalForeignExtensionTypes(t *testing.T) {
	for _, tw := range protobuftest.Twins() {
		if len(tw.DynExts) == 0 {
			continue
		}
		md := tw.Dyn.Descriptor()
		for seed := range uint64(4) {
			src, _ := dyntest.Filled(tw, seed, protobuftest.RandOptions{Unknown: true})
			b, err := proto.Marshal(src)
			if err != nil {
				t.Fatal(err)
			}
			for _, limit := range []int{0, 2, 3} {
				o := proto.UnmarshalOptions{Resolver: protobuftest.DynamicTypes(), RecursionLimit: limit}
				dpb, dyn := dynamicpb.NewMessage(md), dynamic.NewMessage(md)
				errd, errm := o.Unmarshal(b, dpb), o.Unmarshal(b, dyn)
				if (errd == nil) != (errm == nil) {
					t.Fatalf("%v seed %d limit %d: dynamicpb error %v, dynamic error %v", tw.Name, seed, limit, errd, errm)
				}
				if errd == nil {
					sameContents(t, dpb, dyn)
				}
			}
		}
	}
}

// TestUnmarshalMessageSet decodes into a MessageSet type, which goes
// through reflection (and fails there unless built with protolegacy).
func TestUnmarshalMessageSet(t *testing.T) {
	types := protobuftest.DynamicTypes()
	var n int
	types.RangeMessages(func(mt protoreflect.MessageType) bool {
		md := mt.Descriptor()
		if !reachesMessageSet(md, nil) {
			return true
		}
		n++
		for _, in := range []rec{nil, rec(nil).varint(1, 1), rec(nil).group(1, rec(nil).varint(2, 4).bytes(3, nil))} {
			decodePair(t, in, proto.UnmarshalOptions{AllowPartial: true}, dynamicpb.NewMessage(md), dynamic.NewMessage(md))
		}
		return true
	})
	if n == 0 {
		t.Fatal("no MessageSet types")
	}
}

// wideType is a message of 596 fields, for the decoder's paths that only
// a wide message takes: its index by number is dense up to four numbers
// a field, past 2048, so that it finds fields numbered from 2048, whose
// tags take three bytes, there. Among those: lists of messages (of its
// own type), of strings and of int32 (packed), a string and a message.
var wideType = sync.OnceValue(func() protoreflect.MessageDescriptor {
	m := &descriptorpb.DescriptorProto{Name: proto.String("Wide")}
	add := func(num int32, label descriptorpb.FieldDescriptorProto_Label, typ descriptorpb.FieldDescriptorProto_Type) {
		f := &descriptorpb.FieldDescriptorProto{Name: proto.String(fmt.Sprintf("f%d", num)), JsonName: proto.String(fmt.Sprintf("f%d", num)),
			Number: proto.Int32(num), Label: label.Enum(), Type: typ.Enum()}
		if typ == descriptorpb.FieldDescriptorProto_TYPE_MESSAGE {
			f.TypeName = proto.String(".protolayout.fuzz.Wide")
		}
		m.Field = append(m.Field, f)
	}
	opt, rep := descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL, descriptorpb.FieldDescriptorProto_LABEL_REPEATED
	for n := int32(1); n <= 590; n++ {
		add(n, opt, descriptorpb.FieldDescriptorProto_TYPE_INT32)
	}
	add(2048, rep, descriptorpb.FieldDescriptorProto_TYPE_MESSAGE)
	add(2049, rep, descriptorpb.FieldDescriptorProto_TYPE_STRING)
	add(2050, rep, descriptorpb.FieldDescriptorProto_TYPE_INT32)
	add(2051, opt, descriptorpb.FieldDescriptorProto_TYPE_STRING)
	add(2052, opt, descriptorpb.FieldDescriptorProto_TYPE_MESSAGE)
	add(2100, rep, descriptorpb.FieldDescriptorProto_TYPE_MESSAGE)
	fd, err := protodesc.NewFile(&descriptorpb.FileDescriptorProto{
		Name:        proto.String("protolayout/fuzz/wide.proto"),
		Package:     proto.String("protolayout.fuzz"),
		Syntax:      proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{m},
	}, nil)
	if err != nil {
		panic(err)
	}
	return fd.Messages().Get(0)
})

// wideSeeds are inputs for wideType: runs of its lists of messages, whose
// tags take three bytes, and such a run followed by another field's
// record whose tag starts with the same byte, written in two bytes.
func wideSeeds() [][]byte {
	item := func(b []byte, num protowire.Number, a uint64) []byte {
		b = protowire.AppendTag(b, num, protowire.BytesType)
		return protowire.AppendBytes(b, protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), a))
	}
	tag := protowire.AppendTag(nil, 2100, protowire.BytesType)
	other := append([]byte{tag[0], 0x00}, protowire.AppendBytes(nil, []byte{1, 2, 3})...)
	return [][]byte{
		item(item(item(nil, 2048, 1), 2048, 2), 2100, 3),
		item(append(item(nil, 2100, 1), other...), 2100, 2),
		protowire.AppendString(protowire.AppendTag(item(nil, 2048, 5), 2049, protowire.BytesType), "s"),
	}
}

// FuzzUnmarshal decodes arbitrary bytes into a dynamicpb and a dynamic
// message of every test type, and of wideType: both must fail or both
// succeed, and then encode to the same bytes; the dynamic message's
// Clone, Merge and Equal are checked too (checkMerge), and writes into
// every message of it (checkWrites).
func FuzzUnmarshal(f *testing.F) {
	addDecodeSeeds(f)
	mds := decodeFuzzTypes()
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, md := range mds {
			for _, o := range []proto.UnmarshalOptions{{}, {AllowPartial: true, DiscardUnknown: true}} {
				dyn := dynamic.NewMessage(md)
				if decodePair(t, b, o, dynamicpb.NewMessage(md), dyn) == nil {
					checkMerge(t, dyn)
					checkWrites(t, b, o, md)
				}
				sameAsProto(t, b, o, md)
			}
		}
	})
}

// decodeFuzzTypes returns the types the decode fuzz targets that need no
// generated twin decode into: every test type, and wideType.
func decodeFuzzTypes() []protoreflect.MessageDescriptor {
	var mds []protoreflect.MessageDescriptor
	for _, tw := range protobuftest.Twins() {
		mds = append(mds, tw.Dyn.Descriptor())
	}
	return append(mds, wideType())
}

// addDecodeSeeds adds the decode fuzz targets' seeds: two random
// messages of every test type, encoded, the hand cases' inputs and
// wideType's seeds.
func addDecodeSeeds(f *testing.F) {
	for _, b := range wideSeeds() {
		f.Add(b)
	}
	for i, tw := range protobuftest.Twins() {
		for seed := range uint64(2) {
			src, _ := dyntest.Filled(tw, seed+uint64(i), protobuftest.RandOptions{Unknown: true, Partial: seed == 1, MaxDepth: 2, MaxList: 2})
			b, err := proto.MarshalOptions{AllowPartial: true}.Marshal(src)
			if err == nil && len(b) < 4096 {
				f.Add(b)
			}
		}
	}
	for _, c := range handCases() {
		if len(c.in) < 4096 {
			f.Add([]byte(c.in))
		}
	}
}

// checkWrites decodes b, which decodes with o, into a dynamic message
// and a dynamicpb one of md and writes the same value into every message
// of each (writeAll): they must then encode alike. A dynamic message
// decoded before the writes and one decoded after them must encode as
// the first did before: the messages a decode finds empty share one
// block per type, which writes must leave alone.
func checkWrites(t testing.TB, b []byte, o proto.UnmarshalOptions, md protoreflect.MessageDescriptor) {
	t.Helper()
	om, od := o, o
	om.Resolver, od.Resolver = decodeTypesDyn, protobuftest.DynamicTypes()
	before := dynamic.NewMessage(md)
	if om.Unmarshal(b, before) != nil {
		return
	}
	protobuftest.QuietFloat32NaNs(before)
	was, err := partialMarshal.Marshal(before)
	if err != nil {
		return // invalid UTF-8: nothing to compare by encoding
	}
	dyn, dpb := dynamic.NewMessage(md), dynamicpb.NewMessage(md)
	if om.Unmarshal(b, dyn) != nil {
		t.Fatalf("%v: a second decode of %x fails", md.FullName(), b)
	}
	if panicked, err := unmarshalRecover(od, b, dpb); panicked != nil || err != nil {
		return // dynamicpb's known panic (see decodePair)
	}
	writeAll(dyn, 0)
	writeAll(dpb, 0)
	protobuftest.QuietFloat32NaNs(dyn)
	protobuftest.QuietFloat32NaNs(dpb)
	got, errg := partialMarshal.Marshal(dyn)
	want, errw := partialMarshal.Marshal(dpb)
	if (errg == nil) != (errw == nil) || !bytes.Equal(got, want) {
		t.Fatalf("%v: written to after decoding %x: dynamic %x (%v), dynamicpb %x (%v)", md.FullName(), b, got, errg, want, errw)
	}
	after := dynamic.NewMessage(md)
	if err := om.Unmarshal(b, after); err != nil {
		t.Fatal(err)
	}
	protobuftest.QuietFloat32NaNs(after)
	for name, m := range map[string]*dynamic.Message{"before": before, "after": after} {
		if now, _ := partialMarshal.Marshal(m); !bytes.Equal(now, was) {
			t.Fatalf("%v: a message decoded %s the writes encodes as\n%x\nnot\n%x", md.FullName(), name, now, was)
		}
	}
}

// writeAll sets one scalar field outside oneofs, the first declared of
// an integer or bool kind, to a value other than its default in m and in
// every message m holds (fields, list elements, map values) down to
// depth 8.
func writeAll(m protoreflect.Message, depth int) {
	if depth > 8 {
		return
	}
	fields := m.Descriptor().Fields()
	var first protoreflect.FieldDescriptor
	for i := range fields.Len() {
		fd := fields.Get(i)
		switch {
		case fd.IsList():
			if fd.Message() != nil {
				l := m.Get(fd).List()
				for j := range l.Len() {
					writeAll(l.Get(j).Message(), depth+1)
				}
			}
		case fd.IsMap():
			if fd.MapValue().Message() != nil {
				m.Get(fd).Map().Range(func(_ protoreflect.MapKey, v protoreflect.Value) bool {
					writeAll(v.Message(), depth+1)
					return true
				})
			}
		case fd.Message() != nil:
			if m.Has(fd) {
				writeAll(m.Get(fd).Message(), depth+1)
			}
		case first == nil && fd.ContainingOneof() == nil:
			switch fd.Kind() {
			case protoreflect.BoolKind, protoreflect.Int32Kind, protoreflect.Int64Kind,
				protoreflect.Uint32Kind, protoreflect.Uint64Kind:
				first = fd
			}
		}
	}
	if first == nil {
		return
	}
	var v protoreflect.Value
	switch first.Kind() {
	case protoreflect.BoolKind:
		v = protoreflect.ValueOfBool(true)
	case protoreflect.Int32Kind:
		v = protoreflect.ValueOfInt32(7)
	case protoreflect.Int64Kind:
		v = protoreflect.ValueOfInt64(7)
	case protoreflect.Uint32Kind:
		v = protoreflect.ValueOfUint32(7)
	default:
		v = protoreflect.ValueOfUint64(7)
	}
	m.Set(first, v)
}

// checkMerge checks proto.Clone and proto.Merge on m: a clone encodes as
// m does, and m merged into a clone of itself as the two encodings of m
// one after the other decode (which is what merging means for protocol
// buffers); and Equal on them against protoreflect's comparison.
func checkMerge(t testing.TB, m *dynamic.Message) {
	t.Helper()
	md := m.Descriptor()
	w, err := partialMarshal.Marshal(m)
	if err != nil {
		return // invalid UTF-8: nothing to compare by encoding
	}
	c := proto.Clone(m)
	if got, _ := partialMarshal.Marshal(c); !bytes.Equal(got, w) {
		t.Fatalf("%v: Clone encodes differently:\n%s", md.FullName(), protobuftest.FirstDiff(got, w, md))
	}
	proto.Merge(c, m)
	twice := dynamic.NewMessage(md)
	if err := (proto.UnmarshalOptions{AllowPartial: true, Resolver: decodeTypesDyn}).Unmarshal(append(w, w...), twice); err != nil {
		t.Fatalf("%v: decoding an encoding twice: %v", md.FullName(), err)
	}
	got, _ := partialMarshal.Marshal(c)
	want, _ := partialMarshal.Marshal(twice)
	if !bytes.Equal(got, want) {
		t.Fatalf("%v: Merge into a clone differs from decoding the encoding twice:\n%s", md.FullName(), protobuftest.FirstDiff(got, want, md))
	}
	// And Equal agrees with protoreflect's comparison on them.
	for _, p := range [][2]protoreflect.Message{{c.ProtoReflect(), twice}, {m, twice}, {m, proto.Clone(m).ProtoReflect()}} {
		if fastEqual(p[0], p[1]) != reflectEqual(p[0], p[1]) {
			t.Fatalf("%v: Equal disagrees with protoreflect", md.FullName())
		}
	}
}

// TestUnmarshalCopies checks that decoded strings and bytes are copies:
// writing the input afterwards, or a bytes value in place, or appending
// to one, changes nothing else.
func TestUnmarshalCopies(t *testing.T) {
	md := protobuftest.TwinByName(all2).Dyn.Descriptor()
	in := rec(nil).str(14, "string one").bytes(15, []byte("bytes one")).str(44, "s1").str(44, "s2").bytes(45, []byte("b1")).bytes(45, []byte("b2"))
	m := dynamic.NewMessage(md)
	if err := proto.Unmarshal(in, m); err != nil {
		t.Fatal(err)
	}
	want, err := partialMarshal.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	clear(in)
	fds := md.Fields()
	b := m.Get(fds.ByNumber(15)).Bytes()
	clear(b)
	l := m.Get(fds.ByNumber(45)).List()
	e := l.Get(0).Bytes()
	_ = append(e, "more"...)
	m.Set(fds.ByNumber(15), protoreflect.ValueOfBytes([]byte("bytes one")))
	got, _ := partialMarshal.Marshal(m)
	if !bytes.Equal(got, want) {
		t.Fatalf("decoded values changed:\n%s", protobuftest.FirstDiff(got, want, md))
	}
}

// TestUnmarshalMergeChecksRequired merges into messages that already lack
// a required field: the check covers what they held before, whether the
// input adds messages of types with required fields or nothing at all.
func TestUnmarshalMergeChecksRequired(t *testing.T) {
	md := protobuftest.TwinByName("protolayout.test2.TestRequiredContainer").Dyn.Descriptor()
	partial := rec(nil).bytes(1, rec(nil).varint(5, 1))
	for _, in := range []rec{nil, rec(nil).bytes(2, rec(nil).varint(5, 1).varint(2, 1)), rec(nil).bytes(9999, nil)} {
		dpb, dyn := dynamicpb.NewMessage(md), dynamic.NewMessage(md)
		if err := decodePair(t, partial, proto.UnmarshalOptions{AllowPartial: true}, dpb, dyn); err != nil {
			t.Fatal(err)
		}
		if err := decodePair(t, in, proto.UnmarshalOptions{Merge: true}, dpb, dyn); err == nil {
			t.Errorf("merging %x into a message lacking a required field: no error", in)
		}
	}
}
