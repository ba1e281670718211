package layout_test

import (
	"bytes"
	"reflect"
	"slices"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/layout"
	"github.com/protolayout/protolayout/protobuftest"
)

// TestViewsMatchDescriptors checks every view of every test schema against
// the descriptor it was built from: emission order, names, numbers,
// kinds, keys, cardinality, presence, oneofs and child layouts.
func TestViewsMatchDescriptors(t *testing.T) {
	for _, tw := range protobuftest.Twins() {
		for _, mt := range []protoreflect.MessageType{tw.Gen, tw.Dyn} {
			md := mt.Descriptor()
			l := layout.Of(md)
			if !l.IsValid() || l.FullName() != md.FullName() || l.Len() != md.Fields().Len() ||
				l.MapEntry() != md.IsMapEntry() || l.Extendable() != (md.ExtensionRanges().Len() > 0) {
				t.Fatalf("%s: layout %s, %d fields", md.FullName(), l.FullName(), l.Len())
			}
			var order []protoreflect.FieldNumber
			for i, f := range l.Fields() {
				fd := md.Fields().ByNumber(f.Number())
				if fd == nil || l.Field(i).Number() != f.Number() {
					t.Fatalf("%s: field %d at %d", md.FullName(), f.Number(), i)
				}
				checkField(t, f, fd)
				if g, ok := l.ByNumber(f.Number()); !ok || g.FullName() != f.FullName() {
					t.Errorf("%s: ByNumber(%d)", md.FullName(), f.Number())
				}
				if g, ok := l.ByName(f.Name()); !ok || g.Number() != f.Number() {
					t.Errorf("%s: ByName(%s)", md.FullName(), f.Name())
				}
				order = append(order, f.Number())
			}
			var want []protoreflect.FieldNumber
			for _, fd := range protobuftest.EmissionOrder(md) {
				want = append(want, fd.Number())
			}
			if !slices.Equal(order, want) {
				t.Errorf("%s: emission order %v, want %v", md.FullName(), order, want)
			}
			for i, o := range l.Oneofs() {
				for p := o.First; p < o.End; p++ {
					f := l.Field(p)
					if f.Oneof() != i || md.Fields().ByNumber(f.Number()).ContainingOneof().Name() != o.Name {
						t.Errorf("%s: field %s in oneof %s", md.FullName(), f.Name(), o.Name)
					}
				}
			}
			for _, xt := range append(slices.Clone(tw.GenExts), tw.DynExts...) {
				checkField(t, layout.Extension(xt.TypeDescriptor()), xt.TypeDescriptor().Descriptor())
			}
		}
	}
}

func checkField(t *testing.T, f layout.Field, fd protoreflect.FieldDescriptor) {
	t.Helper()
	kind := fd.Kind()
	wt := map[protoreflect.Kind]protowire.Type{
		protoreflect.DoubleKind: protowire.Fixed64Type, protoreflect.FloatKind: protowire.Fixed32Type,
		protoreflect.Fixed64Kind: protowire.Fixed64Type, protoreflect.Sfixed64Kind: protowire.Fixed64Type,
		protoreflect.Fixed32Kind: protowire.Fixed32Type, protoreflect.Sfixed32Kind: protowire.Fixed32Type,
		protoreflect.StringKind: protowire.BytesType, protoreflect.BytesKind: protowire.BytesType,
		protoreflect.MessageKind: protowire.BytesType, protoreflect.GroupKind: protowire.StartGroupType,
	}[kind]
	if fd.IsMap() {
		kind, wt = protoreflect.MessageKind, protowire.BytesType
	}
	if f.Name() != fd.Name() || f.FullName() != fd.FullName() || f.Number() != fd.Number() ||
		f.Kind() != kind || f.WireType() != wt || f.IsExtension() != fd.IsExtension() ||
		f.IsList() != fd.IsList() || f.IsMap() != fd.IsMap() || f.IsPacked() != (fd.IsList() && fd.IsPacked()) ||
		f.HasPresence() != fd.HasPresence() || f.IsRequired() != (fd.Cardinality() == protoreflect.Required) ||
		f.IsGroup() != (fd.Kind() == protoreflect.GroupKind) {
		t.Errorf("%s: view disagrees with its descriptor", fd.FullName())
	}
	if !bytes.Equal(f.Tag(), protowire.AppendTag(nil, fd.Number(), wt)) {
		t.Errorf("%s: tag % x", fd.FullName(), f.Tag())
	}
	if f.IsPacked() != (f.PackedTag() != nil) || f.IsGroup() != (f.EndTag() != nil) {
		t.Errorf("%s: packed or end tag", fd.FullName())
	}
	switch {
	case fd.IsMap():
		if f.MapKey().Number() != 1 || f.MapValue().Number() != 2 || f.Entry().FullName() != fd.Message().FullName() || f.Message().IsValid() {
			t.Errorf("%s: map key, value or entry", fd.FullName())
		}
		if mv := fd.MapValue(); mv.Message() != nil && f.MapValue().Message().FullName() != mv.Message().FullName() {
			t.Errorf("%s: map value layout", fd.FullName())
		}
	case fd.Message() != nil:
		if f.Message().FullName() != fd.Message().FullName() || f.Entry().IsValid() || f.MapKey().IsValid() {
			t.Errorf("%s: message layout %s", fd.FullName(), f.Message().FullName())
		}
	default:
		if f.Message().IsValid() || f.Entry().IsValid() {
			t.Errorf("%s: a scalar with a message layout", fd.FullName())
		}
	}
}

