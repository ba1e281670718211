package benchreport

import (
	"bytes"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/protolayout/protolayout/protobuftest"
)

// twinMessages returns n random dynamic messages of the twin, and their
// generated twins.
func twinMessages(tw protobuftest.Twin, n int) (gen, dyn []proto.Message) {
	for seed := range uint64(n) {
		g, d := protobuftest.NewPair(tw.Gen, tw.Dyn, tw.GenExts, tw.DynExts, seed, protobuftest.RandOptions{MaxDepth: 3, Unknown: seed%2 == 1})
		protobuftest.QuietFloat32NaNs(g)
		protobuftest.QuietFloat32NaNs(d)
		gen, dyn = append(gen, g), append(dyn, d)
	}
	return gen, dyn
}

// TestDynamicWorkloadVerifies builds the dynamic workload of random
// messages of every test schema (maps at any depth, groups, extensions,
// unknown fields) and verifies each of its contestants.
func TestDynamicWorkloadVerifies(t *testing.T) {
	for _, tw := range protobuftest.Twins() {
		_, dyn := twinMessages(tw, 4)
		w, cases, err := DynamicWorkload(string(tw.Name), dyn)
		if err != nil {
			t.Fatal(err)
		}
		w.Resolver = protobuftest.DynamicTypes()
		if len(cases) != 7 {
			t.Fatalf("%d cases, want 7", len(cases))
		}
		for _, c := range cases {
			if err := c.Verify(); err != nil {
				t.Errorf("%v", err)
			}
		}
	}
}

// TestDynamicWorkloadNames checks the contestants' names and order, and
// the description.
func TestDynamicWorkloadNames(t *testing.T) {
	msgs := []proto.Message{&descriptorpb.FileDescriptorProto{Name: proto.String("a")}, &descriptorpb.FileDescriptorProto{Name: proto.String("b")}}
	w, cases, err := DynamicWorkload("files", msgs)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range cases {
		if c.Workload != w {
			t.Errorf("%s: another workload", c.Name())
		}
		names = append(names, c.Contestant.Name)
	}
	if got, want := strings.Join(names, " "), "proto/dynamicpb proto/dynamicpb-det floor/range floor/has-get protolayout/dynamicpb protolayout/dynamicpb-reuse protolayout/dynamicpb-det"; got != want {
		t.Errorf("contestants %s, want %s", got, want)
	}
	if want := "google.protobuf.FileDescriptorProto, 2 messages"; w.Description != want {
		t.Errorf("description %q, want %q", w.Description, want)
	}
	if w.Size() != len(w.Ref(0))+len(w.Ref(1)) || w.Size() != 6 {
		t.Errorf("size %d, want the two references' 6 bytes", w.Size())
	}
	if _, _, err := DynamicWorkload("none", nil); err == nil {
		t.Error("a workload of no messages was accepted")
	}
}

// TestFloorReadsBothTwins checks both floor traversals against the digest
// on the generated twins too, where Range and Has+Get go through the
// generated code's reflection instead of dynamicpb, and that the floor
// allocates nothing.
func TestFloorReadsBothTwins(t *testing.T) {
	for _, tw := range protobuftest.Twins() {
		gen, dyn := twinMessages(tw, 3)
		w, err := NewWorkload("w", "", dyn)
		if err != nil {
			t.Fatal(err)
		}
		for _, hasGet := range []bool{false, true} {
			for _, msgs := range [][]proto.Message{gen, dyn} {
				c := ReadFloor("floor", hasGet, msgs)
				for i := range msgs {
					got, _ := c.Encode(i)
					if !bytes.Equal(got, w.Digest(i)) {
						t.Errorf("%s, message %d, hasGet %v: read %s, want %s", tw.Name, i, hasGet, describeDigest(got), describeDigest(w.Digest(i)))
					}
				}
				if raceEnabled || &msgs[0] == &gen[0] {
					continue // protoreflect views of generated lists and maps allocate
				}
				if n := testing.AllocsPerRun(5, func() { _, _ = c.Encode(0) }); n != 0 {
					t.Errorf("%s, hasGet %v: %v allocations per read, want 0", tw.Name, hasGet, n)
				}
			}
		}
	}
}
