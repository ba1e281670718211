package encoder_test

import (
	"bytes"
	"errors"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/runtime/protoiface"

	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/protobuftest"
	"github.com/protolayout/protolayout/protobuftest/gen/test3pb"
)

// Cycles of every shape fail with the depth error, quickly, for dynamic
// messages and for generated ones on the checked walk (proto.Marshal, and
// the generated fast path, would overflow the stack).
func TestCyclesFail(t *testing.T) {
	gen := map[string]func() proto.Message{
		"direct": func() proto.Message { m := &test3pb.TestRecursive{}; m.Child = m; return m },
		"list": func() proto.Message {
			m := &test3pb.TestRecursive{}
			m.Children = []*test3pb.TestRecursive{{}, m}
			return m
		},
		"map": func() proto.Message {
			m := &test3pb.TestRecursive{}
			m.ByName = map[string]*test3pb.TestRecursive{"a": {}, "self": m}
			return m
		},
		"oneof": func() proto.Message {
			m := &test3pb.TestRecursive{}
			m.Node = &test3pb.TestRecursive_OneofChild{OneofChild: m}
			return m
		},
		"ring": func() proto.Message {
			a, b, c := &test3pb.TestRecursive{}, &test3pb.TestRecursive{}, &test3pb.TestRecursive{}
			a.Child, b.OptionalChild, c.Children = b, c, []*test3pb.TestRecursive{a}
			return a
		},
	}
	dt := protobuftest.TwinByName("protolayout.test3.TestRecursive").Dyn
	fields := dt.Descriptor().Fields()
	msg := protoreflect.ValueOfMessage
	dyn := map[string]func() proto.Message{
		"direct": func() proto.Message { m := dt.New(); m.Set(fields.ByName("child"), msg(m)); return m.Interface() },
		"list": func() proto.Message {
			m := dt.New()
			m.Mutable(fields.ByName("children")).List().Append(msg(m))
			return m.Interface()
		},
		"map": func() proto.Message {
			m := dt.New()
			m.Mutable(fields.ByName("by_name")).Map().Set(protoreflect.ValueOfString("self").MapKey(), msg(m))
			return m.Interface()
		},
		"oneof": func() proto.Message { m := dt.New(); m.Set(fields.ByName("oneof_child"), msg(m)); return m.Interface() },
		"ring": func() proto.Message {
			a, b, c := dt.New(), dt.New(), dt.New()
			a.Set(fields.ByName("child"), msg(b))
			b.Set(fields.ByName("optional_child"), msg(c))
			c.Mutable(fields.ByName("children")).List().Append(msg(a))
			return a.Interface()
		},
	}
	for i, set := range []map[string]func() proto.Message{gen, dyn} {
		for name, build := range set {
			m := build()
			o := encoder.MarshalOptions{Checked: true}
			b, err := o.Marshal(m)
			if !errors.Is(err, encoder.ErrDepthExceeded) || b != nil {
				t.Errorf("%s %T: % x, %v", name, m, b, err)
			}
			if n := o.Size(m); n != 0 {
				t.Errorf("%s: Size %d", name, n)
			}
			// The work, counted: the engine finds a cycle this short
			// itself, at the level the walk would (wire.CycleLevel), and
			// the walk is not run; dynamicpb's walk finds it within
			// 3*64 levels whatever MaxDepth is (internal/cursor), at a
			// few steps per level (a map entry is a level, its key a
			// step).
			enc := encoder.NewEncoder(o)
			if _, err := enc.Marshal(m); !errors.Is(err, encoder.ErrDepthExceeded) {
				t.Errorf("%s %T, Encoder: %v", name, m, err)
			}
			const bound = 4 * 3 * 64
			st := encoder.WalkStats(enc)
			if i == 0 && st.Steps != 0 {
				t.Errorf("%s %T: the walk ran (%d steps); the engine names a cycle itself", name, m, st.Steps)
			}
			if i == 1 && (st.Steps == 0 || st.Steps > bound) {
				t.Errorf("%s %T: %d steps, want at most %d", name, m, st.Steps, bound)
			}
		}
	}
}