// TestZeroViews checks that the zero Layout and Field are empty, not a
// panic.
func TestZeroViews(t *testing.T) {
	var l layout.Layout
	var f layout.Field
	if l.IsValid() || l.Len() != 0 || l.FullName() != "" || len(l.Oneofs()) != 0 || f.IsValid() ||
		f.Number() != 0 || f.Tag() != nil || f.Oneof() != -1 || f.Message().IsValid() || f.MapKey().IsValid() {
		t.Fatal("zero views are not empty")
	}
	if _, ok := l.ByNumber(1); ok {
		t.Fatal("ByNumber on the zero Layout found a field")
	}
	for range l.Fields() {
		t.Fatal("the zero Layout has fields")
	}
}

// TestSealed tries every way the public API offers to change a shared
// layout (changing returned slices, overwriting views, setting fields
// through reflect) and checks that the layouts and the bytes later calls
// write are unchanged.
func TestSealed(t *testing.T) {
	tw := protobuftest.TwinByName("protolayout.test3.TestAllTypes")
	m := tw.Dyn.New()
	protobuftest.Fill(m, 7, protobuftest.RandOptions{})
	before, err := encoder.MarshalOptions{Deterministic: true}.Marshal(m.Interface())
	if err != nil {
		t.Fatal(err)
	}
	l := layout.Of(tw.Dyn.Descriptor())
	snapshot := describe(l)

	for i, f := range l.Fields() {
		for _, b := range [][]byte{f.Tag(), f.PackedTag(), f.EndTag(), f.MapKey().Tag(), f.MapValue().Tag()} {
			for j := range b {
				b[j] = 0xff
			}
		}
		f = layout.Field{} // overwrites the loop's copy only
		_ = f
		g := l.Field(i)
		p := &g
		*p = layout.Field{} // overwrites the caller's copy only
		// reflect cannot set what the views hold.
		v := reflect.ValueOf(p).Elem()
		for k := range v.NumField() {
			if v.Field(k).CanSet() {
				t.Fatalf("reflect can set field %d of a layout.Field", k)
			}
		}
	}
	for _, o := range l.Oneofs() {
		o.First, o.End = 0, 0
	}
	os := l.Oneofs()
	for i := range os {
		os[i] = layout.Oneof{}
	}
	lv := reflect.ValueOf(&l).Elem()
	for k := range lv.NumField() {
		if lv.Field(k).CanSet() {
			t.Fatalf("reflect can set field %d of a layout.Layout", k)
		}
	}
	l = layout.Layout{}

	if got := describe(layout.Of(tw.Dyn.Descriptor())); got != snapshot {
		t.Fatalf("the shared layout changed:\n%s\nwant\n%s", got, snapshot)
	}
	after, err := encoder.MarshalOptions{Deterministic: true}.Marshal(m.Interface())
	if err != nil || !bytes.Equal(after, before) {
		t.Fatalf("a later encoding changed (err %v)", err)
	}
	want, _ := proto.MarshalOptions{Deterministic: true}.Marshal(m.Interface())
	if !bytes.Equal(after, want) {
		t.Fatal("the encoding differs from proto.Marshal's")
	}
}

// describe renders everything a layout view shows.
func describe(l layout.Layout) string {
	var b []byte
	var field func(f layout.Field)
	field = func(f layout.Field) {
		b = append(b, f.FullName()...)
		b = protowire.AppendVarint(b, uint64(f.Number()))
		b = append(b, f.Tag()...)
		b = append(b, f.PackedTag()...)
		b = append(b, f.EndTag()...)
		b = append(b, byte(f.Kind()), byte(f.WireType()), byte(f.Oneof()+1))
		for _, x := range []bool{f.IsList(), f.IsMap(), f.IsPacked(), f.HasPresence(), f.IsRequired(), f.ValidatesUTF8(), f.IsGroup()} {
			if x {
				b = append(b, '1')
			} else {
				b = append(b, '0')
			}
		}
		if f.IsMap() {
			field(f.MapKey())
			field(f.MapValue())
		}
		b = append(b, '\n')
	}
	for _, f := range l.Fields() {
		field(f)
	}
	for _, o := range l.Oneofs() {
		b = append(b, o.Name...)
		b = append(b, byte(o.First), byte(o.End), '\n')
	}
	return string(b)
}
