package genstore_test

import (
	"math"
	"reflect"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/genstore"
	"github.com/protolayout/protolayout/internal/layout"
	"github.com/protolayout/protolayout/protobuftest"
	opaquetest2pb "github.com/protolayout/protolayout/protobuftest/gen/opaque/test2pb"
	opaquetest3pb "github.com/protolayout/protolayout/protobuftest/gen/opaque/test3pb"
	opaquetesteditionspb "github.com/protolayout/protolayout/protobuftest/gen/opaque/testeditionspb"
	"github.com/protolayout/protolayout/protobuftest/gen/test2pb"
	"github.com/protolayout/protolayout/protobuftest/gen/test3pb"
	"github.com/protolayout/protolayout/protobuftest/gen/testeditionspb"
)

// extraFiles are more generated files whose types must be mapped (the
// hybrid-API copies of the test schemas, where the module has them).
var extraFiles []protoreflect.FileDescriptor

// Every generated test type is mapped, with a record per layout field and
// per oneof, and a valid representation everywhere.
func TestEveryTypeMapped(t *testing.T) {
	types := testTypes(t)
	if len(types) < 50 {
		t.Fatalf("only %d test types", len(types))
	}
	reps := map[genstore.Rep]bool{}
	for _, tt := range types {
		s := mustOf(t, tt.mt)
		md := tt.mt.Descriptor()
		if s.Layout != layout.Of(md) || len(s.Fields) != len(s.Layout.Fields) || len(s.Oneofs) != len(s.Layout.Oneofs) {
			t.Errorf("%s: records do not follow the layout", md.FullName())
		}
		if s.GoType != reflect.TypeOf(tt.mt.Zero().Interface()) {
			t.Errorf("%s: GoType %v", md.FullName(), s.GoType)
		}
		if s.SizeCacheOffset < 0 || s.UnknownOffset < 0 {
			t.Errorf("%s: no size cache or unknown fields", md.FullName())
		}
		if (s.ExtensionsOffset >= 0) != (md.ExtensionRanges().Len() > 0) {
			t.Errorf("%s: extension fields at %d, %d extension ranges", md.FullName(), s.ExtensionsOffset, md.ExtensionRanges().Len())
		}
		for i := range s.Fields {
			f := &s.Fields[i]
			reps[f.Rep] = true
			if f.Rep == genstore.RepInvalid || f.Rep >= genstore.RepCount || f.Layout != &s.Layout.Fields[i] {
				t.Errorf("%s.%s: rep %v", md.FullName(), f.Layout.Name, f.Rep)
			}
			if (f.Oneof >= 0) != (f.Wrapper != nil) || (f.Rep == genstore.RepMap) != (f.Key != genstore.RepInvalid) {
				t.Errorf("%s.%s: oneof %d, wrapper %v, key %v", md.FullName(), f.Layout.Name, f.Oneof, f.Wrapper, f.Key)
			}
		}
		if again := mustOf(t, tt.mt); again != s {
			t.Errorf("%s: a second Of built a second map", md.FullName())
		}
	}
	for r := genstore.RepBool; r < genstore.RepCount; r++ {
		if !reps[r] {
			t.Errorf("no test field has representation %v", r)
		}
	}
}

// Random messages of every type read the same through the map as through
// protoreflect.
func TestRandomMessages(t *testing.T) {
	seeds := 12
	if testing.Short() {
		seeds = 3
	}
	opts := []protobuftest.RandOptions{
		{},
		{Unknown: true, MaxList: 6},
		{MaxDepth: 5, Partial: true},
		{NoMaps: true, MaxList: 1},
	}
	for _, tt := range testTypes(t) {
		s := mustOf(t, tt.mt)
		for seed := range seeds {
			o := opts[seed%len(opts)]
			o.Extensions = tt.exts
			m := tt.mt.New()
			protobuftest.Fill(m, uint64(seed)+1, o)
			compare(t, s, m.Interface())
		}
		compare(t, s, tt.mt.New().Interface())  // empty
		compare(t, s, tt.mt.Zero().Interface()) // nil
	}
}

