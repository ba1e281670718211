package encoder_test

import (
	"bytes"
	"fmt"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/protobuftest/gen/test2pb"
	"github.com/protolayout/protolayout/protobuftest/gen/test3pb"
)

// TestWriterMovesBoundedByDepth nests messages, map values and groups
// far deeper than the learned widths fit, and checks that the bytes the
// Writer moves stay a small multiple of its output whatever the depth
// (they grew with the square of the depth: 379 MB for a 77.6 KB output at
// 10,000 levels), while the output stays proto.Marshal's and the top-level
// item's range exact.
func TestWriterMovesBoundedByDepth(t *testing.T) {
	depths := []int{100, 1000, 9999}
	if !testing.Short() {
		depths = append(depths, 100_000)
	}
	for _, depth := range depths {
		for _, via := range []string{"child", "map value", "group"} {
			// The generated message the calls describe, depth levels below
			// its top-level item.
			var m proto.Message
			switch via {
			case "child":
				leaf := &test3pb.TestRecursive{Value: 1}
				for range depth - 1 {
					leaf = &test3pb.TestRecursive{Child: leaf}
				}
				m = &test3pb.TestRecursive{Child: leaf}
			case "map value":
				leaf := &test3pb.TestRecursive{Value: 1}
				for range depth/2 - 1 {
					leaf = &test3pb.TestRecursive{ByName: map[string]*test3pb.TestRecursive{"k": leaf}}
				}
				m = &test3pb.TestRecursive{Child: leaf}
			case "group":
				leaf := &test2pb.TestRecursive{Value: proto.Int32(1)}
				for range depth/2 - 1 {
					leaf = &test2pb.TestRecursive{Recursivegroup: &test2pb.TestRecursive_RecursiveGroup{Child: leaf}}
				}
				m = &test2pb.TestRecursive{Child: leaf}
			}
			want, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range strategies {
				name := fmt.Sprintf("%s, depth %d, %v", via, depth, s)
				md := m.ProtoReflect().Descriptor()
				w := encoder.NewWriter(md, encoder.WriterOptions{Lengths: s, MaxDepth: depth + 10})
				w.Begin(1) // the top-level item
				levels := 0
				switch via {
				case "child":
					for range depth - 1 {
						w.Begin(1)
					}
					levels = depth - 1
				case "map value":
					for range depth/2 - 1 {
						w.BeginEntryString(4, "k")
						w.Begin(encoder.MapValue)
					}
					levels = 2 * (depth/2 - 1)
				case "group":
					for range depth/2 - 1 {
						w.Begin(7)
						w.Begin(8)
					}
					levels = 2 * (depth/2 - 1)
				}
				w.Int32(2, 1)
				for range levels + 1 {
					w.End()
				}
				got, err := w.Finish()
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("%s: %v, %d bytes, want %d (equal %v)", name, err, len(got), len(want), bytes.Equal(got, want))
				}
				if at, n := w.LastItem(); at != 0 || n != len(want) {
					t.Errorf("%s: LastItem %d, %d; want 0, %d", name, at, n, len(want))
				}
				st := w.Stats()
				if bound := 20 * len(got); st.MovedBytes > bound {
					t.Errorf("%s: %d bytes moved for %d bytes of output (%d moves), more than %d", name, st.MovedBytes, len(got), st.Moves, bound)
				}
			}
		}
	}
}
