package cursor_test

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/cursor"
	"github.com/protolayout/protolayout/protobuftest"
)

// transcode re-encodes m from the walk alone: a transcoder built on the
// public Walker, as a user would write one. Nested lengths are patched in
// when a message ends.
func transcode(w *cursor.Walker, m protoreflect.Message, o cursor.Options) ([]byte, error) {
	w.Reset(m, o)
	defer w.Release()
	var b []byte
	type open struct {
		start int // where the body starts
		group bool
		end   []byte
	}
	var stack []open
	for {
		it := w.Next()
		switch it.Kind {
		case cursor.Done:
			return b, nil
		case cursor.Failed:
			return nil, it.Err
		case cursor.Value:
			b = append(b, it.Field.Tag()...)
			b = appendValue(b, it.Field.Kind(), it.Value)
		case cursor.Packed:
			b = append(b, it.Field.PackedTag()...)
			var body []byte
			l := it.Value.List()
			for i := range l.Len() {
				body = appendValue(body, it.Field.Kind(), l.Get(i))
			}
			b = protowire.AppendBytes(b, body)
		case cursor.Enter, cursor.Entry:
			b = append(b, it.Field.Tag()...)
			g := it.Kind == cursor.Enter && it.Field.IsGroup()
			stack = append(stack, open{start: len(b), group: g, end: it.Field.EndTag()})
		case cursor.Exit:
			p := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if p.group {
				b = append(b, p.end...)
				continue
			}
			body := bytes.Clone(b[p.start:])
			b = protowire.AppendBytes(b[:p.start], body)
		case cursor.Unknown:
			b = append(b, it.Value.Bytes()...)
		}
	}
}

func appendValue(b []byte, k protoreflect.Kind, v protoreflect.Value) []byte {
	switch k {
	case protoreflect.BoolKind:
		return protowire.AppendVarint(b, protowire.EncodeBool(v.Bool()))
	case protoreflect.EnumKind:
		return protowire.AppendVarint(b, uint64(v.Enum()))
	case protoreflect.Int32Kind, protoreflect.Int64Kind:
		return protowire.AppendVarint(b, uint64(v.Int()))
	case protoreflect.Uint32Kind, protoreflect.Uint64Kind:
		return protowire.AppendVarint(b, v.Uint())
	case protoreflect.Sint32Kind, protoreflect.Sint64Kind:
		return protowire.AppendVarint(b, protowire.EncodeZigZag(v.Int()))
	case protoreflect.Fixed32Kind:
		return protowire.AppendFixed32(b, uint32(v.Uint()))
	case protoreflect.Sfixed32Kind:
		return protowire.AppendFixed32(b, uint32(v.Int()))
	case protoreflect.FloatKind:
		return protowire.AppendFixed32(b, math.Float32bits(float32(v.Float())))
	case protoreflect.Fixed64Kind:
		return protowire.AppendFixed64(b, v.Uint())
	case protoreflect.Sfixed64Kind:
		return protowire.AppendFixed64(b, uint64(v.Int()))
	case protoreflect.DoubleKind:
		return protowire.AppendFixed64(b, math.Float64bits(v.Float()))
	case protoreflect.StringKind:
		return protowire.AppendString(b, v.String())
	case protoreflect.BytesKind:
		return protowire.AppendBytes(b, v.Bytes())
	}
	panic("unexpected kind " + k.String())
}

