package dynamic_test

import (
	"bytes"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/runtime/protoiface"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/dynamic"
	"github.com/protolayout/protolayout/internal/dyntest"
	"github.com/protolayout/protolayout/internal/slots"
	"github.com/protolayout/protolayout/protobuftest"
)

// mergeMethod calls the Merge method of dst's fast path, as proto.Merge
// does, and reports whether it did the merge.
func mergeMethod(dst, src proto.Message) bool {
	out := dst.ProtoReflect().ProtoMethods().Merge(protoiface.MergeInput{
		Destination: dst.ProtoReflect(), Source: src.ProtoReflect(),
	})
	return out.Flags&protoiface.MergeComplete != 0
}

// TestMergeFastPath checks that the Merge method merges a message of
// every test type, filled at random with unknown fields and extensions,
// into a new message (a clone), into one filled with other content, and
// into itself, as proto.Merge merges their dynamicpb twins, and reports
// each merge complete.
func TestMergeFastPath(t *testing.T) {
	for _, tw := range protobuftest.Twins() {
		md := tw.Dyn.Descriptor()
		for seed := range uint64(3) {
			dpb, dyn := dyntest.Filled(tw, seed, protobuftest.RandOptions{Unknown: true})
			dpbDst, dynDst := dyntest.Filled(tw, seed+50, protobuftest.RandOptions{Unknown: true})
			for _, c := range []struct {
				name     string
				dpb, dyn [2]proto.Message // destination, source
			}{
				{"into a new message", [2]proto.Message{dynamicpb.NewMessage(md), dpb}, [2]proto.Message{dynamic.NewMessage(md), dyn}},
				{"into another", [2]proto.Message{dpbDst, dpb}, [2]proto.Message{dynDst, dyn}},
				{"into itself", [2]proto.Message{proto.Clone(dpb), nil}, [2]proto.Message{proto.Clone(dyn), nil}},
			} {
				if c.dpb[1] == nil {
					c.dpb[1], c.dyn[1] = c.dpb[0], c.dyn[0]
				}
				proto.Merge(c.dpb[0], c.dpb[1])
				if !mergeMethod(c.dyn[0], c.dyn[1]) {
					t.Fatalf("%v, seed %d, %s: the merge was left to reflection", tw.Name, seed, c.name)
				}
				want, err := deterministic.Marshal(c.dpb[0])
				if err != nil {
					t.Fatal(err)
				}
				got, err := deterministic.Marshal(c.dyn[0])
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("%v, seed %d, %s: %v\n%s", tw.Name, seed, c.name, err, protobuftest.FirstDiff(got, want, md))
				}
			}
		}
	}
}

// TestCloneIsDeep checks that a clone shares nothing a caller can change
// with its source: after every bytes value of the source (in fields,
// lists and maps, at every level) is overwritten in place, every list
// appended to and every nested message changed, the clone encodes as
// before.
func TestCloneIsDeep(t *testing.T) {
	md := protobuftest.TwinByName("protolayout.test3.TestAllTypes").Dyn.Descriptor()
	tw := protobuftest.TwinByName(md.FullName())
	for seed := range uint64(4) {
		_, src := dyntest.Filled(tw, seed, protobuftest.RandOptions{MaxDepth: 3, MaxList: 4})
		c := proto.Clone(src)
		want, _ := deterministic.Marshal(c)
		scribble(src.ProtoReflect())
		if got, _ := deterministic.Marshal(c); !bytes.Equal(got, want) {
			t.Fatalf("seed %d: changing the source changed the clone:\n%s", seed, protobuftest.FirstDiff(got, want, md))
		}
		if again, _ := deterministic.Marshal(src); bytes.Equal(again, want) {
			t.Fatalf("seed %d: the source did not change", seed)
		}
	}
}

// scribble changes m in place wherever a shallow copy would share the
// change: bytes overwritten, lists appended to, nested messages given a
// new unknown field.
func scribble(m protoreflect.Message) {
	m.SetUnknown(append(m.GetUnknown(), 0xf8, 0x07, 0x01)) // field 127, varint 1
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList():
			l := v.List()
			for i := range l.Len() {
				element(fd, l.Get(i))
			}
			if fd.Message() == nil {
				l.Append(l.Get(0))
			}
		case fd.IsMap():
			v.Map().Range(func(_ protoreflect.MapKey, e protoreflect.Value) bool {
				element(fd.MapValue(), e)
				return true
			})
		default:
			element(fd, v)
		}
		return true
	})
}

// element changes one value of fd in place, if it can be.
func element(fd protoreflect.FieldDescriptor, v protoreflect.Value) {
	switch {
	case fd.Message() != nil:
		scribble(v.Message())
	case fd.Kind() == protoreflect.BytesKind:
		b := v.Bytes()
		for i := range b {
			b[i] ^= 0xff
		}
	}
}

