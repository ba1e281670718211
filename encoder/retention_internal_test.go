package encoder

import (
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/protolayout/protolayout/internal/retain"
)

// TestRetentionFollowsRecentOutputs checks what an Encoder keeps between
// calls: the scratch of a large message while large messages keep coming,
// and no more than the floor once retain.Window smaller calls have passed.
func TestRetentionFollowsRecentOutputs(t *testing.T) {
	list := &structpb.ListValue{}
	for i := range 200_000 {
		list.Values = append(list.Values, structpb.NewNumberValue(float64(i)))
	}
	dyn := func(g proto.Message) proto.Message {
		m := dynamicpb.NewMessage(g.ProtoReflect().Descriptor())
		b, err := proto.Marshal(g)
		if err == nil {
			err = proto.Unmarshal(b, m)
		}
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	big := dyn(list)
	small := dyn(&structpb.ListValue{Values: []*structpb.Value{structpb.NewNumberValue(1)}})
	kept := func(e *Encoder) int { return e.walk.Kept() }
	e := NewEncoder(MarshalOptions{})
	if _, err := e.Marshal(big); err != nil {
		t.Fatal(err)
	}
	if k := kept(e); k <= retain.Floor {
		t.Fatalf("after a 2.2 MB message the Encoder keeps %d bytes of tape, want its scratch kept", k)
	}
	for i := range retain.Window {
		if _, err := e.Marshal(small); err != nil {
			t.Fatal(err)
		}
		if k := kept(e); k <= retain.Floor {
			t.Fatalf("the scratch of the large message was dropped after %d small calls, before %d", i+1, retain.Window)
		}
	}
	if _, err := e.Marshal(small); err != nil {
		t.Fatal(err)
	}
	if k := kept(e); k > retain.Floor {
		t.Fatalf("after %d small calls the Encoder still keeps %d bytes", retain.Window+1, k)
	}
}
