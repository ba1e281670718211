package dynamic_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/runtime/protoiface"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/dynamic"
	"github.com/protolayout/protolayout/internal/dyntest"
	"github.com/protolayout/protolayout/protobuftest"
)

// fastEqual calls the Equal method of x's fast path, as proto.Equal does
// when both messages have one.
func fastEqual(x, y protoreflect.Message) bool {
	return x.ProtoMethods().Equal(protoiface.EqualInput{MessageA: x, MessageB: y}).Equal
}

// reflectEqual is protoreflect's comparison, which proto.Equal makes
// when a message has no Equal method.
func reflectEqual(x, y protoreflect.Message) bool {
	return protoreflect.ValueOfMessage(x).Equal(protoreflect.ValueOfMessage(y))
}

// TestEqualMatchesReflection checks the Equal method against
// protoreflect's comparison on every test type: a message filled at
// random (with extensions and unknown fields) against its clone, and
// the clone after each of a series of random changes (the property
// test's operations, merges included), both ways round.
func TestEqualMatchesReflection(t *testing.T) {
	steps := 40
	if testing.Short() {
		steps = 15
	}
	outcomes := map[bool]int{}
	defer func() {
		if outcomes[true] < 100 || outcomes[false] < 100 {
			t.Errorf("outcomes %v: too few of one kind", outcomes)
		}
	}()
	for _, md := range allMessages() {
		for seed := range uint64(2) {
			tw := protobuftest.Twin{Dyn: dynamic.NewMessageType(md)}
			for _, xt := range extensionsOf(md) {
				tw.DynExts = append(tw.DynExts, dynamic.NewExtensionType(xt))
			}
			_, a := dyntest.Filled(tw, seed, protobuftest.RandOptions{Unknown: true, MaxDepth: 3, MaxList: 3})
			x := a.ProtoReflect()
			y := proto.Clone(a).ProtoReflect()
			d := &driver{rand.New(rand.NewPCG(seed, 7)), dynamicSide()}
			for step := range steps {
				// y against x, and against a clone of itself.
				yc := proto.Clone(y.Interface()).ProtoReflect()
				for _, p := range [][2]protoreflect.Message{{x, y}, {y, x}, {y, yc}} {
					got, want := fastEqual(p[0], p[1]), reflectEqual(p[0], p[1])
					if got != want {
						t.Fatalf("%v seed %d step %d: Equal %v, protoreflect %v", md.FullName(), seed, step, got, want)
					}
					outcomes[got]++
				}
				d.op(y, 0)
			}
		}
	}
}

// TestEqualEdgeCases checks the Equal method against protoreflect's
// comparison on the values it treats apart: NaN (equal to NaN), -0 and
// +0 (equal when both are set), unknown fields in another interleaving
// of field numbers (equal) or another order within one (not), one
// extension set through two extension types (not equal, as Has tells),
// and a read-only message against an empty one.
func TestEqualEdgeCases(t *testing.T) {
	md := protobuftest.TwinByName("protolayout.test2.TestAllTypes").Dyn.Descriptor()
	dbl := md.Fields().ByName("optional_double")
	flt := md.Fields().ByName("repeated_float")
	pair := func(set func(m *dynamic.Message, first bool)) (x, y *dynamic.Message) {
		x, y = dynamic.NewMessage(md), dynamic.NewMessage(md)
		set(x, true)
		set(y, false)
		return x, y
	}
	rec := func(num protowire.Number, v uint64) []byte {
		return protowire.AppendVarint(protowire.AppendTag(nil, num, protowire.VarintType), v)
	}
	join := func(bs ...[]byte) []byte {
		var out []byte
		for _, b := range bs {
			out = append(out, b...)
		}
		return out
	}
	ext := protobuftest.TwinByName("protolayout.test2.TestAllExtensions")
	var xd protoreflect.ExtensionTypeDescriptor
	for _, xt := range ext.DynExts {
		if xt.TypeDescriptor().Name() == "optional_int32_extension" {
			xd = xt.TypeDescriptor()
		}
	}
	type equalCase struct {
		name string
		x, y *dynamic.Message
		want bool
	}
	var cases []equalCase
	add := func(name string, want bool, set func(m *dynamic.Message, first bool)) {
		x, y := pair(set)
		cases = append(cases, equalCase{name, x, y, want})
	}
	add("NaN", true, func(m *dynamic.Message, first bool) { m.Set(dbl, protoreflect.ValueOfFloat64(math.NaN())) })
	add("NaN in a list", true, func(m *dynamic.Message, first bool) {
		m.Mutable(flt).List().Append(protoreflect.ValueOfFloat32(float32(math.NaN())))
	})
	add("-0 and +0", true, func(m *dynamic.Message, first bool) {
		z := 0.0
		if first {
			z = math.Copysign(0, -1)
		}
		m.Set(dbl, protoreflect.ValueOfFloat64(z))
	})
	add("unknown fields interleaved otherwise", true, func(m *dynamic.Message, first bool) {
		if first {
			m.SetUnknown(join(rec(900, 1), rec(901, 2), rec(900, 3)))
		} else {
			m.SetUnknown(join(rec(901, 2), rec(900, 1), rec(900, 3)))
		}
	})
	add("unknown fields reordered within a number", false, func(m *dynamic.Message, first bool) {
		if first {
			m.SetUnknown(join(rec(900, 1), rec(900, 3)))
		} else {
			m.SetUnknown(join(rec(900, 3), rec(900, 1)))
		}
	})
	x, y := dynamic.NewMessage(ext.Dyn.Descriptor()), dynamic.NewMessage(ext.Dyn.Descriptor())
	x.Set(dynamic.NewExtensionType(xd.Descriptor()).TypeDescriptor(), protoreflect.ValueOfInt32(1))
	y.Set(dynamicpb.NewExtensionType(xd.Descriptor()).TypeDescriptor(), protoreflect.ValueOfInt32(1))
	cases = append(cases, equalCase{"one extension through two types", x, y, false})
	nested := md.Fields().ByName("optional_nested_message")
	cases = append(cases, equalCase{"a read-only message and an empty one",
		dynamic.NewMessage(md).Get(nested).Message().(*dynamic.Message), dynamic.NewMessage(nested.Message()), true})
	for _, c := range cases {
		for _, p := range [][2]*dynamic.Message{{c.x, c.y}, {c.y, c.x}} {
			got, want := fastEqual(p[0], p[1]), reflectEqual(p[0], p[1])
			if got != want || got != c.want {
				t.Errorf("%s: Equal %v, protoreflect %v, want %v", c.name, got, want, c.want)
			}
		}
		// proto.Equal itself tells a read-only message from a valid one.
		if c.x.IsValid() == c.y.IsValid() && proto.Equal(c.x, c.y) != c.want {
			t.Errorf("%s: proto.Equal is not %v", c.name, c.want)
		}
	}
}

// TestEqualCycle checks that comparing two messages that contain
// themselves panics with an error saying so, instead of overflowing the
// stack.
func TestEqualCycle(t *testing.T) {
	md := protobuftest.TwinByName("protolayout.test2.TestRecursive").Dyn.Descriptor()
	child := md.Fields().ByName("child")
	x, y := dynamic.NewMessage(md), dynamic.NewMessage(md)
	x.Set(child, protoreflect.ValueOfMessage(x))
	y.Set(child, protoreflect.ValueOfMessage(y))
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(r.(error).Error(), "contain themselves") {
			t.Fatalf("proto.Equal of two cycles: %v", r)
		}
	}()
	proto.Equal(x, y)
}
