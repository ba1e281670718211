package fault_test

import (
	"testing"

	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/protolayout/protolayout/internal/fault"
	"github.com/protolayout/protolayout/internal/layout"
	"github.com/protolayout/protolayout/protobuftest/gen/test3pb"
)

// TestTrail records faults as a recursive encoder does and checks the
// paths and the size rule.
func TestTrail(t *testing.T) {
	fds := layout.Of((&descriptorpb.FileDescriptorSet{}).ProtoReflect().Descriptor())
	file := &fds.Fields[0] // file
	fl := file.Message()
	msgType := &fl.Fields[fl.PositionOfNumber(4)] // message_type
	dl := msgType.Message()
	name := &dl.Fields[dl.PositionOfNumber(1)]
	opts := &fl.Fields[fl.PositionOfNumber(8)] // options
	ol := opts.Message()
	goPkg := &ol.Fields[ol.PositionOfNumber(11)]

	var nilTrail *fault.Trail
	if nilTrail.Fail(fault.InvalidUTF8, name, 3) || nilTrail.Failed() {
		t.Error("a nil trail recorded a fault")
	}
	nilTrail.Up(1)
	nilTrail.Enter(file, 0)
	nilTrail.Reset()

	var tr fault.Trail
	tr.Up(5) // nothing recorded: no effect
	tr.Enter(file, 2)
	if c, _, _ := tr.Result(100); c != fault.OK || tr.Failed() {
		t.Fatalf("an empty trail reports %v", c)
	}
	tr.Fail(fault.InvalidUTF8, name, 10)
	tr.Enter(msgType, 3)
	tr.Up(20)
	tr.Enter(file, 1)
	tr.Up(30)
	c, f, path := tr.Result(60)
	if c != fault.InvalidUTF8 || f != name || path != "file[1].message_type[3].name" {
		t.Errorf("got %v %v %q", c, f, path)
	}
	if c, _, _ := tr.Result(59); c != fault.OK {
		t.Errorf("60 bytes counted before the fault, limit 59: got %v, want OK", c)
	}
	tr.Reset()
	if tr.Failed() {
		t.Error("Reset left the fault")
	}

	tr.Fail(fault.RequiredNotSet, goPkg, 0)
	tr.Enter(opts, -1)
	tr.Enter(file, 0)
	if _, _, path := tr.Result(1 << 20); path != "file[0].options.go_package" {
		t.Errorf("path %q", path)
	}
	tr.Reset()

	// A map: the fault on a key names the entry; one inside the value's
	// message passes a level that the entry names.
	tl := layout.Of((&test3pb.TestAllTypes{}).ProtoReflect().Descriptor())
	m := &tl.Fields[tl.PositionOfNumber(144)] // map_string_string
	if !m.Map {
		t.Fatalf("%s is not a map", m.FullName)
	}
	tr.Fail(fault.InvalidUTF8, m.MapKey, 0)
	tr.EnterEntry(m, 0, "k\xff", false)
	if _, f, path := tr.Result(1 << 20); f != m.MapKey || path != `map_string_string["k\xff"]` {
		t.Errorf("key fault: %v %q", f, path)
	}
	tr.Reset()
	tr.Fail(fault.InvalidUTF8, name, 0)
	tr.EnterEntry(m, 0, "k", true)
	if _, _, path := tr.Result(1 << 20); path != `map_string_string["k"].name` {
		t.Errorf("value message fault: %q", path)
	}
}

// TestTrailSaved sets faults aside as an encoder looking for an earlier
// fault in a map does, nested, and checks which one each of Restore and
// Drop keeps, with its path and bytes.
func TestTrailSaved(t *testing.T) {
	tl := layout.Of((&test3pb.TestAllTypes{}).ProtoReflect().Descriptor())
	m := &tl.Fields[tl.PositionOfNumber(144)]     // map_string_string
	str := &tl.Fields[tl.PositionOfNumber(14)]    // singular_string
	nested := &tl.Fields[tl.PositionOfNumber(18)] // singular_nested_message

	var nilTrail *fault.Trail
	nilTrail.Restore(nilTrail.Save())
	nilTrail.Drop(nilTrail.Save())

	// entry records a fault in entry k of the map, the value's string
	// after n bytes, or with deep, one level further down.
	var tr fault.Trail
	entry := func(k string, n int, deep bool) {
		tr.Fail(fault.InvalidUTF8, str, n)
		if deep {
			tr.Enter(nested, -1)
		}
		tr.EnterEntry(m, 0, k, true)
	}
	want := func(what, path string, limit int, ok bool) {
		t.Helper()
		c, _, got := tr.Result(limit)
		if (c == fault.InvalidUTF8) != ok || ok && got != path {
			t.Errorf("%s: %v at %q; want %q (%v)", what, c, got, path, ok)
		}
		if _, _, got := tr.Result(limit - 1); ok && limit > 0 && got != "" {
			t.Errorf("%s: the fault is kept past its bytes (%d)", what, limit)
		}
	}

	entry("m", 4, true)
	s := tr.Save()
	if tr.Failed() {
		t.Fatal("Save left the fault recorded")
	}
	entry("c", 1, false) // an earlier one: kept
	tr.Drop(s)
	tr.Up(2)
	want("Drop", `map_string_string["c"].singular_string`, 3, true)
	tr.Reset()

	entry("m", 4, true)
	s = tr.Save()
	entry("x", 1, false)
	tr.Restore(s) // the one set aside: kept
	tr.Up(2)
	want("Restore", `map_string_string["m"].singular_nested_message.singular_string`, 6, true)
	tr.Reset()

	// Nested: an outer map's fault set aside while an inner map sets its
	// own aside and drops it for an earlier one; then the outer one drops
	// its own for the inner's.
	entry("z", 9, false)
	outer := tr.Save()
	entry("q", 5, true)
	inner := tr.Save()
	entry("p", 1, true)
	tr.Drop(inner)
	tr.Up(1)
	tr.Enter(nested, -1)
	tr.EnterEntry(m, 0, "b", true)
	tr.Drop(outer)
	want("nested Drop", `map_string_string["b"].singular_nested_message.map_string_string["p"].singular_nested_message.singular_string`, 2, true)
	tr.Reset()

	// Nothing recorded since: Drop leaves the trail empty (a give-up).
	entry("m", 0, false)
	s = tr.Save()
	tr.Drop(s)
	want("Drop of nothing", "", 1<<20, false)
	if tr.Failed() {
		t.Error("Drop with nothing recorded since left a fault")
	}
}

