package encoder_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/dynamic"
	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/internal/messagesetpb"
	"github.com/protolayout/protolayout/protobuftest"
)

// recursiveForms returns the message types of one schema's TestRecursive
// in every storage: generated at each API level, package dynamic (both
// read by a direct encoder) and dynamicpb (read by the checked walk), the
// last first.
func recursiveForms(t testing.TB, name protoreflect.FullName) []protoreflect.MessageType {
	t.Helper()
	tw := protobuftest.TwinByName(name)
	for _, s := range protobuftest.GeneratedVariants() {
		if s.Name == name {
			return []protoreflect.MessageType{tw.Dyn, s.Open.Type, s.Hybrid.Type, s.Opaque.Type,
				dynamic.NewMessageType(tw.Dyn.Descriptor())}
		}
	}
	t.Fatalf("no generated variants of %s", name)
	return nil
}

// chain builds a message of type mt nested along via, one step a byte:
// 'm' the message field child, 'l' the second element of the list
// children (the first an empty message), 'e' the value of by_name["k"]
// (a map entry and its message: two levels; by_name["a"], an empty
// message, sorts first), 'o' the oneof member oneof_child, 'g' the
// group RecursiveGroup's child (two levels; proto2 only) and 'd' the
// delimited_child (editions only). With back >= 0 the last step leads
// back to the back-th message of the chain (0 the root), which then
// contains itself.
func chain(mt protoreflect.MessageType, via string, back int) protoreflect.Message {
	fields := mt.Descriptor().Fields()
	set := func(m protoreflect.Message, step byte, c protoreflect.Message) {
		cv := protoreflect.ValueOfMessage(c)
		switch step {
		case 'm':
			m.Set(fields.ByName("child"), cv)
		case 'l':
			l := m.Mutable(fields.ByName("children")).List()
			l.Append(protoreflect.ValueOfMessage(mt.New()))
			l.Append(cv)
		case 'e':
			mp := m.Mutable(fields.ByName("by_name")).Map()
			mp.Set(protoreflect.ValueOfString("a").MapKey(), protoreflect.ValueOfMessage(mt.New()))
			mp.Set(protoreflect.ValueOfString("k").MapKey(), cv)
		case 'o':
			m.Set(fields.ByName("oneof_child"), cv)
		case 'g':
			g := m.Mutable(fields.ByName("recursivegroup")).Message()
			g.Set(g.Descriptor().Fields().ByName("child"), cv)
		case 'd':
			m.Set(fields.ByName("delimited_child"), cv)
		}
	}
	nodes := []protoreflect.Message{mt.New()}
	for i := range len(via) {
		var c protoreflect.Message
		if i == len(via)-1 && back >= 0 {
			c = nodes[back]
		} else {
			c = mt.New()
			c.Set(fields.ByName("value"), protoreflect.ValueOfInt32(int32(i+1)))
			nodes = append(nodes, c)
		}
		set(nodes[i], via[i], c)
	}
	return nodes[0]
}

// TestDepthAndCyclesAgreeAcrossStorage encodes chains of nested messages
// around the depth limits, and messages that contain themselves, in every
// storage, and checks that the direct encoders (generated messages at
// each API level, package dynamic) fail with the checked walk's error
// (dynamicpb's, the same reason, field and path) or give its bytes; and
// that they name the fault themselves, without the walk, wherever the
// fault is within the levels they follow (wire.MaxStackDepth).
func TestDepthAndCyclesAgreeAcrossStorage(t *testing.T) {
	schemas := []struct {
		name  protoreflect.FullName
		steps string
	}{
		{"protolayout.test2.TestRecursive", "mleog"},
		{"protolayout.test3.TestRecursive", "mleo"},
		{"protolayout.testeditions.TestRecursive", "mleod"},
	}
	limits := []int{0, 1, 3, 10, 64, 65, 66, 67, 99, 100, 101}
	for _, s := range schemas {
		t.Run(string(s.name), func(t *testing.T) {
			t.Parallel()
			forms := recursiveForms(t, s.name)
			r := rand.New(rand.NewPCG(uint64(len(s.name)), 7))
			var cases []struct {
				via  string
				back int
			}
			add := func(via string, back int) {
				cases = append(cases, struct {
					via  string
					back int
				}{via, back})
			}
			// Every step as the whole chain, and as the step back.
			for _, c := range []byte(s.steps) {
				for _, n := range []int{1, 2, 33, 64, 65, 66, 99, 100, 101} {
					add(string(bytes.Repeat([]byte{c}, n)), -1)
				}
				add(string(c), 0) // contains itself
				add(string(bytes.Repeat([]byte{c}, 2)), 0)
				add(string(bytes.Repeat([]byte{c}, 3)), 1)
			}
			for range 40 {
				via := make([]byte, 1+r.IntN(110))
				for i := range via {
					via[i] = s.steps[r.IntN(len(s.steps))]
				}
				back := -1
				if r.IntN(2) == 0 {
					back = r.IntN(len(via))
				}
				add(string(via), back)
			}
			walked := 0
			for _, c := range cases {
				for k, limit := range limits {
					opts := encoder.MarshalOptions{Deterministic: true, MaxDepth: limit}
					if k%3 == 1 {
						// Canonical: the encoders' canonical programs.
						opts = encoder.MarshalOptions{Canonical: encoder.Canonical, MaxDepth: limit}
					}
					walked += depthAgrees(t, forms, c.via, c.back, opts)
				}
			}
			t.Logf("%d cases, %d of the direct encoders' errors named by the walk", len(cases)*len(limits), walked)
		})
	}
}