// Hand-built edge cases: empty but non-nil lists and maps, nil against
// empty bytes with presence, -0.0 and NaN in implicit floats.
func TestEdgeCases(t *testing.T) {
	neg0 := math.Copysign(0, -1)
	msgs := []proto.Message{
		&test2pb.TestAllTypes{},
		&test2pb.TestAllTypes{OptionalBytes: []byte{}, DefaultBytes: nil, RepeatedInt32: []int32{}, RepeatedBytes: [][]byte{nil, {}}, MapInt32Int32: map[int32]int32{}},
		&test2pb.TestAllTypes{OptionalBytes: nil, DefaultBytes: []byte{}, OptionalString: proto.String(""), OptionalInt32: proto.Int32(0), OptionalFloat: proto.Float32(float32(neg0))},
		&test2pb.TestAllTypes{RepeatedNestedMessage: []*test2pb.TestAllTypes_NestedMessage{{}, {A: proto.Int32(1)}}, OptionalNestedMessage: &test2pb.TestAllTypes_NestedMessage{}},
		&test3pb.TestAllTypes{},
		&test3pb.TestAllTypes{SingularFloat: float32(neg0), SingularDouble: neg0, SingularBytes: []byte{}, OptionalBytes: []byte{}, RepeatedString: []string{}},
		&test3pb.TestAllTypes{SingularFloat: float32(math.NaN()), SingularDouble: math.Inf(-1), SingularBytes: []byte{0}, SingularString: "é", OptionalBytes: nil},
		&test3pb.TestAllTypes{MapStringNestedMessage: map[string]*test3pb.TestAllTypes_NestedMessage{"": nil, "x": {}}},
		&testeditionspb.TestAllTypes{},
		&testeditionspb.TestAllTypes{OptionalBytes: []byte{}, ImplicitBytes: []byte{}, ImplicitFloat: float32(neg0)},
	}
	msgs = append(msgs, opaqueEdgeCases()...)
	for _, m := range msgs {
		compare(t, mustOf(t, m.ProtoReflect().Type()), m)
	}
}

// opaqueEdgeCases are Opaque messages whose presence bits and values
// disagree with what the value alone would say: zero values set, empty
// but non-nil lists, a cleared field, messages and lists of nil
// elements.
func opaqueEdgeCases() []proto.Message {
	neg0 := float32(math.Copysign(0, -1))
	a := &opaquetest2pb.TestAllTypes{}
	a.SetOptionalInt32(0)
	a.SetOptionalFloat(neg0)
	a.SetOptionalString("")
	a.SetOptionalBytes(nil)
	a.SetDefaultInt32(0)
	a.SetDefaultString("")
	a.SetOptionalBool(false)
	a.SetRepeatedNestedMessage([]*opaquetest2pb.TestAllTypes_NestedMessage{})
	a.SetRepeatedInt32([]int32{})
	a.SetMapInt32Int32(map[int32]int32{})
	b := &opaquetest2pb.TestAllTypes{}
	b.SetOptionalInt64(5)
	b.ClearOptionalInt64()
	b.SetOptionalString("x")
	b.ClearOptionalString()
	b.SetRepeatedNestedMessage([]*opaquetest2pb.TestAllTypes_NestedMessage{nil, {}})
	b.SetOptionalNestedMessage(&opaquetest2pb.TestAllTypes_NestedMessage{})
	b.SetOptionalBytes([]byte{})
	c := &opaquetest3pb.TestAllTypes{}
	c.SetSingularFloat(neg0)
	c.SetOptionalString("")
	c.SetOptionalBytes([]byte{})
	c.SetRepeatedNestedMessage([]*opaquetest3pb.TestAllTypes_NestedMessage{})
	d := &opaquetesteditionspb.TestAllTypes{}
	d.SetOptionalInt32(0)
	d.SetOptionalBytes([]byte{})
	d.SetImplicitFloat(neg0)
	return []proto.Message{a, b, c, d, &opaquetest2pb.TestAllTypes{}, &opaquetest3pb.TestAllTypes{}}
}

