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