// depthAgrees encodes chain(via, back) in each of forms (the walk's
// first) with opts, Marshal and Size, holds every form to the first's
// error (reason, field and path) and bytes, and the direct encoders to
// naming a depth or cycle fault themselves where it lies within the
// levels they follow. It returns how many of the direct encoders' errors
// the walk named.
func depthAgrees(t *testing.T, forms []protoreflect.MessageType, via string, back int, opts encoder.MarshalOptions) (walked int) {
	t.Helper()
	var want []byte
	var wantErr, wantSizeErr error
	wantSize := 0
	for i, mt := range forms {
		m := chain(mt, via, back)
		size, sizeErr := encoder.NewEncoder(opts).Size(m.Interface())
		enc := encoder.NewEncoder(opts)
		got, err := enc.Marshal(m.Interface())
		name := fmt.Sprintf("%s, %d levels back to %d, MaxDepth %d, Canonical %v, %v", via, len(via), back, opts.MaxDepth, opts.Canonical, mt.Descriptor().FullName())
		if i == 0 {
			want, wantErr, wantSize, wantSizeErr = got, err, size, sizeErr
			if back >= 0 && !errors.Is(err, encoder.ErrCycle) && !errors.Is(err, encoder.ErrDepthExceeded) {
				t.Fatalf("%s: the walk gives %v for a message that contains itself", name, err)
			}
			continue
		}
		if openNames(err) != openNames(wantErr) || !bytes.Equal(got, want) {
			t.Fatalf("%s, form %d:\n got % x, %v\nwant % x, %v", name, i, got, err, want, wantErr)
		}
		// Size visits a map's entries in map order (the size does not
		// depend on it), the walk's too: with maps, only the reason is
		// the same.
		sameSizeErr := openNames(sizeErr) == openNames(wantSizeErr)
		if strings.Contains(via, "e") {
			sameSizeErr = reason(sizeErr) == reason(wantSizeErr)
		}
		if !sameSizeErr || size != wantSize {
			t.Fatalf("%s, form %d: Size gives %d, %v; want %d, %v", name, i, size, sizeErr, wantSize, wantSizeErr)
		}
		if err == nil {
			continue
		}
		steps := encoder.WalkStats(enc).Steps
		if steps > 0 {
			walked++
		}
		var fe *encoder.Error
		if !errors.As(err, &fe) {
			t.Fatalf("%s: %T is not an *encoder.Error", name, err)
		}
		// Faults the encoders follow to name themselves: a depth fault
		// within MaxStackDepth (the fault's level is the limit plus one),
		// and a cycle, which the walk finds from level 66 on, found by
		// then.
		direct := errors.Is(err, encoder.ErrDepthExceeded) && opts.MaxDepth > 0 && opts.MaxDepth < 100 ||
			errors.Is(err, encoder.ErrCycle) && cycleFoundBy(via, back) <= 100
		if direct && steps > 0 {
			t.Fatalf("%s, form %d: %v named by the walk (%d steps), not by the direct encoder", name, i, err, steps)
		}
	}
	return walked
}