// Every oneof member, set to its zero value, to a non-zero value, and,
// for messages, to a wrapper holding a nil message; a typed nil wrapper
// is unset.
func TestEveryOneofMember(t *testing.T) {
	n := 0
	for _, tt := range testTypes(t) {
		s := mustOf(t, tt.mt)
		md := tt.mt.Descriptor()
		for _, o := range s.Oneofs {
			for pos := o.First; pos < o.End; pos++ {
				f := &s.Fields[pos]
				fd := md.Fields().Get(f.Layout.Index)
				for _, nonZero := range []bool{false, true} {
					m := tt.mt.New()
					v := m.NewField(fd)
					if nonZero {
						protobuftest.Fill(m, uint64(pos), protobuftest.RandOptions{})
						m.Clear(fd)
						if fd.Message() == nil {
							v = nonZeroScalar(fd)
						}
					}
					m.Set(fd, v)
					compare(t, s, m.Interface())
					n++
				}
				m := tt.mt.New()
				field := reflect.ValueOf(m.Interface()).Elem().FieldByIndex([]int{o.StructIndex()})
				if !field.CanSet() {
					continue // an Opaque struct's hidden oneof: its setters make no such wrapper
				}
				// A wrapper holding a nil message, or a nil []byte.
				w := reflect.New(f.Wrapper.Elem())
				field.Set(w)
				compare(t, s, m.Interface())
				// A typed nil wrapper: unset.
				field.Set(reflect.Zero(f.Wrapper))
				if got, _ := o.Which(pointerOf(s, m.Interface())); got != -1 {
					t.Errorf("%s: a typed nil wrapper reads as member %d", fd.FullName(), got)
				}
				compare(t, s, m.Interface())
			}
		}
	}
	if n < 50 {
		t.Errorf("only %d oneof cases", n)
	}
}

// pointerOf returns m's pointer through s.
func pointerOf(s *genstore.Storage, m proto.Message) genstore.Pointer {
	p, _ := s.PointerOf(m)
	return p
}

// nonZeroScalar returns a non-zero value for a scalar field.
func nonZeroScalar(fd protoreflect.FieldDescriptor) protoreflect.Value {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(true)
	case protoreflect.EnumKind:
		return protoreflect.ValueOfEnum(7)
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(-5)
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(math.MinInt64)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(math.MaxUint32)
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(math.MaxUint64)
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(-1.5)
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(math.SmallestNonzeroFloat64)
	case protoreflect.StringKind:
		return protoreflect.ValueOfString("oneof")
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes([]byte{1, 2})
	}
	panic(fd.Kind())
}

// Maps of every key kind, each with the zero key and a non-zero key, and
// zero and non-zero values.
func TestMapsOfEveryKeyKind(t *testing.T) {
	keys := map[protoreflect.Kind]bool{}
	for _, tt := range testTypes(t) {
		s := mustOf(t, tt.mt)
		md := tt.mt.Descriptor()
		m := tt.mt.New()
		for i := range md.Fields().Len() {
			fd := md.Fields().Get(i)
			if !fd.IsMap() {
				continue
			}
			keys[fd.MapKey().Kind()] = true
			mp := m.Mutable(fd).Map()
			for _, k := range []protoreflect.Value{zeroOf(fd.MapKey()), nonZeroScalar(fd.MapKey())} {
				var v protoreflect.Value
				if fd.MapValue().Message() != nil {
					v = mp.NewValue()
				} else if k.Equal(zeroOf(fd.MapKey())) {
					v = zeroOf(fd.MapValue())
				} else {
					v = nonZeroScalar(fd.MapValue())
				}
				mp.Set(k.MapKey(), v)
			}
		}
		compare(t, s, m.Interface())
	}
	for _, k := range []protoreflect.Kind{
		protoreflect.BoolKind, protoreflect.Int32Kind, protoreflect.Int64Kind, protoreflect.Uint32Kind, protoreflect.Uint64Kind,
		protoreflect.Sint32Kind, protoreflect.Sint64Kind, protoreflect.Fixed32Kind, protoreflect.Fixed64Kind,
		protoreflect.Sfixed32Kind, protoreflect.Sfixed64Kind, protoreflect.StringKind,
	} {
		if !keys[k] {
			t.Errorf("no map with %v keys", k)
		}
	}
}

// zeroOf returns the zero value of a scalar field's kind.
func zeroOf(fd protoreflect.FieldDescriptor) protoreflect.Value {
	switch fd.Kind() {
	case protoreflect.EnumKind:
		return protoreflect.ValueOfEnum(0)
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes(nil)
	}
	return fd.Default()
}

