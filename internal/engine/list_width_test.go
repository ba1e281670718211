package engine

import (
	"bytes"
	"math"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/internal/wire"
	"github.com/protolayout/protolayout/protobuftest/gen/test3pb"
)

// widthMessage has lists of every scalar kind, packed and unpacked, with
// the values at the edges of each kind's range.
func widthMessage() *test3pb.TestAllTypes {
	i32 := []int32{0, 1, -1, math.MaxInt32, math.MinInt32, 300}
	u32 := []uint32{0, 1, 127, 128, math.MaxUint32}
	return &test3pb.TestAllTypes{
		RepeatedInt32:      i32,
		RepeatedSint32:     i32,
		RepeatedSfixed32:   i32,
		RepeatedUint32:     u32,
		RepeatedFixed32:    u32,
		RepeatedFloat:      []float32{0, float32(math.Copysign(0, -1)), -1.5, float32(math.Inf(-1)), math.MaxFloat32},
		RepeatedBool:       []bool{true, false, true},
		RepeatedNestedEnum: []test3pb.TestAllTypes_NestedEnum{test3pb.TestAllTypes_NEG, test3pb.TestAllTypes_BAZ, 1000, math.MinInt32},
		RepeatedInt64:      []int64{-1, math.MinInt64, math.MaxInt64},
		RepeatedDouble:     []float64{-2.5, math.Inf(1)},
		UnpackedInt32:      i32,
		UnpackedSint32:     i32,
		UnpackedSfixed32:   i32,
		UnpackedUint32:     u32,
		UnpackedFixed32:    u32,
		UnpackedFloat:      []float32{-1.5, 3},
		UnpackedBool:       []bool{false, true},
		UnpackedNestedEnum: []test3pb.TestAllTypes_NestedEnum{test3pb.TestAllTypes_NEG, 7},
		UnpackedInt64:      []int64{-1, 5},
	}
}

// Lists of 32-bit kinds keep 32 bits an element (wire.WidthOf), decoded
// from packed and unpacked records, built by Append and Set, merged,
// compared and truncated, and keep every value: each list reads back, and
// encodes, as dynamicpb's does.
func TestScalarListWidths(t *testing.T) {
	g := widthMessage()
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	md := g.ProtoReflect().Descriptor()
	m, want := decodeBoth(t, md, b)
	// Built element by element, and merged twice (the second time into
	// itself), as dynamicpb's is.
	built, wantBuilt := NewMessage(md), dynamicpb.NewMessage(md)
	lists := 0
	for i := range md.Fields().Len() {
		fd := md.Fields().Get(i)
		if !fd.IsList() || fd.Message() != nil || fd.Kind() == protoreflect.StringKind || fd.Kind() == protoreflect.BytesKind {
			continue
		}
		l := m.Get(fd).List().(*list)
		if l.Len() == 0 {
			continue
		}
		lists++
		var n int
		switch wire.WidthOf(fd.Kind()) {
		case wire.Signed32:
			n = len(l.int32s())
		case wire.Unsigned32:
			n = len(l.uint32s())
		default:
			n = len(l.words())
		}
		if n != l.Len() || l.width != wire.WidthOf(fd.Kind()) {
			t.Errorf("%s: %d elements of its width, of %d; width %d", fd.Name(), n, l.Len(), l.width)
		}
		wl := want.Get(fd).List()
		bl, wbl := built.Mutable(fd).List(), wantBuilt.Mutable(fd).List()
		for j := range l.Len() {
			if !l.Get(j).Equal(wl.Get(j)) {
				t.Errorf("%s[%d] = %v, want %v", fd.Name(), j, l.Get(j), wl.Get(j))
			}
			bl.Append(wl.Get(0))
			wbl.Append(wl.Get(0))
			bl.Set(j, wl.Get(j))
			wbl.Set(j, wl.Get(j))
		}
		bl.Truncate(l.Len() - 1)
		wbl.Truncate(l.Len() - 1)
	}
	if lists != 19 {
		t.Fatalf("%d lists of scalars set, want 19", lists)
	}
	for _, c := range []struct {
		name      string
		got, want proto.Message
	}{{"decoded", m, want}, {"built", built, wantBuilt}} {
		proto.Merge(c.got, c.got)
		proto.Merge(c.want, c.want)
		proto.Merge(c.got, m)
		proto.Merge(c.want, want)
		gb, err := proto.MarshalOptions{Deterministic: true}.Marshal(c.got)
		if err != nil {
			t.Fatal(err)
		}
		wb, _ := proto.MarshalOptions{Deterministic: true}.Marshal(c.want)
		if !bytes.Equal(gb, wb) {
			t.Errorf("%s: encodes as\n%x\nwant\n%x", c.name, gb, wb)
		}
		if proto.Size(c.got) != len(wb) {
			t.Errorf("%s: size %d, want %d", c.name, proto.Size(c.got), len(wb))
		}
		again := NewMessage(md)
		if err := proto.Unmarshal(wb, again); err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(again, c.got) {
			t.Errorf("%s: not equal to its own encoding decoded", c.name)
		}
		again.Mutable(md.Fields().ByName("repeated_sint32")).List().Set(0, protoreflect.ValueOfInt32(-7))
		if proto.Equal(again, c.got) {
			t.Errorf("%s: equal after an element changed", c.name)
		}
	}
}