// FuzzDepthAndCycles holds the direct encoders to the walk on chains of
// nesting from the input (each byte of pattern a step of chain, repeated
// to the given number of steps), with or without a step back, under the
// depth limit given, as TestDepthAndCyclesAgreeAcrossStorage does.
func FuzzDepthAndCycles(f *testing.F) {
	f.Add([]byte{0}, uint8(70), int16(-1), uint8(66), false)
	f.Add([]byte{1, 2}, uint8(40), int16(3), uint8(0), true)
	f.Add([]byte{0, 1, 2, 3, 4}, uint8(120), int16(0), uint8(100), false)
	f.Add([]byte{2}, uint8(33), int16(-1), uint8(65), true)
	const steps = "mleog"
	forms := recursiveForms(f, "protolayout.test2.TestRecursive")
	f.Fuzz(func(t *testing.T, pattern []byte, n uint8, back int16, limit uint8, canonical bool) {
		if len(pattern) == 0 || n == 0 {
			return
		}
		via := make([]byte, n)
		for i := range via {
			via[i] = steps[int(pattern[i%len(pattern)])%len(steps)]
		}
		b := int(back)
		if b >= len(via) {
			b %= len(via)
		}
		if b < 0 {
			b = -1
		}
		opts := encoder.MarshalOptions{Deterministic: true, MaxDepth: int(limit)}
		if canonical {
			opts = encoder.MarshalOptions{Canonical: encoder.Canonical, MaxDepth: int(limit)}
		}
		depthAgrees(t, forms, string(via), b, opts)
	})
}

// reason returns the reason of an *encoder.Error, or err itself.
func reason(err error) error {
	var fe *encoder.Error
	if errors.As(err, &fe) {
		return fe.Err
	}
	return err
}

// openNames returns the text of err with the names of the hybrid and
// Opaque copies of the test schemas turned into the open ones'.
func openNames(err error) string {
	s := fmt.Sprint(err)
	for _, l := range []protobuftest.APILevel{protobuftest.APIHybrid, protobuftest.APIOpaque} {
		prefix := string(protobuftest.VariantName("x", l))
		s = strings.ReplaceAll(s, prefix[:len(prefix)-1], "")
	}
	return s
}

// cycleFoundBy returns the level of the message at which the walk finds
// that chain(via, back) contains itself: the first message past level 66
// that is the message at level 65, or the one at level 66 when level 65
// is a map entry (see the walker's isAncestor); a large number when the
// path ends first.
func cycleFoundBy(via string, back int) int {
	type node struct {
		id, level int
		entry     bool
	}
	var path []node
	level, msg := 1, 0
	path = append(path, node{id: msg, level: level})
	for level < 300 {
		if msg == len(via) {
			return 1 << 30 // the chain ends without leading back
		}
		i, c := msg, via[msg]
		if i == len(via)-1 && back >= 0 {
			msg = back
		} else {
			msg = i + 1
		}
		switch c {
		case 'e':
			path = append(path, node{id: -1, level: level + 1, entry: true})
			level += 2
		case 'g': // the group's message, one per chain message
			path = append(path, node{id: 1000 + i, level: level + 1})
			level += 2
		default:
			level++
		}
		path = append(path, node{id: msg, level: level})
	}
	ref := -1
	for j, n := range path {
		if n.level == 65 {
			ref = j
			if n.entry {
				ref = j + 1
			}
			break
		}
	}
	if ref < 0 {
		return 1 << 30
	}
	for _, n := range path[ref+1:] {
		if !n.entry && n.level >= 66 && n.id == path[ref].id {
			return n.level
		}
	}
	return 1 << 30
}

