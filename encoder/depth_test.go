package encoder_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/protobuftest"
	"github.com/protolayout/protolayout/protobuftest/gen/test3pb"
)

// nest encodes n levels of nesting below a TestRecursive root, each level
// chosen by via: 'm' the singular message field child (one level), 'e' a
// map value (an entry and its message: two levels), 'g' the proto2 group
// RecursiveGroup and its child (two levels).
func nest(via []byte) []byte {
	var b []byte
	for i := len(via) - 1; i >= 0; i-- {
		switch via[i] {
		case 'm':
			b = protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), b)
		case 'e':
			e := protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), "k")
			e = protowire.AppendBytes(protowire.AppendTag(e, 2, protowire.BytesType), b)
			b = protowire.AppendBytes(protowire.AppendTag(nil, 4, protowire.BytesType), e)
		case 'g':
			inner := protowire.AppendBytes(protowire.AppendTag(nil, 8, protowire.BytesType), b)
			g := append(protowire.AppendTag(nil, 7, protowire.StartGroupType), inner...)
			b = append(g, protowire.AppendTag(nil, 7, protowire.EndGroupType)...)
		}
	}
	return b
}

// agree checks, for the message m decodes b into (without a recursion
// limit), that the encoder with default options accepts it exactly when
// proto.Unmarshal with its defaults accepts b, and refuses it with
// ErrDepthExceeded otherwise.
func agree(t *testing.T, name string, mt protoreflect.MessageType, b []byte, opts encoder.MarshalOptions) {
	t.Helper()
	decodeErr := proto.Unmarshal(b, mt.New().Interface())
	m := mt.New().Interface()
	if err := (proto.UnmarshalOptions{RecursionLimit: 1 << 30}).Unmarshal(b, m); err != nil {
		t.Fatalf("%s: building the message: %v", name, err)
	}
	out, err := opts.Marshal(m)
	switch {
	case decodeErr == nil && err != nil:
		t.Errorf("%s: proto.Unmarshal accepts it, the encoder refuses it: %v", name, err)
	case decodeErr != nil && !errors.Is(err, encoder.ErrDepthExceeded):
		t.Errorf("%s: proto.Unmarshal refuses it (%v), the encoder gives %v", name, decodeErr, err)
	case err == nil:
		if derr := proto.Unmarshal(out, mt.New().Interface()); derr != nil {
			t.Errorf("%s: the encoder's output does not decode: %v", name, derr)
		}
	}
}

// TestDepthAgreesWithDecoder puts chains of messages, map values, groups
// and their mixtures right at proto.Unmarshal's default recursion limit
// and one level past it, for dynamic messages and generated ones on the
// checked walk: the encoder accepts exactly what the decoder accepts.
func TestDepthAgreesWithDecoder(t *testing.T) {
	limit := encoder.DefaultMaxDepth
	for _, name := range []protoreflect.FullName{"protolayout.test2.TestRecursive", "protolayout.test3.TestRecursive"} {
		tw := protobuftest.TwinByName(name)
		shapes := map[string][]byte{}
		repeat := func(unit string, levels int) []byte { // levels below the root
			var via []byte
			for len(via) < levels {
				via = append(via, unit...)
			}
			return via
		}
		for _, d := range []int{-1, 0} { // the last allowed level, and one past it
			below := limit - 1 + d + 1 // levels below the root
			shapes[fmt.Sprintf("messages %d", below)] = repeat("m", below)
			// A map value is two levels: odd totals end with one message.
			shapes[fmt.Sprintf("map values %d", below)] = append(repeat("e", below-below%2)[:below-below%2], repeat("m", below%2)...)
			if name == "protolayout.test2.TestRecursive" {
				shapes[fmt.Sprintf("groups %d", below)] = append(repeat("g", below-below%2)[:below-below%2], repeat("m", below%2)...)
			}
		}
		// Random mixtures, at both sides of the limit.
		r := rand.New(rand.NewPCG(7, 9))
		for i := range 6 {
			var via []byte
			units := []string{"m", "e"}
			if name == "protolayout.test2.TestRecursive" {
				units = append(units, "g")
			}
			target := limit - 2 + i%3
			n := 0
			for n < target {
				u := units[r.IntN(len(units))]
				if n+len(u)*1 > target || (u != "m" && n+2 > target) {
					u = "m"
				}
				via = append(via, u[0])
				if u == "m" {
					n++
				} else {
					n += 2
				}
			}
			shapes[fmt.Sprintf("mixture %d (%d levels below the root)", i, n)] = via
		}
		for shape, via := range shapes {
			b := nest(via)
			agree(t, fmt.Sprintf("%s dynamic, %s", name, shape), tw.Dyn, b, encoder.MarshalOptions{})
			agree(t, fmt.Sprintf("%s generated checked, %s", name, shape), tw.Gen, b, encoder.MarshalOptions{Checked: true})
		}
	}
}