// TestMergeLeftToReflection checks that the Merge method leaves alone,
// and to the proto package's reflective merge, a source of another
// implementation or of another load of the schema, and a read-only
// destination (into which proto.Merge panics, as for dynamicpb); the
// merges proto.Merge then does give dynamicpb's result.
func TestMergeLeftToReflection(t *testing.T) {
	tw := protobuftest.TwinByName("protolayout.test2.TestAllTypes")
	md := tw.Dyn.Descriptor()
	dpb, dyn := dyntest.Filled(tw, 7, protobuftest.RandOptions{})
	want, _ := deterministic.Marshal(dpb)

	// Another load of the schema: same names, other descriptors.
	files, err := protobuftest.LoadFiles()
	if err != nil {
		t.Fatal(err)
	}
	d, err := files.FindDescriptorByName(md.FullName())
	if err != nil {
		t.Fatal(err)
	}
	reloaded := dynamic.NewMessage(d.(protoreflect.MessageDescriptor))
	if err := proto.Unmarshal(want, reloaded); err != nil {
		t.Fatal(err)
	}

	for _, src := range []proto.Message{dpb, reloaded} {
		dst := dynamic.NewMessage(md)
		if mergeMethod(dst, src) {
			t.Fatalf("%v: merged over the storage", src.ProtoReflect().Descriptor().ParentFile().Path())
		}
		if b, _ := proto.Marshal(dst); len(b) != 0 {
			t.Fatal("an incomplete merge changed the destination")
		}
	}
	dst := dynamic.NewMessage(md)
	proto.Merge(dst, dpb)
	if got, _ := deterministic.Marshal(dst); !bytes.Equal(got, want) {
		t.Fatalf("proto.Merge of the dynamicpb twin:\n%s", protobuftest.FirstDiff(got, want, md))
	}

	// Deeper, a message of the other load (which Set accepts, by its
	// name) is not merged into: the reflective merge panics on it, as
	// proto.Merge does at the top.
	child := md.Fields().ByName("optional_nested_message")
	for _, c := range []struct {
		name     string
		dst, src proto.Message
	}{
		{"top", dynamic.NewMessage(md), reloaded},
		{"nested", func() proto.Message {
			m := dynamic.NewMessage(md)
			m.Set(child, protoreflect.ValueOfMessage(dynamic.NewMessage(d.(protoreflect.MessageDescriptor).Fields().ByName(child.Name()).Message())))
			return m
		}(), func() proto.Message {
			m := dynamic.NewMessage(md)
			n := m.Mutable(child).Message()
			n.Set(n.Descriptor().Fields().ByName("a"), protoreflect.ValueOfInt32(1))
			return m
		}()},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil {
					t.Errorf("%s: proto.Merge of messages of two loads did not panic", c.name)
				} else {
					t.Logf("%s: %v", c.name, r)
				}
			}()
			proto.Merge(c.dst, c.src)
		}()
	}

	readOnly := dynamic.NewMessage(md).Get(md.Fields().ByName("optional_nested_message")).Message()
	if mergeMethod(readOnly.Interface(), dyn) {
		t.Fatal("merged into a read-only message")
	}
	for _, dst := range []proto.Message{readOnly.Interface(),
		dynamicpb.NewMessage(md).Get(md.Fields().ByName("optional_nested_message")).Message().Interface()} {
		src := dst.ProtoReflect().New()
		src.Set(src.Descriptor().Fields().ByName("a"), protoreflect.ValueOfInt32(1))
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%T: proto.Merge into a read-only message did not panic", dst)
				}
			}()
			proto.Merge(dst, src.Interface())
		}()
	}
}

// TestMergeCycle checks that merging a message that contains itself
// panics with an error saying so, instead of overflowing the stack.
func TestMergeCycle(t *testing.T) {
	md := protobuftest.TwinByName("protolayout.test2.TestRecursive").Dyn.Descriptor()
	m := dynamic.NewMessage(md)
	m.Set(md.Fields().ByName("child"), protoreflect.ValueOfMessage(m))
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(r.(error).Error(), "contains itself") {
			t.Fatalf("proto.Clone of a cycle: %v", r)
		}
	}()
	proto.Clone(m)
}

// TestCloneAllocations checks that a clone takes its messages from
// chunks: cloning a decoded FileDescriptorSet of hundreds of messages
// allocates less than once per eight messages (proto.Clone of the
// generated type allocates about four times per message).
func TestCloneAllocations(t *testing.T) {
	if !slots.Chunked {
		t.Skip("a purego build allocates each message's storage on its own")
	}
	bc := decodeBenches(t)[0]
	m := dynamic.NewMessage(bc.md)
	if err := proto.Unmarshal(bc.data, m); err != nil {
		t.Fatal(err)
	}
	messages := countMessages(m)
	allocs := testing.AllocsPerRun(5, func() { proto.Clone(m) })
	if messages < 500 || allocs > float64(messages)/8 {
		t.Fatalf("a clone of %d messages allocates %v times", messages, allocs)
	}
}

// countMessages returns the number of messages in m, m included.
func countMessages(m protoreflect.Message) int {
	n := 1
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap():
			if fd.MapValue().Message() != nil {
				v.Map().Range(func(_ protoreflect.MapKey, e protoreflect.Value) bool {
					n += countMessages(e.Message())
					return true
				})
			}
		case fd.IsList():
			if fd.Message() != nil {
				for i := range v.List().Len() {
					n += countMessages(v.List().Get(i).Message())
				}
			}
		case fd.Message() != nil:
			n += countMessages(v.Message())
		}
		return true
	})
	return n
}

// Merging a message of scalars allocates nothing: the merge's state, its
// arena included, stays on the stack, and takes its tables only for
// messages and lists.
func TestMergeScalarsAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	md := protobuftest.TwinByName(all3).Dyn.Descriptor()
	src, dst := dynamic.NewMessage(md), dynamic.NewMessage(md)
	if err := proto.Unmarshal(rec(nil).varint(1, 5).varint(2, 1<<40).fixed32(7, 9).fixed64(8, 10).varint(13, 1), src); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { proto.Merge(dst, src) }); n != 0 {
		t.Errorf("%v allocations per merge", n)
	}
	if !proto.Equal(dst, src) {
		t.Errorf("merged into an empty message: %v, want %v", dst, src)
	}
}
