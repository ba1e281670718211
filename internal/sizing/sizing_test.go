package sizing_test

import (
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/internal/cursor"
	"github.com/protolayout/protolayout/internal/fault"
	"github.com/protolayout/protolayout/internal/layout"
	"github.com/protolayout/protolayout/internal/sizing"
	"github.com/protolayout/protolayout/protobuftest"
	"github.com/protolayout/protolayout/protobuftest/gen/test3pb"
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

func size(t *testing.T, m protoreflect.Message, o sizing.Options) (int, fault.Fault, sizing.Stats) {
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
		n, code, st := size(t, m, sizing.Options{})
		if code != fault.OK {
			t.Fatalf("fault %d", code)
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
	_, code, st := size(t, m, sizing.Options{})
	if code != fault.SizeExceeded {
		t.Fatalf("fault %d, want SizeExceeded", code)
	}
	if st.Reused == 0 {
		t.Errorf("no subtree reused: %+v", st)
	}
	// Linear work: a few steps per level (each level's first child
	// entered, its second reused at one step, its exit). The size passes
	// the limit long before the top level, so the bound is generous.
	if st.Steps > dagSteps(64) {
		t.Errorf("%d steps for 64 levels, over %d: %+v", st.Steps, dagSteps(64), st)
	}
}

// dagSteps bounds the steps of a size pass over a doubling DAG of the
// given number of levels whose shared subtrees are sized once: at most
// four per level (the first child's Enter and Exit, the second child's
// Enter, reused) and a few for the leaf and the root.
func dagSteps(levels int) int { return 4*levels + 8 }

// A DAG that fits is sized exactly, each shared subtree once.
func TestDAGThatFits(t *testing.T) {
	var m protoreflect.Message = named(strings.Repeat("leaf", 20))
	const levels = 12
	for range levels {
		m = twice(m)
	}
	n, code, st := size(t, m, sizing.Options{})
	if code != fault.OK {
		t.Fatalf("fault %d", code)
	}
	if want := proto.Size(m.Interface()); n != want {
		t.Fatalf("size %d, want %d", n, want)
	}
	if st.Reused != levels || st.Remembered != levels {
		t.Errorf("%+v, want %d remembered and reused", st, levels)
	}
	// Sized once per subtree: sizing every path would take over 2^12
	// steps.
	if st.Steps > dagSteps(levels) {
		t.Errorf("%d steps for %d levels, over %d: %+v", st.Steps, levels, dagSteps(levels), st)
	}
}

// Steps count the work of the pass: on a tree (nothing shared), one per
// item of the walk and one per entry of a map sized whole, and they stay
// readable after Release.
func TestSteps(t *testing.T) {
	m := named("root")
	l := m.Mutable(nestedFD).List()
	const children = 10
	for i := range children {
		l.Append(protoreflect.ValueOfMessage(named(strconv.Itoa(i))))
	}
	_, code, st := size(t, m, sizing.Options{})
	// The root's name, and per child its Enter, name and Exit, and Done.
	if want := 1 + 3*children + 1; code != fault.OK || st.Steps != want {
		t.Errorf("a tree of %d children: fault %d, %d steps, want %d", children, code, st.Steps, want)
	}

	g := &test3pb.TestAllTypes{MapStringString: map[string]string{"a": "1", "b": "2", "c": "3"}}
	for _, whole := range []bool{false, true} {
		var s sizing.Sizer
		var w cursor.Walker
		if _, code := sizeWalk(&s, &w, g, whole); code != fault.OK {
			t.Fatalf("fault %d", code)
		}
		w.Release()
		s.Release()
		// The Map item and one step per entry; or per entry its Entry,
		// key, value and Exit items; and Done.
		want := 1 + 3 + 1
		if !whole {
			want = 4*3 + 1
		}
		if s.Stats.Steps != want {
			t.Errorf("map of 3 entries, whole maps %v: %d steps after Release, want %d", whole, s.Stats.Steps, want)
		}
	}
}

func sizeWalk(s *sizing.Sizer, w *cursor.Walker, m proto.Message, whole bool) (int, fault.Fault) {
	n, code, _ := s.Size(w, m.ProtoReflect(), sizing.Options{Walk: cursor.Options{WholeMaps: whole}})
	return n, code
}

func TestSizeLimit(t *testing.T) {
	m := named(strings.Repeat("x", 100)) // 0a 64 + 100 bytes = 102
	for _, c := range []struct {
		max   int
		fault fault.Fault
	}{{102, fault.OK}, {101, fault.SizeExceeded}, {0, fault.OK}} {
		n, code, _ := size(t, m, sizing.Options{MaxSize: c.max})
		if code != c.fault {
			t.Errorf("MaxSize %d: fault %d, want %d (size %d)", c.max, code, c.fault, n)
		}
	}
}

func TestUTF8Validation(t *testing.T) {
	// descriptor.proto is proto2: its strings are never validated.
	m := named("\xff")
	if _, code, _ := size(t, m, sizing.Options{ValidateUTF8: true}); code != fault.OK {
		t.Fatalf("proto2 string validated: fault %d", code)
	}
}

// A walk that hands out maps of scalar values whole (cursor.Options
// WholeMaps, as the encoder walks) sizes, records and fails exactly as one
// that hands out every entry's items: the same size, the same tape, the
// same fault on the same field at the same path, at size limits around
// the message's own size and around the size of every map entry.
func TestWholeMapsSameAsEntries(t *testing.T) {
	var msgs []proto.Message
	for seed := range uint64(40) {
		g := &test3pb.TestAllTypes{}
		protobuftest.Fill(g.ProtoReflect(), seed, protobuftest.RandOptions{MaxDepth: 3})
		msgs = append(msgs, g, protobuftest.DynamicTwin(g))
	}
	// Invalid UTF-8 in a key and in a value, which only a dynamic message
	// can hold.
	for _, kv := range [][2]string{{"a\xffb", "v"}, {"k", "a\xffb"}, {"a\xff", "b\xff"}} {
		d := protobuftest.DynamicTwin(&test3pb.TestAllTypes{MapStringString: map[string]string{"a": "1", "z": "2"}}).ProtoReflect()
		fd := d.Descriptor().Fields().ByName("map_string_string")
		d.Mutable(fd).Map().Set(protoreflect.ValueOfString(kv[0]).MapKey(), protoreflect.ValueOfString(kv[1]))
		msgs = append(msgs, d.Interface())
	}
	// A child holding a map, shared by two parents, with as many entries
	// as take its content units across MemoThreshold: whether it is
	// remembered depends on how its map's units are counted.
	for n := range 16 {
		td := protobuftest.DynamicTwin(&test3pb.TestAllTypes{}).ProtoReflect()
		md := td.Descriptor()
		child := td.New()
		cm := child.Mutable(md.Fields().ByName("map_string_string")).Map()
		for j := range n {
			cm.Set(protoreflect.ValueOfString(strconv.Itoa(10+j)).MapKey(), protoreflect.ValueOfString("v"))
		}
		nested := md.Fields().ByName("repeated_nested_message")
		list := td.Mutable(nested).List()
		for range 2 {
			nm := list.NewElement().Message()
			nm.Set(nm.Descriptor().Fields().ByName("corecursive"), protoreflect.ValueOfMessage(child))
			list.Append(protoreflect.ValueOfMessage(nm))
		}
		msgs = append(msgs, td.Interface())
	}
	type result struct {
		stats sizing.Stats
		n     int
		fault fault.Fault
		field *layout.Field
		path  string
		tape  []sizing.Op
	}
	run := func(m proto.Message, limit int, whole bool) result {
		var s sizing.Sizer
		var w cursor.Walker
		n, code, f := s.Size(&w, m.ProtoReflect(), sizing.Options{
			Record: true, ValidateUTF8: true, MaxSize: limit,
			Walk: cursor.Options{WholeMaps: whole},
		})
		r := result{stats: s.Stats, n: n, fault: code, field: f, tape: slices.Clone(s.Tape)}
		r.stats.Steps = 0 // whole maps take fewer: one per entry, not four
		if code != fault.OK {
			r.path = string(w.AppendPath(nil, f))
		}
		w.Release()
		s.Release()
		return r
	}
	sameOp := func(a, b sizing.Op) bool {
		if a.Kind != b.Kind || a.Size != b.Size || a.Field != b.Field {
			return false
		}
		if a.Kind != sizing.OpValue && a.Kind != sizing.OpUnknown {
			return true
		}
		x, y := a.Value.Interface(), b.Value.Interface()
		switch x := x.(type) { // NaNs compare by their bits
		case float32:
			y, ok := y.(float32)
			return ok && math.Float32bits(x) == math.Float32bits(y)
		case float64:
			y, ok := y.(float64)
			return ok && math.Float64bits(x) == math.Float64bits(y)
		}
		return reflect.DeepEqual(x, y)
	}
	maps, faults, remembered := 0, 0, 0
	for i, m := range msgs {
		full := run(m, 0, false)
		remembered += full.stats.Remembered
		limits := []int{0}
		for _, op := range full.tape {
			if op.Field != nil && op.Field.Map {
				maps++
				limits = append(limits, int(op.Size), int(op.Size)+1, int(op.Size)+2)
			}
		}
		if full.fault == fault.OK {
			limits = append(limits, full.n-1, full.n, full.n/2)
		}
		for _, limit := range limits {
			a, b := run(m, limit, false), run(m, limit, true)
			if a.fault != fault.OK {
				faults++
			}
			// A failed pass's tape is never written; it may stop short.
			if a.stats != b.stats || a.n != b.n || a.fault != b.fault || a.field != b.field || a.path != b.path ||
				a.fault == fault.OK && !slices.EqualFunc(a.tape, b.tape, sameOp) {
				t.Fatalf("msgs[%d] (%T), limit %d: per entry %d, fault %d at %q (%d ops); whole %d, fault %d at %q (%d ops)",
					i, m, limit, a.n, a.fault, a.path, len(a.tape), b.n, b.fault, b.path, len(b.tape))
			}
		}
	}
	if maps < 100 || faults < 100 || remembered == 0 {
		t.Fatalf("%d map entries, %d faults and %d remembered subtrees compared: the messages do not exercise maps", maps, faults, remembered)
	}
}

// TestOpSize keeps a tape op at 40 bytes, the scratch per value the
// encoder's documentation states.
func TestOpSize(t *testing.T) {
	if n := reflect.TypeFor[sizing.Op]().Size(); n > 40 {
		t.Fatalf("a tape op is %d bytes, more than the 40 documented", n)
	}
}
