package sizing

import (
	"testing"

	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/internal/dynstore"
)

// TestDynTable checks the memo's table against a Go map through growth,
// duplicates and resets, and that a reused table does not allocate.
func TestDynTable(t *testing.T) {
	md := (&descriptorpb.DescriptorProto{}).ProtoReflect().Descriptor()
	msgs := make([]*dynamicpb.Message, 5000)
	for i := range msgs {
		msgs[i] = dynamicpb.NewMessage(md)
	}
	var tab dynTable
	for round := range 3 {
		want := map[*dynamicpb.Message]summary{}
		for i, m := range msgs[:1000*(round+1)] {
			e := summary{op: i, size: round}
			added := tab.add(dynstore.Addr(m), m, e)
			if _, dup := want[m]; added == dup {
				t.Fatalf("round %d: add %d reported %v", round, i, added)
			}
			want[m] = e
			if tab.add(dynstore.Addr(m), m, summary{op: -5}) {
				t.Fatalf("round %d: a second add of %d succeeded", round, i)
			}
		}
		for _, m := range msgs {
			got, ok := tab.get(dynstore.Addr(m))
			w, wok := want[m]
			if ok != wok || got != w {
				t.Fatalf("round %d: get = %v, %v; want %v, %v", round, got, ok, w, wok)
			}
		}
		tab.reset()
		for _, s := range tab.slots {
			if s.m != nil || s.a != 0 {
				t.Fatal("reset kept a message reference")
			}
		}
	}
	// Refilled to its largest size, the table does not allocate.
	if n := testing.AllocsPerRun(10, func() {
		for i, m := range msgs[:3000] {
			tab.add(dynstore.Addr(m), m, summary{op: i})
		}
		tab.reset()
	}); n != 0 {
		t.Fatalf("a reused table allocates %.0f times", n)
	}
}