// TestDeepStructAgreesWithDecoder nests google.protobuf.Struct values, as
// a gateway turning a JSON document of nested objects into protobuf does:
// each JSON object is three levels (the Struct, its map entry, the Value).
func TestDeepStructAgreesWithDecoder(t *testing.T) {
	dyn := protobuftest.DynamicTwin(&structpb.Struct{}).ProtoReflect().Type()
	for _, objects := range []int{3333, 3334, 4999} {
		v := structpb.NewNullValue()
		for range objects {
			v = structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{"a": v}})
		}
		b, err := proto.MarshalOptions{}.Marshal(v.GetStructValue())
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("%d nested objects", objects)
		agree(t, name+" (generated, checked)", (&structpb.Struct{}).ProtoReflect().Type(), b, encoder.MarshalOptions{Checked: true})
		agree(t, name+" (dynamic)", dyn, b, encoder.MarshalOptions{})
		// Each object is three levels (a Struct, a map entry, a Value):
		// 3,333 objects are 9,999 levels, 3,334 are 10,002.
		if decodes := proto.Unmarshal(b, &structpb.Struct{}) == nil; decodes != (objects <= 3333) {
			t.Errorf("%s: proto.Unmarshal accepts it: %v", name, decodes)
		}
	}
}

// TestSharedSubtreeMeetsTheLimitWhereItSits shares one large message
// (sized once, then reused from the identity memo) at a shallow place and
// at a deep one, where its map entries and their values take it exactly to
// the limit or one level past it: reuse must count those levels as the
// decoder does.
func TestSharedSubtreeMeetsTheLimitWhereItSits(t *testing.T) {
	const limit = 20
	for _, past := range []bool{false, true} {
		shared := &test3pb.TestRecursive{ByName: map[string]*test3pb.TestRecursive{"k": {Child: &test3pb.TestRecursive{}}}}
		for range 70 { // enough content for the memo
			shared.Children = append(shared.Children, &test3pb.TestRecursive{Value: 1})
		}
		// shared's deepest level is 3 below its own: entry, value, child.
		level := limit - 3 // where the deep copy sits: its deepest level is the limit
		if past {
			level++
		}
		root := &test3pb.TestRecursive{Child: shared} // sized first, and remembered
		cur := &test3pb.TestRecursive{}
		root.Children = []*test3pb.TestRecursive{cur} // level 2
		for l := 2; l < level-1; l++ {
			cur.Child = &test3pb.TestRecursive{}
			cur = cur.Child
		}
		cur.Children = []*test3pb.TestRecursive{shared} // at level `level`
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(root)
		if err != nil {
			t.Fatal(err)
		}
		decodeErr := (proto.UnmarshalOptions{RecursionLimit: limit}).Unmarshal(b, &test3pb.TestRecursive{})
		for _, m := range []proto.Message{root, dynOf(t, root)} {
			got, err := encoder.MarshalOptions{MaxDepth: limit, Checked: true, Deterministic: true}.Marshal(m)
			if (err == nil) != (decodeErr == nil) {
				t.Errorf("past %v, %T: encoder %v, decoder %v", past, m, err, decodeErr)
			}
			if err == nil && string(got) != string(b) {
				t.Errorf("past %v, %T: bytes differ from proto.Marshal's", past, m)
			}
			if past && !errors.Is(err, encoder.ErrDepthExceeded) {
				t.Errorf("past the limit, %T: %v, want ErrDepthExceeded", m, err)
			}
		}
	}
}

// FuzzDepthAgreesWithDecoder builds a chain of nesting from the input (each
// byte picks a message field, a map value or a group, and how many times to
// repeat it) around the default depth limit, and holds the encoder's
// verdict on it to proto.Unmarshal's, for dynamic and generated messages.
func FuzzDepthAgreesWithDecoder(f *testing.F) {
	f.Add([]byte{0x00}, uint16(9999))
	f.Add([]byte{0x01}, uint16(9999))
	f.Add([]byte{0x02, 0x00}, uint16(10000))
	f.Add([]byte{0x01, 0x00, 0x02}, uint16(10001))
	tw := protobuftest.TwinByName("protolayout.test2.TestRecursive")
	f.Fuzz(func(t *testing.T, pattern []byte, levels uint16) {
		if len(pattern) == 0 || levels > 10_100 {
			return
		}
		var via []byte
		for n := 0; n < int(levels); {
			for _, p := range pattern {
				if n >= int(levels) {
					break
				}
				u := "meg"[int(p)%3]
				via = append(via, u)
				if u == 'm' {
					n++
				} else {
					n += 2
				}
			}
		}
		b := nest(via)
		agree(t, "dynamic", tw.Dyn, b, encoder.MarshalOptions{})
		agree(t, "generated checked", tw.Gen, b, encoder.MarshalOptions{Checked: true})
	})
}
