package sizing_test

import (
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/cursor"
	"github.com/protolayout/protolayout/sizing"
)

var (
	descMD   = (&descriptorpb.DescriptorProto{}).ProtoReflect().Descriptor()
	nameFD   = descMD.Fields().ByName("name")
	nestedFD = descMD.Fields().ByName("nested_type")
)

func named(s string) *dynamicpb.Message {
	m := dynamicpb.NewMessage(descMD)
	m.Set(nameFD, protoreflect.ValueOfString(s))
	return m
}

// twice returns a message whose nested_type lists child twice.
func twice(child protoreflect.Message) *dynamicpb.Message {
	m := dynamicpb.NewMessage(descMD)
	l := m.Mutable(nestedFD).List()
	l.Append(protoreflect.ValueOfMessage(child))
	l.Append(protoreflect.ValueOfMessage(child))
	return m
}

func size(t *testing.T, m protoreflect.Message, o sizing.Options) (int, cursor.Fault, sizing.Stats) {
	t.Helper()
	var s sizing.Sizer
	var w cursor.Walker
	n, f, _ := s.Size(&w, m, o)
	st := s.Stats
	w.Release()
	s.Release()
	return n, f, st
}

// A shared child of exactly MemoThreshold content units (one field plus
// its string bytes) is sized twice; one unit more and it is remembered
// once and reused.
func TestMemoThreshold(t *testing.T) {
	for _, c := range []struct {
		nameLen    int
		remembered bool
	}{
		{sizing.MemoThreshold - 1, false}, // 1 + 63 = 64 units
		{sizing.MemoThreshold, true},      // 1 + 64 = 65 units
	} {
		m := twice(named(strings.Repeat("x", c.nameLen)))
		n, fault, st := size(t, m, sizing.Options{})
		if fault != cursor.OK {
			t.Fatalf("fault %d", fault)
		}
		if want := proto.Size(m); n != want {
			t.Errorf("name %d: size %d, want %d", c.nameLen, n, want)
		}
		if c.remembered && (st.Remembered != 1 || st.Reused != 1) {
			t.Errorf("name %d: %+v, want the child remembered and reused once", c.nameLen, st)
		}
		if !c.remembered && (st.Remembered != 0 || st.Reused != 0 || st.Lookups != 0) {
			t.Errorf("name %d: %+v, want no memo activity", c.nameLen, st)
		}
	}
}

// A 64-level doubling DAG describes 2^64 leaves; the size pass rejects it
// at once instead of walking them.
func TestDoublingDAGRejected(t *testing.T) {
	var m protoreflect.Message = named(strings.Repeat("leaf", 20))
	for range 64 {
		m = twice(m)
	}
	start := time.Now()
	_, fault, st := size(t, m, sizing.Options{})
	el := time.Since(start)
	if fault != cursor.SizeExceeded {
		t.Fatalf("fault %d, want SizeExceeded", fault)
	}
	if st.Reused == 0 {
		t.Errorf("no subtree reused: %+v", st)
	}
	// Generous bound for a shared, noisy machine: linear work is a few
	// microseconds, exponential work would never finish.
	if el > time.Second {
		t.Errorf("took %v", el)
	}
}

// A DAG that fits is sized exactly, each shared subtree once.
func TestDAGThatFits(t *testing.T) {
	var m protoreflect.Message = named(strings.Repeat("leaf", 20))
	const levels = 12
	for range levels {
		m = twice(m)
	}
	n, fault, st := size(t, m, sizing.Options{})
	if fault != cursor.OK {
		t.Fatalf("fault %d", fault)
	}
	if want := proto.Size(m.Interface()); n != want {
		t.Fatalf("size %d, want %d", n, want)
	}
	if st.Reused != levels || st.Remembered != levels {
		t.Errorf("%+v, want %d remembered and reused", st, levels)
	}
}

func TestSizeLimit(t *testing.T) {
	m := named(strings.Repeat("x", 100)) // 0a 64 + 100 bytes = 102
	for _, c := range []struct {
		max   int
		fault cursor.Fault
	}{{102, cursor.OK}, {101, cursor.SizeExceeded}, {0, cursor.OK}} {
		n, fault, _ := size(t, m, sizing.Options{MaxSize: c.max})
		if fault != c.fault {
			t.Errorf("MaxSize %d: fault %d, want %d (size %d)", c.max, fault, c.fault, n)
		}
	}
}

func TestUTF8Validation(t *testing.T) {
	// descriptor.proto is proto2: its strings are never validated.
	m := named("\xff")
	if _, fault, _ := size(t, m, sizing.Options{ValidateUTF8: true}); fault != cursor.OK {
		t.Fatalf("proto2 string validated: fault %d", fault)
	}
}
