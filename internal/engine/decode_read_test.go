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

// TestKeepsWord holds decOp.keeps, by which the packed loops skip the
// word of each element, to the word: for every scalar kind, where keeps
// holds, the word of every value, kept in the list's element type, is
// the value kept there; and it fails for some value where it does not.
func TestKeepsWord(t *testing.T) {
	values := []uint64{0, 1, 2, 0x7f, 0x80, 0x7fffffff, 0x80000000, 0xffffffff,
		1 << 32, 1<<40 | 3, 1 << 63, 0xffffffffffffffff}
	kept := func(w wire.Width, x uint64) uint64 {
		switch w {
		case wire.Signed32:
			return uint64(int32(x))
		case wire.Unsigned32:
			return uint64(uint32(x))
		}
		return x
	}
	for k := protoreflect.DoubleKind; k <= protoreflect.Sint64Kind; k++ {
		switch k {
		case protoreflect.StringKind, protoreflect.BytesKind, protoreflect.MessageKind, protoreflect.GroupKind:
			continue
		}
		op, w := scalarOp(k), wire.WidthOf(k)
		same := true
		for _, x := range values {
			if kept(w, op.word(x)) != kept(w, x) {
				same = false
			}
		}
		if got := op.keeps(w); got != same {
			t.Errorf("%v: keeps = %v, but the word of every value is the value kept: %v", k, got, same)
		}
	}
}

// TestConsumeBytesIsProtowire holds consumeBytes, whose shortcuts read
// lengths of one and two bytes, to protowire.ConsumeBytes: every prefix
// of one and two bytes (overlong ones included), a three-byte one, with
// values that fit, end at the buffer's end, or run past it.
func TestConsumeBytesIsProtowire(t *testing.T) {
	var prefixes [][]byte
	for a := range 256 {
		prefixes = append(prefixes, []byte{byte(a)})
		for _, c := range []byte{0, 1, 2, 0x7f, 0x80, 0xff} {
			prefixes = append(prefixes, []byte{byte(a), c})
		}
	}
	prefixes = append(prefixes, []byte{0x80, 0x80, 0x01}, []byte{0x81, 0x80, 0x00})
	for _, p := range prefixes {
		for _, extra := range []int{0, 1, 127, 128, 129, 255, 300, 16383, 16384, 16385} {
			b := append(append([]byte(nil), p...), make([]byte, extra)...)
			v, n := consumeBytes(b)
			wv, wn := protowire.ConsumeBytes(b)
			if n != wn || len(v) != len(wv) || n >= 0 && len(v) > 0 && &v[0] != &wv[0] {
				t.Fatalf("% x and %d bytes: consumeBytes gives %d, %d bytes; protowire %d, %d bytes", p, extra, n, len(v), wn, len(wv))
			}
		}
	}
}
