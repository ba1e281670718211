package wire

import (
	"math"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

func TestVarintTwins(t *testing.T) {
	for _, v := range []uint64{0, 1, 0x7f, 0x80, 0x3fff, 0x4000, math.MaxUint32, math.MaxInt64, math.MaxUint64} {
		b := AppendVarint([]byte{0xaa}, v)
		if got, want := len(b)-1, SizeVarint(v); got != want {
			t.Errorf("varint %d: appended %d bytes, SizeVarint says %d", v, got, want)
		}
		if want := protowire.AppendVarint(nil, v); string(b[1:]) != string(want) {
			t.Errorf("varint %d: % x, want % x", v, b[1:], want)
		}
		p := make([]byte, 12)
		if end := PutVarint(p, 1, v); string(p[1:end]) != string(b[1:]) {
			t.Errorf("varint %d: PutVarint % x, want % x", v, p[1:end], b[1:])
		}
	}
}

func TestTagTwins(t *testing.T) {
	for _, n := range []protowire.Number{1, 15, 16, 2047, 2048, 262143, 262144, protowire.MaxValidNumber} {
		b := AppendTag(nil, n, protowire.BytesType)
		if len(b) != SizeTag(n) {
			t.Errorf("tag %d: appended %d bytes, SizeTag says %d", n, len(b), SizeTag(n))
		}
		if want := protowire.AppendTag(nil, n, protowire.BytesType); string(b) != string(want) {
			t.Errorf("tag %d: % x, want % x", n, b, want)
		}
	}
}

func TestScalarTwins(t *testing.T) {
	cases := []struct {
		kind protoreflect.Kind
		v    protoreflect.Value
		want string // hex of the reference encoding
	}{
		{protoreflect.BoolKind, protoreflect.ValueOfBool(true), "01"},
		{protoreflect.BoolKind, protoreflect.ValueOfBool(false), "00"},
		{protoreflect.EnumKind, protoreflect.ValueOfEnum(-1), "ffffffffffffffffff01"},
		{protoreflect.Int32Kind, protoreflect.ValueOfInt32(-1), "ffffffffffffffffff01"},
		{protoreflect.Int32Kind, protoreflect.ValueOfInt32(math.MinInt32), "80808080f8ffffffff01"},
		{protoreflect.Int64Kind, protoreflect.ValueOfInt64(math.MinInt64), "80808080808080808001"},
		{protoreflect.Sint32Kind, protoreflect.ValueOfInt32(-1), "01"},
		{protoreflect.Sint32Kind, protoreflect.ValueOfInt32(math.MinInt32), "ffffffff0f"},
		{protoreflect.Sint64Kind, protoreflect.ValueOfInt64(math.MinInt64), "ffffffffffffffffff01"},
		{protoreflect.Uint32Kind, protoreflect.ValueOfUint32(math.MaxUint32), "ffffffff0f"},
		{protoreflect.Uint64Kind, protoreflect.ValueOfUint64(math.MaxUint64), "ffffffffffffffffff01"},
		{protoreflect.Fixed32Kind, protoreflect.ValueOfUint32(1), "01000000"},
		{protoreflect.Sfixed32Kind, protoreflect.ValueOfInt32(-2), "feffffff"},
		{protoreflect.FloatKind, protoreflect.ValueOfFloat32(float32(math.Copysign(0, -1))), "00000080"},
		{protoreflect.Fixed64Kind, protoreflect.ValueOfUint64(1), "0100000000000000"},
		{protoreflect.Sfixed64Kind, protoreflect.ValueOfInt64(-2), "feffffffffffffff"},
		{protoreflect.DoubleKind, protoreflect.ValueOfFloat64(math.NaN()), "010000000000f87f"},
		{protoreflect.StringKind, protoreflect.ValueOfString("é"), "02c3a9"},
		{protoreflect.StringKind, protoreflect.ValueOfString(""), "00"},
		{protoreflect.BytesKind, protoreflect.ValueOfBytes(make([]byte, 128)), ""}, // checked below
	}
	for _, c := range cases {
		b := AppendScalar(nil, c.kind, c.v)
		if len(b) != SizeScalar(c.kind, c.v) {
			t.Errorf("%v %v: appended %d bytes, SizeScalar says %d", c.kind, c.v, len(b), SizeScalar(c.kind, c.v))
		}
		if c.kind == protoreflect.BytesKind {
			if len(b) != 130 || b[0] != 0x80 || b[1] != 0x01 {
				t.Errorf("bytes(128): % x", b[:2])
			}
			continue
		}
		if got := hexOf(b); got != c.want {
			t.Errorf("%v %v: %s, want %s", c.kind, c.v, got, c.want)
		}
	}
}

func hexOf(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

func TestAddSizeEdges(t *testing.T) {
	cases := []struct {
		a, b, limit int
		sum         int
		ok          bool
	}{
		{0, 0, MaxSize, 0, true},
		{MaxSize, 0, MaxSize, MaxSize, true},
		{MaxSize - 1, 1, MaxSize, MaxSize, true},
		{MaxSize, 1, MaxSize, 0, false},
		{1, MaxSize, MaxSize, 0, false},
		{math.MaxInt, 1, MaxSize, 0, false},
		{1, math.MaxInt, MaxSize, 0, false},
		{math.MaxInt, math.MaxInt, MaxSize, 0, false},
		{-1, 1, MaxSize, 0, false},
		{10, 5, 15, 15, true},
		{10, 6, 15, 0, false},
	}
	for _, c := range cases {
		sum, ok := AddSize(c.a, c.b, c.limit)
		if sum != c.sum || ok != c.ok {
			t.Errorf("AddSize(%d, %d, %d) = %d, %v; want %d, %v", c.a, c.b, c.limit, sum, ok, c.sum, c.ok)
		}
	}
}

func TestMulSizeEdges(t *testing.T) {
	cases := []struct {
		n, w, limit int
		p           int
		ok          bool
	}{
		{0, 8, MaxSize, 0, true},
		{MaxSize / 8, 8, MaxSize, MaxSize / 8 * 8, true},
		{MaxSize/8 + 1, 8, MaxSize, 0, false},
		{math.MaxInt, 8, MaxSize, 0, false},
		{MaxSize/4 + 1, 4, MaxSize, 0, false},
		{MaxSize / 4, 4, MaxSize, MaxSize / 4 * 4, true},
		// Products past int, whatever its width, under the largest
		// limit.
		{math.MaxInt/4 + 1, 4, math.MaxInt, 0, false},
		{math.MaxInt / 4, 4, math.MaxInt, math.MaxInt / 4 * 4, true},
		{math.MaxInt, 2, math.MaxInt, 0, false},
		{3, 0, MaxSize, 0, true},
		{-1, 4, MaxSize, 0, false},
	}
	for _, c := range cases {
		p, ok := MulSize(c.n, c.w, c.limit)
		if p != c.p || ok != c.ok {
			t.Errorf("MulSize(%d, %d, %d) = %d, %v; want %d, %v", c.n, c.w, c.limit, p, ok, c.p, c.ok)
		}
	}
}

func TestWireTypeAndWidth(t *testing.T) {
	for k := protoreflect.Kind(1); k <= protoreflect.Sint64Kind; k++ {
		if k == protoreflect.MessageKind || k == protoreflect.GroupKind || k == protoreflect.StringKind || k == protoreflect.BytesKind {
			continue
		}
		v := protoreflect.ValueOfInt64(0)
		switch k {
		case protoreflect.BoolKind:
			v = protoreflect.ValueOfBool(false)
		case protoreflect.EnumKind:
			v = protoreflect.ValueOfEnum(0)
		case protoreflect.Uint32Kind, protoreflect.Uint64Kind, protoreflect.Fixed32Kind, protoreflect.Fixed64Kind:
			v = protoreflect.ValueOfUint64(0)
		case protoreflect.FloatKind, protoreflect.DoubleKind:
			v = protoreflect.ValueOfFloat64(0)
		}
		if w := FixedWidth(k); w != 0 && w != SizeScalar(k, v) {
			t.Errorf("%v: FixedWidth %d, SizeScalar %d", k, w, SizeScalar(k, v))
		}
		switch WireType(k) {
		case protowire.Fixed32Type:
			if FixedWidth(k) != 4 {
				t.Errorf("%v: fixed32 wire type with width %d", k, FixedWidth(k))
			}
		case protowire.Fixed64Type:
			if FixedWidth(k) != 8 {
				t.Errorf("%v: fixed64 wire type with width %d", k, FixedWidth(k))
			}
		}
	}
}