// TestRefusalsNamedWithoutTheWalk checks that the direct encoders name
// the Signing profile's refusals (a non-empty map, unknown fields) and a
// MessageSet type nested in a message themselves, with the walk's error,
// without running the walk.
func TestRefusalsNamedWithoutTheWalk(t *testing.T) {
	signing := encoder.MarshalOptions{Canonical: encoder.Signing}
	forms := recursiveForms(t, "protolayout.test3.TestRecursive")
	fd := func(m protoreflect.Message, name protoreflect.Name) protoreflect.FieldDescriptor {
		return m.Descriptor().Fields().ByName(name)
	}
	cases := []struct {
		name string
		opts encoder.MarshalOptions
		set  func(m protoreflect.Message)
		want error
	}{
		{"a map", signing, func(m protoreflect.Message) {
			c := m.Mutable(fd(m, "child")).Message()
			c.Mutable(fd(m, "by_name")).Map().Set(protoreflect.ValueOfString("k").MapKey(), protoreflect.ValueOfMessage(c.New()))
		}, encoder.ErrMapField},
		{"unknown fields", signing, func(m protoreflect.Message) {
			m.Set(fd(m, "value"), protoreflect.ValueOfInt32(3))
			c := m.Mutable(fd(m, "children")).List().AppendMutable().Message()
			c.SetUnknown(protoreflect.RawFields{0xa8, 0x1f, 0x01}) // field 501, varint 1
		}, encoder.ErrUnknownField},
	}
	for _, c := range cases {
		var want error
		for i, mt := range forms {
			m := mt.New()
			c.set(m)
			enc := encoder.NewEncoder(c.opts)
			_, err := enc.Marshal(m.Interface())
			if i == 0 {
				if want = err; !errors.Is(err, c.want) {
					t.Fatalf("%s: the walk gives %v, want %v", c.name, err, c.want)
				}
				continue
			}
			if openNames(err) != openNames(want) {
				t.Errorf("%s, %v: %v; want %v", c.name, mt.Descriptor().FullName(), err, want)
			}
			if steps := encoder.WalkStats(enc).Steps; steps != 0 {
				t.Errorf("%s, %v: named by the walk (%d steps)", c.name, mt.Descriptor().FullName(), steps)
			}
		}
	}

	// A MessageSet nested in a generated message and in a dynamic one.
	container := &messagesetpb.MessageSetContainer{MessageSet: &messagesetpb.MessageSet{}}
	dyn := dynamic.NewMessage(container.ProtoReflect().Descriptor())
	msd := container.ProtoReflect().Descriptor().Fields().ByName("message_set")
	dyn.Set(msd, protoreflect.ValueOfMessage(dyn.NewField(msd).Message()))
	for _, m := range []proto.Message{container, dyn} {
		enc := encoder.NewEncoder(encoder.MarshalOptions{})
		_, err := enc.Marshal(m)
		if !errors.Is(err, encoder.ErrMessageSet) {
			t.Errorf("%T: %v, want ErrMessageSet", m, err)
		}
		if steps := encoder.WalkStats(enc).Steps; steps != 0 {
			t.Errorf("%T: ErrMessageSet named by the walk (%d steps)", m, steps)
		}
	}
}

// TestExtensionDepthNamedWithoutTheWalk checks that a message held by an
// extension (singular or in a list) past the depth limit is named by the
// direct encoders as the walk names it, without the walk.
func TestExtensionDepthNamedWithoutTheWalk(t *testing.T) {
	s := allExtensions()
	for _, name := range []protoreflect.Name{"optional_nested_message_extension", "repeated_nested_message_extension", "optionalgroup_extension"} {
		g := s.Open.Type.New()
		xt := extensionNamed(t, s, name)
		xd := xt.TypeDescriptor()
		if xd.IsList() {
			l := g.Mutable(xd).List()
			l.Append(l.NewElement())
			l.Append(l.NewElement())
		} else {
			g.Mutable(xd)
		}
		forms := []proto.Message{protobuftest.DynamicTwin(g.Interface()), g.Interface(),
			protobuftest.VariantTwin(g.Interface(), protobuftest.APIHybrid),
			protobuftest.VariantTwin(g.Interface(), protobuftest.APIOpaque),
			protobuftest.DynamicMessageTwin(g.Interface()),
		}
		for _, limit := range []int{1, 2} {
			opts := encoder.MarshalOptions{MaxDepth: limit}
			var want error
			for i, m := range forms {
				enc := encoder.NewEncoder(opts)
				_, err := enc.Marshal(m)
				if i == 0 {
					want = err
					if (limit == 1) != errors.Is(err, encoder.ErrDepthExceeded) {
						t.Fatalf("%s, MaxDepth %d: the walk gives %v", name, limit, err)
					}
					continue
				}
				if openNames(err) != openNames(want) {
					t.Errorf("%s, MaxDepth %d, %T: %v; want %v", name, limit, m, err, want)
				}
				if steps := encoder.WalkStats(enc).Steps; err != nil && steps != 0 {
					t.Errorf("%s, MaxDepth %d, %T: named by the walk (%d steps)", name, limit, m, steps)
				}
			}
		}
	}
}