// mutating wraps a message and changes what a field reads after a number
// of reads, as a message mutated during the call would.
type mutating struct {
	protoreflect.Message
	fd    protoreflect.FieldDescriptor // a string field that changes
	reads int
	after int
	child *mutating // returned for field cfd, if set
	cfd   protoreflect.FieldDescriptor
	list  *mutatingList // returned for field lfd, if set
	lfd   protoreflect.FieldDescriptor
}

func (m *mutating) ProtoReflect() protoreflect.Message   { return m }
func (m *mutating) Interface() protoreflect.ProtoMessage { return m }

// ProtoMethods hides the wrapped message's fast-path methods, which work
// only on the wrapped type.
func (m *mutating) ProtoMethods() *protoiface.Methods { return nil }

func (m *mutating) Get(fd protoreflect.FieldDescriptor) protoreflect.Value {
	switch {
	case m.child != nil && fd == m.cfd:
		return protoreflect.ValueOfMessage(m.child)
	case m.list != nil && fd == m.lfd:
		return protoreflect.ValueOfList(m.list)
	case fd == m.fd:
		m.reads++
		if m.reads > m.after {
			return protoreflect.ValueOfString("a much longer value than before")
		}
	}
	return m.Message.Get(fd)
}

// mutatingList is an int32 list whose elements grow after a number of
// reads.
type mutatingList struct {
	protoreflect.List
	reads, after int
}

func (l *mutatingList) Get(i int) protoreflect.Value {
	l.reads++
	if l.reads > l.after {
		return protoreflect.ValueOfInt32(1 << 30)
	}
	return l.List.Get(i)
}

// Each value is read once, in the size pass, and written from that
// record: a message that changes afterwards still gives a consistent
// encoding of what was read. Packed lists are read again by the write
// pass; a list that changes in between is an error, never corrupt output,
// and the caller's buffer is untouched.
func TestMutationDuringEncode(t *testing.T) {
	md := (&test3pb.TestAllTypes{}).ProtoReflect().Descriptor()
	str := md.Fields().ByName("singular_string")

	// A string that changes after its first read: the first read wins.
	top := &mutating{Message: (&test3pb.TestAllTypes{SingularString: "short", SingularInt32: 1}).ProtoReflect(), fd: str, after: 1}
	b, err := encoder.Marshal(top)
	want, _ := proto.Marshal(&test3pb.TestAllTypes{SingularString: "short", SingularInt32: 1})
	if err != nil || !bytes.Equal(b, want) {
		t.Errorf("changed string: % x, %v; want % x", b, err, want)
	}

	// A packed list whose elements change between the passes, at the top
	// and nested.
	ints := md.Fields().ByName("repeated_int32")
	base := &test3pb.TestAllTypes{RepeatedInt32: []int32{1, 2, 3}, SingularInt32: 1}
	flat := &mutating{Message: base.ProtoReflect(), lfd: ints,
		list: &mutatingList{List: base.ProtoReflect().Get(ints).List(), after: 3}}

	inner := &test3pb.TestAllTypes{RepeatedInt32: []int32{4, 5}}
	nm := &test3pb.TestAllTypes_NestedMessage{A: 1, Corecursive: inner}
	outerMsg := &test3pb.TestAllTypes{SingularNestedMessage: nm, SingularInt64: 5}
	leaf := &mutating{Message: inner.ProtoReflect(), lfd: ints,
		list: &mutatingList{List: inner.ProtoReflect().Get(ints).List(), after: 2}}
	mid := &mutating{Message: nm.ProtoReflect(), child: leaf, cfd: nm.ProtoReflect().Descriptor().Fields().ByName("corecursive")}
	outer := &mutating{Message: outerMsg.ProtoReflect(), child: mid, cfd: md.Fields().ByName("singular_nested_message")}

	for name, m := range map[string]proto.Message{"top": flat, "nested": outer} {
		prefix := []byte{7, 7}
		b, err := encoder.MarshalOptions{}.MarshalAppend(prefix, m)
		if !errors.Is(err, encoder.ErrSizeMismatch) || !errors.Is(err, proto.Error) {
			t.Errorf("%s: %v", name, err)
		}
		if len(b) != 2 || b[0] != 7 || b[1] != 7 {
			t.Errorf("%s: buffer % x", name, b)
		}
	}
}
