package engine

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/fault"
	"github.com/protolayout/protolayout/internal/layout"
	"github.com/protolayout/protolayout/internal/wire"
	"github.com/protolayout/protolayout/protobuftest/gen/test3pb"
)

// valueField returns the layout record of the field name of
// test3pb.TestAllTypes, its record and its descriptor.
func valueField(t *testing.T, name protoreflect.Name) (*layout.Field, *layout.Rec, protoreflect.FieldDescriptor) {
	t.Helper()
	md := (*test3pb.TestAllTypes)(nil).ProtoReflect().Descriptor()
	lf := layout.Of(md).ByName(name)
	if lf == nil {
		t.Fatalf("no field %s", name)
	}
	r, _ := lf.Rec()
	return lf, &r, md.Fields().ByName(name)
}

// marshalField returns proto.Marshal of a TestAllTypes with only the
// field fd set: to v, or for a list to the elements of vs.
func marshalField(t *testing.T, fd protoreflect.FieldDescriptor, vs ...protoreflect.Value) []byte {
	t.Helper()
	m := (&test3pb.TestAllTypes{}).ProtoReflect()
	if fd.IsList() {
		l := m.Mutable(fd).List()
		for _, v := range vs {
			l.Append(v)
		}
	} else {
		m.Set(fd, vs[0])
	}
	b, err := proto.Marshal(m.Interface())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// texts are strings of every length class a length prefix and the UTF-8
// test tell apart: empty, short, 8 to 32 bytes of ASCII (told inline),
// longer, multi-byte, past one and two bytes of length.
var texts = []string{
	"", "a", "seven77", "eight888", "service.instance.id", strings.Repeat("x", 32),
	strings.Repeat("y", 33), "héllo wörld, ünïcode", strings.Repeat("z", 127),
	strings.Repeat("w", 128), strings.Repeat("é", 300), strings.Repeat("v", 20000),
}

// badTexts are invalid UTF-8, short and long, inline and by call.
var badTexts = []string{"\xff", "abcdefg\xff", strings.Repeat("a", 20) + "\xc3", strings.Repeat("b", 40) + "\xed\xa0\x80"}

func TestValueText(t *testing.T) {
	lf, r, fd := valueField(t, "singular_string")
	for _, s := range texts {
		want := marshalField(t, fd, protoreflect.ValueOfString(s))
		if s == "" {
			want = []byte{0x72, 0} // implicit presence writes nothing; the kernel writes what it is given
		}
		e := &enc{utf8: true, maxSize: math.MaxInt32, trail: new(fault.Trail)}
		if n, ok := e.sizeText(r, lf, s, 0); !ok || n != len(want) {
			t.Errorf("sizeText(%d bytes) = %d, %v; want %d", len(s), n, ok, len(want))
		}
		if got := appendText(nil, r, s); !bytes.Equal(got, want) {
			t.Errorf("appendText(%d bytes) = % x, want % x", len(s), got, want)
		}
		if got := appendText(nil, r, []byte(s)); !bytes.Equal(got, want) {
			t.Errorf("appendText([]byte, %d bytes) differs", len(s))
		}
		if invalidText(s) || invalidText([]byte(s)) {
			t.Errorf("invalidText(%q) = true for valid text", s)
		}
	}
	for _, s := range badTexts {
		if !invalidText(s) || !invalidText([]byte(s)) {
			t.Errorf("invalidText(%q) = false for invalid text", s)
		}
		e := &enc{utf8: true, maxSize: math.MaxInt32, trail: new(fault.Trail)}
		if _, ok := e.sizeText(r, lf, s, 5); ok {
			t.Errorf("sizeText(%q) accepted invalid UTF-8", s)
		}
		if c, f, _ := e.trail.Result(math.MaxInt32); c != fault.InvalidUTF8 || f != lf {
			t.Errorf("sizeText(%q) recorded %v at %v, want InvalidUTF8 at the field", s, c, f)
		}
		e = &enc{maxSize: math.MaxInt32}
		if _, ok := e.sizeText(r, lf, s, 0); !ok {
			t.Errorf("sizeText(%q) checked UTF-8 in a call that does not", s)
		}
	}
	// A field that does not ask for UTF-8 (bytes) is never checked.
	blf, br, _ := valueField(t, "singular_bytes")
	e := &enc{utf8: true, maxSize: math.MaxInt32, trail: new(fault.Trail)}
	if _, ok := e.sizeText(br, blf, badTexts[0], 0); !ok {
		t.Error("sizeText checked a bytes field's UTF-8")
	}
}

func TestValueTexts(t *testing.T) {
	lf, r, fd := valueField(t, "repeated_string")
	var vs []protoreflect.Value
	for _, s := range texts {
		vs = append(vs, protoreflect.ValueOfString(s))
	}
	want := marshalField(t, fd, vs...)
	e := &enc{utf8: true, maxSize: math.MaxInt32, trail: new(fault.Trail)}
	if n, ok := e.sizeTexts(r, lf, texts); !ok || n != len(want) {
		t.Errorf("sizeTexts = %d, %v; want %d", n, ok, len(want))
	}
	if got, ok := appendTexts(nil, r, texts, true); !ok || !bytes.Equal(got, want) {
		t.Errorf("appendTexts = % x, %v; want % x", got, ok, want)
	}

	// An invalid element: a fault after the bytes of those before it in
	// the size pass, a give-up in a write pass that checks.
	bad := append(texts[:3:3], badTexts[1])
	if _, ok := e.sizeTexts(r, lf, bad); ok {
		t.Error("sizeTexts accepted invalid UTF-8")
	}
	if c, f, _ := e.trail.Result(math.MaxInt32); c != fault.InvalidUTF8 || f != lf {
		t.Errorf("sizeTexts recorded %v at %v, want InvalidUTF8 at the field", c, f)
	}
	if _, ok := appendTexts(nil, r, bad, true); ok {
		t.Error("appendTexts, checking, wrote invalid UTF-8")
	}
	if _, ok := appendTexts(nil, r, bad, false); !ok {
		t.Error("appendTexts checked when not asked to")
	}

	_, br, bfd := valueField(t, "repeated_bytes")
	var blobs [][]byte
	vs = vs[:0]
	for _, s := range append(texts, badTexts...) {
		blobs = append(blobs, []byte(s))
		vs = append(vs, protoreflect.ValueOfBytes([]byte(s)))
	}
	want = marshalField(t, bfd, vs...)
	if n, ok := e.sizeBlobs(br, blobs); !ok || n != len(want) {
		t.Errorf("sizeBlobs = %d, %v; want %d", n, ok, len(want))
	}
	if got, ok := appendTexts(nil, br, blobs, true); !ok || !bytes.Equal(got, want) {
		t.Errorf("appendTexts of bytes = % x, %v; want % x", got, ok, want)
	}
	if n, ok := e.sizeBlob(br, 300, 0); !ok || n != 2+2+300 { // field 45: a key of two bytes
		t.Errorf("sizeBlob(300) = %d, %v; want 304", n, ok)
	}
}

// TestValueIntegers holds the kernels of lists of integers, packed and
// not, of every integer kind, to proto.Marshal, in each element type a
// storage keeps them in (wire.Integers).
func TestValueIntegers(t *testing.T) {
	ints := []int64{0, 1, -1, 127, 128, -128, 300, math.MaxInt32, math.MinInt32, math.MaxInt64, math.MinInt64}
	for _, prefix := range []string{"repeated_", "unpacked_"} {
		for _, kind := range []string{"int32", "sint32", "sfixed32", "uint32", "fixed32", "int64", "sint64", "sfixed64", "uint64", "fixed64"} {
			name := protoreflect.Name(prefix + kind)
			lf, r, fd := valueField(t, name)
			var vs []protoreflect.Value
			var i32 []int32
			var u32 []uint32
			var i64 []int64
			var u64 []uint64
			for _, x := range ints {
				switch fd.Kind() {
				case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
					vs = append(vs, protoreflect.ValueOfInt32(int32(x)))
					i32 = append(i32, int32(x))
				case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
					vs = append(vs, protoreflect.ValueOfUint32(uint32(x)))
					u32 = append(u32, uint32(x))
				case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
					vs = append(vs, protoreflect.ValueOfInt64(x))
					i64 = append(i64, x)
				default:
					vs = append(vs, protoreflect.ValueOfUint64(uint64(x)))
					u64 = append(u64, uint64(x))
				}
			}
			want := marshalField(t, fd, vs...)
			var got []byte
			var n int
			switch {
			case i32 != nil:
				got, n = integers(r, lf, i32)
			case u32 != nil:
				got, n = integers(r, lf, u32)
			case i64 != nil:
				got, n = integers(r, lf, i64)
			default:
				got, n = integers(r, lf, u64)
			}
			if !bytes.Equal(got, want) || n != len(want) {
				t.Errorf("%s: kernels wrote % x (size %d), want % x", name, got, n, want)
			}
		}
	}
}

// integers returns the encoding of xs as the list field lf, of record r,
// and its size, by the kernels its packing calls for.
func integers[T wire.Integers](r *layout.Rec, lf *layout.Field, xs []T) ([]byte, int) {
	if lf.Packed {
		return appendPacked(nil, r, lf.PackedTag, xs), sizePacked(r, xs)
	}
	return appendUnpacked(nil, r, xs), sizeUnpacked(r, xs)
}
