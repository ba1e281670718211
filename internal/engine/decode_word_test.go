package engine

import (
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/wire"
)

// TestDecodeWordIsWireWord holds the decoder's word rule (decOp.word, by
// the op of a singular scalar field or a packed list's element) to
// wire.WireWord, the rule's home, for every scalar kind at the edges of
// each rule.
func TestDecodeWordIsWireWord(t *testing.T) {
	values := []uint64{0, 1, 2, 0x7f, 0x80, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff,
		1 << 32, 1<<32 | 5, 1<<40 | 3, 1<<63 - 1, 1 << 63, 1<<63 | 0xffffffff, 0xfffffffffffffffe, 0xffffffffffffffff}
	for k := protoreflect.DoubleKind; k <= protoreflect.Sint64Kind; k++ {
		switch k {
		case protoreflect.StringKind, protoreflect.BytesKind, protoreflect.MessageKind, protoreflect.GroupKind:
			continue
		}
		op := scalarOp(k)
		for _, x := range values {
			in := x
			if wire.WireType(k) == protowire.Fixed32Type { // the wire holds 32 bits
				in = uint64(uint32(x))
			}
			if got, want := op.word(in), wire.WireWord(k, in); got != want {
				t.Errorf("%v: word(%#x) = %#x, want %#x", k, in, got, want)
			}
		}
	}
}