// TestTranscodeEquivalence re-encodes seeded random messages of every test
// schema, generated and dynamic, from the walk and compares the bytes with
// proto.Marshal's: the walk hands out everything, in proto.Marshal's order.
func TestTranscodeEquivalence(t *testing.T) {
	var w cursor.Walker
	det := proto.MarshalOptions{Deterministic: true, AllowPartial: true}
	for _, tw := range protobuftest.Twins() {
		for seed := range uint64(8) {
			for _, mt := range []protoreflect.MessageType{tw.Gen, tw.Dyn} {
				m := mt.New()
				protobuftest.Fill(m, seed, protobuftest.RandOptions{Unknown: seed%2 == 1})
				protobuftest.QuietFloat32NaNs(m.Interface())
				want, err := det.Marshal(m.Interface())
				if err != nil {
					t.Fatal(err)
				}
				got, err := transcode(&w, m, cursor.Options{Deterministic: true})
				if err != nil {
					t.Fatalf("%s seed %d: %v", tw.Name, seed, err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("%s seed %d: transcoded bytes differ from proto.Marshal's:\n%s", tw.Name, seed,
						protobuftest.FirstDiff(got, want, m.Descriptor()))
				}
			}
		}
	}
}

func recursive(depth int) protoreflect.Message {
	mt := protobuftest.TwinByName("protolayout.test3.TestRecursive").Dyn
	root := mt.New()
	cur := root
	fd := root.Descriptor().Fields().ByName("child")
	for range depth {
		cur = cur.Mutable(fd).Message()
	}
	return root
}

func TestFailures(t *testing.T) {
	var w cursor.Walker
	_, err := transcode(&w, recursive(20), cursor.Options{MaxDepth: 10})
	if err == nil || !errors.Is(err, proto.Error) || !strings.Contains(err.Error(), "depth limit") ||
		!strings.Contains(err.Error(), "child.child") {
		t.Errorf("depth: %v", err)
	}
	if _, err := transcode(&w, recursive(9), cursor.Options{MaxDepth: 10}); err != nil {
		t.Errorf("10 levels within MaxDepth 10: %v", err)
	}
	if _, err := transcode(&w, recursive(10), cursor.Options{MaxDepth: 10}); err == nil {
		t.Errorf("11 levels within MaxDepth 10")
	}
	req := protobuftest.TwinByName("protolayout.test2.TestRequired").Dyn.New()
	if _, err := transcode(&w, req, cursor.Options{CheckRequired: true}); err == nil || !strings.Contains(err.Error(), "required field not set") {
		t.Errorf("required: %v", err)
	}
	if _, err := transcode(&w, req, cursor.Options{}); err != nil {
		t.Errorf("required without CheckRequired: %v", err)
	}
	// After Failed, Next keeps returning it.
	w.Reset(recursive(3), cursor.Options{MaxDepth: 1})
	var first cursor.Item
	for first = w.Next(); first.Kind != cursor.Failed; first = w.Next() {
	}
	if again := w.Next(); again.Kind != cursor.Failed || again.Err != first.Err {
		t.Errorf("after Failed: %v", again.Kind)
	}
	w.Release()
}

func TestSkipAndDepth(t *testing.T) {
	var w cursor.Walker
	w.Reset(recursive(5), cursor.Options{})
	defer w.Release()
	enters := 0
	for it := w.Next(); it.Kind != cursor.Done; it = w.Next() {
		if it.Kind == cursor.Enter {
			enters++
			if w.Depth() != enters {
				t.Fatalf("Depth %d after %d Enters", w.Depth(), enters)
			}
			if enters == 2 {
				w.Skip() // the rest of the chain is not walked
			}
		}
	}
	if enters != 2 {
		t.Fatalf("%d Enters with the third level skipped, want 2", enters)
	}
}

func TestWalkAllocates(t *testing.T) {
	tw := protobuftest.TwinByName("protolayout.test3.TestAllTypes")
	m := tw.Dyn.New()
	protobuftest.Fill(m, 3, protobuftest.RandOptions{})
	var w cursor.Walker
	walk := func() {
		w.Reset(m, cursor.Options{Deterministic: true})
		for it := w.Next(); it.Kind != cursor.Done; it = w.Next() {
		}
		w.Release()
	}
	walk()
	if n := testing.AllocsPerRun(50, walk); n != 0 {
		t.Fatalf("a walk of a dynamicpb message allocates %.0f times", n)
	}
}

func TestKindString(t *testing.T) {
	if cursor.Enter.String() != "Enter" || cursor.Kind(99).String() != "Kind(99)" {
		t.Fatal(cursor.Enter.String(), cursor.Kind(99).String())
	}
}