// TestTrailSizeRule holds a size fault to the walk's rule: kept while the
// bytes each level counted before it are within the limit, each level on
// its own (the walk checks each part's running sum), whatever their sum;
// and TestTrail's rule, on the sum, for the other faults.
func TestTrailSizeRule(t *testing.T) {
	fds := layout.Of((&descriptorpb.FileDescriptorSet{}).ProtoReflect().Descriptor())
	file := &fds.Fields[0]
	fl := file.Message()
	msgType := &fl.Fields[fl.PositionOfNumber(4)]
	dl := msgType.Message()
	name := &dl.Fields[dl.PositionOfNumber(1)]

	record := func(c fault.Fault) *fault.Trail {
		var tr fault.Trail
		tr.Fail(c, name, 40) // the message had counted 40 bytes
		tr.Enter(msgType, 3)
		tr.Up(30) // the file, 20 + 30 bytes, in two parts
		tr.Up(20)
		tr.Enter(file, 1)
		tr.Up(45) // the root
		return &tr
	}
	for _, c := range []struct {
		fault fault.Fault
		limit int
		want  fault.Fault
	}{
		{fault.SizeExceeded, 50, fault.SizeExceeded},
		{fault.SizeExceeded, 49, fault.OK}, // the file's 50
		{fault.SizeExceeded, 135, fault.SizeExceeded},
		{fault.InvalidUTF8, 134, fault.OK}, // 135 in all
		{fault.InvalidUTF8, 135, fault.InvalidUTF8},
	} {
		got, f, path := record(c.fault).Result(c.limit)
		if got != c.want || got != fault.OK && (f != name || path != "file[1].message_type[3].name") {
			t.Errorf("%v, limit %d: got %v %v %q, want %v", c.fault, c.limit, got, f, path, c.want)
		}
	}
	var tr fault.Trail
	tr.Fail(fault.SizeExceeded, name, 60)
	if c, _, _ := tr.Result(59); c != fault.OK {
		t.Errorf("60 bytes counted at the fault's level, limit 59: got %v", c)
	}
	// Set aside and brought back, a fault keeps its levels' bytes.
	tr.Reset()
	tr.Fail(fault.SizeExceeded, name, 10)
	tr.Enter(msgType, 0)
	tr.Up(70)
	s := tr.Save()
	tr.Exceeded(name, 1)
	tr.Restore(s)
	if c, _, _ := tr.Result(69); c != fault.OK {
		t.Errorf("restored: 70 bytes at a level, limit 69: got %v", c)
	}
	// A map value's entry counts its key before the value: a bound of
	// its tag (1 byte here), a length and ten bytes or the string key.
	tl := layout.Of((&test3pb.TestAllTypes{}).ProtoReflect().Descriptor())
	mf := &tl.Fields[tl.PositionOfNumber(146)] // map_string_nested_message
	for _, c := range []struct {
		limit int
		want  fault.Fault
	}{{18, fault.OK}, {19, fault.SizeExceeded}} {
		tr.Reset()
		tr.Exceeded(nil, 0)
		tr.EnterEntry(mf, 0, "key", true)
		if got, _, path := tr.Result(c.limit); got != c.want || got != fault.OK && path != `map_string_nested_message["key"]` {
			t.Errorf("key \"key\", limit %d: got %v %q, want %v", c.limit, got, path, c.want)
		}
	}
}

// TestCrossing finds the item with which a level's running sum passes
// the limit, and names it but for a map larger than the limit.
func TestCrossing(t *testing.T) {
	c := fault.Crossing{Limit: 10}
	for i, x := range []int{3, 4, 3, 1} {
		if crossed := c.Add(x); crossed != (i == 3) {
			t.Fatalf("item %d of %d bytes: crossed %v", i, x, crossed)
		}
	}
	if c.N != 10 {
		t.Errorf("%d bytes before the item; want 10", c.N)
	}
	c = fault.Crossing{Limit: 10}
	if !c.Add(11) || c.N != 0 {
		t.Errorf("an item past the limit by itself: N %d", c.N)
	}
	m := &layout.Field{Map: true}
	if !c.Names(nil, 11) || !c.Names(&layout.Field{}, 11) || !c.Names(m, 10) || c.Names(m, 11) {
		t.Error("Names: only a map past the limit is not named")
	}
}
