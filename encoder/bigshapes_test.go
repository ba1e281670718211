package encoder_test

import (
	"fmt"
	"runtime"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/protobuftest"
)

// bigShapes are the large, deep and wide messages of the memory tests:
// a ListValue of n numbers, a Struct nested to the default depth limit,
// many small messages, and a wide message of thousands of fields.
func bigShapes(numbers int) map[string]proto.Message {
	list := &structpb.ListValue{}
	for i := range numbers {
		list.Values = append(list.Values, structpb.NewNumberValue(float64(i)))
	}
	deep := structpb.NewNullValue()
	for range 3333 { // 9,999 levels: the default limit allows it
		deep = structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{"a": deep}})
	}
	many := &structpb.ListValue{}
	for i := range 20000 {
		s, _ := structpb.NewStruct(map[string]any{"id": float64(i), "name": "item"})
		many.Values = append(many.Values, structpb.NewStructValue(s))
	}
	wide := &descriptorpb.DescriptorProto{Name: proto.String("Wide")}
	for i := range 5000 {
		wide.Field = append(wide.Field, &descriptorpb.FieldDescriptorProto{
			Name: proto.String(fmt.Sprintf("f%d", i)), Number: proto.Int32(int32(i + 1)),
			Type: descriptorpb.FieldDescriptorProto_TYPE_INT64.Enum(),
		})
	}
	return map[string]proto.Message{
		fmt.Sprintf("list of %d numbers", numbers): list,
		"Struct nested 3,333 deep":                 deep.GetStructValue(),
		"20,000 small Structs":                     many,
		"5,000 field descriptors":                  wide,
	}
}

// TestBigShapesAllocateNothing checks the memory promises on large, deep
// and wide messages: a reused Encoder appending into a buffer with room
// allocates nothing per call once warm (its scratch space is kept, within
// a budget of its recent outputs), and the pooled encoder.Marshal
// allocates its output and a small constant (the allocator's rounding of
// it to whole pages). The list of 1,500,000
// numbers (16.5 MB) runs without -short.
func TestBigShapesAllocateNothing(t *testing.T) {
	numbers := 100_000
	if !testing.Short() {
		numbers = 1_500_000
	}
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	for name, g := range bigShapes(numbers) {
		m := protobuftest.DynamicTwin(g)
		want, err := proto.MarshalOptions{Deterministic: true}.Marshal(g)
		if err != nil {
			t.Fatal(err)
		}
		enc := encoder.NewEncoder(encoder.MarshalOptions{Deterministic: true})
		buf := make([]byte, 0, len(want))
		for range 2 {
			if buf, err = enc.MarshalAppend(buf[:0], m); err != nil || string(buf) != string(want) {
				t.Fatalf("%s: %v", name, err)
			}
		}
		if n := testing.AllocsPerRun(3, func() { buf, _ = enc.MarshalAppend(buf[:0], m) }); n != 0 {
			t.Errorf("%s (%d bytes): a reused Encoder allocates %.0f times per call", name, len(want), n)
		}
		// The pooled Marshal: the least of a few calls, since a
		// collection may empty the pool between two of them.
		o := encoder.MarshalOptions{Deterministic: true}
		o.Marshal(m) // warm the pool
		least := ^uint64(0)
		var out []byte
		for range 5 {
			var a, b runtime.MemStats
			runtime.ReadMemStats(&a)
			out, _ = o.Marshal(m)
			runtime.ReadMemStats(&b)
			least = min(least, b.TotalAlloc-a.TotalAlloc)
		}
		// The allocator rounds a large allocation up to whole pages.
		if least > uint64(cap(out))+16<<10 {
			t.Errorf("%s (%d bytes): encoder.Marshal allocates %d B, more than its output (%d B) and 16 KiB", name, len(want), least, cap(out))
		}
		t.Logf("%s: %d bytes; encoder.Marshal %d B", name, len(want), least)
	}
}