// Concurrent first uses build one map, and reads race with nothing.
func TestConcurrent(t *testing.T) {
	types := testTypes(t)
	msgs := make([]proto.Message, len(types))
	for i, tt := range types {
		m := tt.mt.New()
		protobuftest.Fill(m, uint64(i), protobuftest.RandOptions{MaxDepth: 2})
		msgs[i] = m.Interface()
	}
	var wg sync.WaitGroup
	maps := make([][]*genstore.Storage, 4)
	for g := range maps {
		maps[g] = make([]*genstore.Storage, len(types))
		wg.Go(func() {
			for i := range types {
				j := (i + g*len(types)/len(maps)) % len(types)
				s, err := genstore.Of(types[j].mt)
				if err != nil {
					t.Error(err)
					return
				}
				maps[g][j] = s
				compare(t, s, msgs[j])
			}
		})
	}
	wg.Wait()
	for g := 1; g < len(maps); g++ {
		for i := range types {
			if maps[g][i] != maps[0][i] {
				t.Errorf("%s: two goroutines got two maps", types[i].mt.Descriptor().FullName())
			}
		}
	}
}

// PointerOf refuses a message of another type; the typed accessors read
// what the struct holds.
func TestAccessors(t *testing.T) {
	s := mustOf(t, (&test3pb.TestAllTypes{}).ProtoReflect().Type())
	if _, ok := s.PointerOf(&test2pb.TestAllTypes{}); ok {
		t.Error("PointerOf accepted a message of another type")
	}
	if p, ok := s.PointerOf((*test3pb.TestAllTypes)(nil)); !ok || !p.IsNil() {
		t.Error("PointerOf of a nil message: want a nil pointer")
	}
	m := &test3pb.TestAllTypes{
		SingularInt32:         -3,
		SingularNestedEnum:    test3pb.TestAllTypes_BAZ,
		RepeatedNestedEnum:    []test3pb.TestAllTypes_NestedEnum{test3pb.TestAllTypes_BAR, -1},
		RepeatedString:        []string{"a", ""},
		OptionalNestedMessage: &test3pb.TestAllTypes_NestedMessage{},
		OneofField:            &test3pb.TestAllTypes_OneofString{OneofString: "o"},
	}
	p, _ := s.PointerOf(m)
	byName := func(name protoreflect.Name) *genstore.Field {
		for i := range s.Fields {
			if s.Fields[i].Layout.Name == name {
				return &s.Fields[i]
			}
		}
		t.Fatalf("no field %s", name)
		return nil
	}
	if f := byName("singular_int32"); f.Rep != genstore.RepInt32 || f.Int32(p) != -3 {
		t.Errorf("singular_int32: %v %d", f.Rep, f.Int32(p))
	}
	if f := byName("singular_nested_enum"); f.Rep != genstore.RepInt32 || f.Int32(p) != int32(test3pb.TestAllTypes_BAZ) {
		t.Errorf("singular_nested_enum: %v %d", f.Rep, f.Int32(p))
	}
	if f := byName("repeated_nested_enum"); f.Rep != genstore.RepListInt32 || !reflect.DeepEqual(f.Int32s(p), []int32{1, -1}) || f.Len(p) != 2 {
		t.Errorf("repeated_nested_enum: %v %v", f.Rep, f.Int32s(p))
	}
	if f := byName("repeated_string"); f.Rep != genstore.RepListString || !reflect.DeepEqual(f.Strings(p), m.RepeatedString) {
		t.Errorf("repeated_string: %v %v", f.Rep, f.Strings(p))
	}
	if f := byName("optional_nested_message"); f.Rep != genstore.RepMessage || f.Ptr(p) != pointerOf(mustOf(t, m.OptionalNestedMessage.ProtoReflect().Type()), m.OptionalNestedMessage) {
		t.Errorf("optional_nested_message: %v", f.Rep)
	}
	f := byName("oneof_string")
	w, ok := f.Member(p)
	if !ok || f.Rep != genstore.RepString || f.String(w) != "o" {
		t.Errorf("oneof_string: %v %v", ok, f.Rep)
	}
	if _, ok := byName("oneof_uint32").Member(p); ok {
		t.Error("oneof_uint32 reads as set")
	}
	if _, ok := byName("singular_int32").Member(p); ok {
		t.Error("Member of a field outside oneofs reads as set")
	}
	if _, err := byName("singular_int32").Child(); err == nil {
		t.Error("Child of a scalar field: no error")
	}
	for r := genstore.RepInvalid; r <= genstore.RepCount; r++ {
		if r.String() == "" {
			t.Errorf("Rep(%d) has no name", r)
		}
	}
}

// The maps of descriptorpb's types read a real schema's descriptors.
func TestDescriptorProto(t *testing.T) {
	fdp := descriptorSet()
	compare(t, mustOf(t, fdp.ProtoReflect().Type()), fdp)
}
