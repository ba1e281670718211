package encoder_test

import (
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/protobuftest/gen/test3pb"
)

// BenchmarkWideSparse encodes 200 messages of a type of about 150
// fields (test3's TestAllTypes: lists, maps and oneofs of every kind)
// with two set each, beside proto.Marshal: the cost of the fields that
// are not set, which every pass looks at.
func BenchmarkWideSparse(b *testing.B) {
	g := &test3pb.TestAllTypes{}
	for i := range 200 {
		g.RepeatedNestedMessage = append(g.RepeatedNestedMessage, &test3pb.TestAllTypes_NestedMessage{
			A: int32(i), Corecursive: &test3pb.TestAllTypes{SingularString: "valid", SingularInt64: int64(i)},
		})
	}
	buf := make([]byte, 0, proto.Size(g))
	b.Run("proto.Marshal", func(b *testing.B) {
		b.SetBytes(int64(cap(buf)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := (proto.MarshalOptions{}).MarshalAppend(buf[:0], g); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoder", func(b *testing.B) {
		e := encoder.NewEncoder(encoder.MarshalOptions{})
		b.SetBytes(int64(cap(buf)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := e.MarshalAppend(buf[:0], g); err != nil {
				b.Fatal(err)
			}
		}
	})
}
