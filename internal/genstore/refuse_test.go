//lint:file-ignore U1000 the hand-written structs copy generated ones, whose special fields only protobuf-go reads

package genstore_test

import (
	"reflect"
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/runtime/protoimpl"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/protolayout/protolayout/dynamic"
	"github.com/protolayout/protolayout/internal/genstore"
	"github.com/protolayout/protolayout/protobuftest/gen/test2pb"
	"github.com/protolayout/protolayout/protobuftest/gen/test3pb"
)

// handFile is a schema for hand-written structs: Hand has a field of
// every representation the checks tell apart.
var handFile = sync.OnceValue(func() protoreflect.FileDescriptor {
	opt := func(name string, n int32, typ descriptorpb.FieldDescriptorProto_Type, label descriptorpb.FieldDescriptorProto_Label, typeName string) *descriptorpb.FieldDescriptorProto {
		f := &descriptorpb.FieldDescriptorProto{Name: proto.String(name), Number: proto.Int32(n), Type: typ.Enum(), Label: label.Enum(), JsonName: proto.String(name)}
		if typeName != "" {
			f.TypeName = proto.String(typeName)
		}
		return f
	}
	const (
		optional = descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL
		repeated = descriptorpb.FieldDescriptorProto_LABEL_REPEATED
	)
	y := opt("y", 2, descriptorpb.FieldDescriptorProto_TYPE_STRING, optional, "")
	y.Proto3Optional, y.OneofIndex = proto.Bool(true), proto.Int32(1)
	a := opt("a", 7, descriptorpb.FieldDescriptorProto_TYPE_INT32, optional, "")
	a.OneofIndex = proto.Int32(0)
	fdp := &descriptorpb.FileDescriptorProto{
		Name:       proto.String("genstoretest/hand.proto"),
		Package:    proto.String("genstoretest"),
		Syntax:     proto.String("proto3"),
		Dependency: []string{"google/protobuf/struct.proto"},
		MessageType: []*descriptorpb.DescriptorProto{{
			Name: proto.String("Hand"),
			Field: []*descriptorpb.FieldDescriptorProto{
				opt("x", 1, descriptorpb.FieldDescriptorProto_TYPE_INT32, optional, ""),
				y,
				opt("b", 3, descriptorpb.FieldDescriptorProto_TYPE_BYTES, optional, ""),
				opt("child", 4, descriptorpb.FieldDescriptorProto_TYPE_MESSAGE, optional, ".genstoretest.Hand"),
				opt("r", 5, descriptorpb.FieldDescriptorProto_TYPE_ENUM, repeated, ".google.protobuf.NullValue"),
				opt("mp", 6, descriptorpb.FieldDescriptorProto_TYPE_MESSAGE, repeated, ".genstoretest.Hand.MpEntry"),
				a,
			},
			NestedType: []*descriptorpb.DescriptorProto{{
				Name: proto.String("MpEntry"),
				Field: []*descriptorpb.FieldDescriptorProto{
					opt("key", 1, descriptorpb.FieldDescriptorProto_TYPE_STRING, optional, ""),
					opt("value", 2, descriptorpb.FieldDescriptorProto_TYPE_INT32, optional, ""),
				},
				Options: &descriptorpb.MessageOptions{MapEntry: proto.Bool(true)},
			}},
			OneofDecl: []*descriptorpb.OneofDescriptorProto{{Name: proto.String("o")}, {Name: proto.String("_y")}},
		}, {
			// Lazy has a lazily decoded message field.
			Name: proto.String("Lazy"),
			Field: []*descriptorpb.FieldDescriptorProto{func() *descriptorpb.FieldDescriptorProto {
				f := opt("child", 1, descriptorpb.FieldDescriptorProto_TYPE_MESSAGE, optional, ".genstoretest.Lazy")
				f.Options = &descriptorpb.FieldOptions{Lazy: proto.Bool(true)}
				return f
			}()},
		}},
	}
	fd, err := protodesc.NewFile(fdp, protoregistry.GlobalFiles)
	if err != nil {
		panic(err)
	}
	return fd
})

func handMD() protoreflect.MessageDescriptor { return handFile().Messages().Get(0) }

// infos holds the MessageInfo of each hand-written type, as generated code
// keeps one per message.
var infos sync.Map // reflect.Type -> *protoimpl.MessageInfo

// reflectOf is the hand-written types' ProtoReflect, as generated code
// writes it for a nil message.
func reflectOf(m any) protoreflect.Message {
	mi, ok := infos.Load(reflect.TypeOf(m))
	if !ok {
		panic("no MessageInfo for " + reflect.TypeOf(m).String())
	}
	return mi.(*protoimpl.MessageInfo).MessageOf(m)
}

// register gives the hand-written type of m a MessageInfo describing Hand.
func register(m any, wrappers ...any) reflect.Type {
	return registerFor(m, handMD(), wrappers...)
}

// registerFor gives the hand-written type of m a MessageInfo describing md.
func registerFor(m any, md protoreflect.MessageDescriptor, wrappers ...any) reflect.Type {
	t := reflect.TypeOf(m)
	infos.LoadOrStore(t, &protoimpl.MessageInfo{GoReflectType: t, Desc: md, OneofWrappers: wrappers})
	return t
}

type isHand_O interface{ isHand_O() }

type Hand_A struct {
	A int32 `protobuf:"varint,7,opt,name=a,proto3,oneof"`
}

func (*Hand_A) isHand_O() {}

// Hand_Stray has a oneof wrapper's shape but not the oneof's method.
type Hand_Stray struct {
	A int32 `protobuf:"varint,7,opt,name=a,proto3,oneof"`
}

// hand matches Hand exactly.
type hand struct {
	state         protoimpl.MessageState `protogen:"open.v1"`
	X             int32                  `protobuf:"varint,1,opt,name=x,proto3"`
	Y             *string                `protobuf:"bytes,2,opt,name=y,proto3,oneof"`
	B             []byte                 `protobuf:"bytes,3,opt,name=b,proto3"`
	Child         *hand                  `protobuf:"bytes,4,opt,name=child,proto3"`
	R             []structpb.NullValue   `protobuf:"varint,5,rep,packed,name=r,proto3,enum=google.protobuf.NullValue"`
	Mp            map[string]int32       `protobuf:"bytes,6,rep,name=mp,proto3" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"varint,2,opt,name=value"`
	O             isHand_O               `protobuf_oneof:"o"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (m *hand) ProtoReflect() protoreflect.Message { return reflectOf(m) }

// The variants below each differ from hand in one place.

type handWrongScalar struct {
	state         protoimpl.MessageState
	X             int64                `protobuf:"varint,1,opt,name=x,proto3"`
	Y             *string              `protobuf:"bytes,2,opt,name=y,proto3,oneof"`
	B             []byte               `protobuf:"bytes,3,opt,name=b,proto3"`
	Child         *hand                `protobuf:"bytes,4,opt,name=child,proto3"`
	R             []structpb.NullValue `protobuf:"varint,5,rep,packed,name=r,proto3,enum=google.protobuf.NullValue"`
	Mp            map[string]int32     `protobuf:"bytes,6,rep,name=mp,proto3" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"varint,2,opt,name=value"`
	O             isHand_O             `protobuf_oneof:"o"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (m *handWrongScalar) ProtoReflect() protoreflect.Message { return reflectOf(m) }

type handImplicitPointer struct {
	state         protoimpl.MessageState
	X             *int32               `protobuf:"varint,1,opt,name=x,proto3"`
	Y             *string              `protobuf:"bytes,2,opt,name=y,proto3,oneof"`
	B             []byte               `protobuf:"bytes,3,opt,name=b,proto3"`
	Child         *hand                `protobuf:"bytes,4,opt,name=child,proto3"`
	R             []structpb.NullValue `protobuf:"varint,5,rep,packed,name=r,proto3,enum=google.protobuf.NullValue"`
	Mp            map[string]int32     `protobuf:"bytes,6,rep,name=mp,proto3" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"varint,2,opt,name=value"`
	O             isHand_O             `protobuf_oneof:"o"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (m *handImplicitPointer) ProtoReflect() protoreflect.Message { return reflectOf(m) }

type handExplicitInPlace struct {
	state         protoimpl.MessageState
	X             int32                `protobuf:"varint,1,opt,name=x,proto3"`
	Y             string               `protobuf:"bytes,2,opt,name=y,proto3,oneof"`
	B             []byte               `protobuf:"bytes,3,opt,name=b,proto3"`
	Child         *hand                `protobuf:"bytes,4,opt,name=child,proto3"`
	R             []structpb.NullValue `protobuf:"varint,5,rep,packed,name=r,proto3,enum=google.protobuf.NullValue"`
	Mp            map[string]int32     `protobuf:"bytes,6,rep,name=mp,proto3" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"varint,2,opt,name=value"`
	O             isHand_O             `protobuf_oneof:"o"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (m *handExplicitInPlace) ProtoReflect() protoreflect.Message { return reflectOf(m) }

type handWrongMessage struct {
	state         protoimpl.MessageState
	X             int32                `protobuf:"varint,1,opt,name=x,proto3"`
	Y             *string              `protobuf:"bytes,2,opt,name=y,proto3,oneof"`
	B             []byte               `protobuf:"bytes,3,opt,name=b,proto3"`
	Child         *emptypb.Empty       `protobuf:"bytes,4,opt,name=child,proto3"`
	R             []structpb.NullValue `protobuf:"varint,5,rep,packed,name=r,proto3,enum=google.protobuf.NullValue"`
	Mp            map[string]int32     `protobuf:"bytes,6,rep,name=mp,proto3" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"varint,2,opt,name=value"`
	O             isHand_O             `protobuf_oneof:"o"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (m *handWrongMessage) ProtoReflect() protoreflect.Message { return reflectOf(m) }

type handEnumUnnamed struct {
	state         protoimpl.MessageState
	X             int32            `protobuf:"varint,1,opt,name=x,proto3"`
	Y             *string          `protobuf:"bytes,2,opt,name=y,proto3,oneof"`
	B             []byte           `protobuf:"bytes,3,opt,name=b,proto3"`
	Child         *hand            `protobuf:"bytes,4,opt,name=child,proto3"`
	R             []int32          `protobuf:"varint,5,rep,packed,name=r,proto3,enum=google.protobuf.NullValue"`
	Mp            map[string]int32 `protobuf:"bytes,6,rep,name=mp,proto3" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"varint,2,opt,name=value"`
	O             isHand_O         `protobuf_oneof:"o"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (m *handEnumUnnamed) ProtoReflect() protoreflect.Message { return reflectOf(m) }

type handMapValue struct {
	state         protoimpl.MessageState
	X             int32                `protobuf:"varint,1,opt,name=x,proto3"`
	Y             *string              `protobuf:"bytes,2,opt,name=y,proto3,oneof"`
	B             []byte               `protobuf:"bytes,3,opt,name=b,proto3"`
	Child         *hand                `protobuf:"bytes,4,opt,name=child,proto3"`
	R             []structpb.NullValue `protobuf:"varint,5,rep,packed,name=r,proto3,enum=google.protobuf.NullValue"`
	Mp            map[string]int64     `protobuf:"bytes,6,rep,name=mp,proto3" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"varint,2,opt,name=value"`
	O             isHand_O             `protobuf_oneof:"o"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (m *handMapValue) ProtoReflect() protoreflect.Message { return reflectOf(m) }

type handMissing struct {
	state         protoimpl.MessageState
	X             int32                `protobuf:"varint,1,opt,name=x,proto3"`
	B             []byte               `protobuf:"bytes,3,opt,name=b,proto3"`
	Child         *hand                `protobuf:"bytes,4,opt,name=child,proto3"`
	R             []structpb.NullValue `protobuf:"varint,5,rep,packed,name=r,proto3,enum=google.protobuf.NullValue"`
	Mp            map[string]int32     `protobuf:"bytes,6,rep,name=mp,proto3" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"varint,2,opt,name=value"`
	O             isHand_O             `protobuf_oneof:"o"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (m *handMissing) ProtoReflect() protoreflect.Message { return reflectOf(m) }

type handExtra struct {
	state         protoimpl.MessageState
	X             int32                `protobuf:"varint,1,opt,name=x,proto3"`
	Y             *string              `protobuf:"bytes,2,opt,name=y,proto3,oneof"`
	B             []byte               `protobuf:"bytes,3,opt,name=b,proto3"`
	Child         *hand                `protobuf:"bytes,4,opt,name=child,proto3"`
	R             []structpb.NullValue `protobuf:"varint,5,rep,packed,name=r,proto3,enum=google.protobuf.NullValue"`
	Mp            map[string]int32     `protobuf:"bytes,6,rep,name=mp,proto3" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"varint,2,opt,name=value"`
	Z             int32                `protobuf:"varint,99,opt,name=z,proto3"`
	O             isHand_O             `protobuf_oneof:"o"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (m *handExtra) ProtoReflect() protoreflect.Message { return reflectOf(m) }

type handUntagged struct {
	state         protoimpl.MessageState
	X             int32                `protobuf:"varint,1,opt,name=x,proto3"`
	Y             *string              `protobuf:"bytes,2,opt,name=y,proto3,oneof"`
	B             []byte               `protobuf:"bytes,3,opt,name=b,proto3"`
	Child         *hand                `protobuf:"bytes,4,opt,name=child,proto3"`
	R             []structpb.NullValue `protobuf:"varint,5,rep,packed,name=r,proto3,enum=google.protobuf.NullValue"`
	Mp            map[string]int32     `protobuf:"bytes,6,rep,name=mp,proto3" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"varint,2,opt,name=value"`
	O             isHand_O             `protobuf_oneof:"o"`
	Cache         []byte
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (m *handUntagged) ProtoReflect() protoreflect.Message { return reflectOf(m) }

// handWrappers is hand with its oneof's wrappers given by the caller.
type handWrappers struct {
	state         protoimpl.MessageState
	X             int32                `protobuf:"varint,1,opt,name=x,proto3"`
	Y             *string              `protobuf:"bytes,2,opt,name=y,proto3,oneof"`
	B             []byte               `protobuf:"bytes,3,opt,name=b,proto3"`
	Child         *hand                `protobuf:"bytes,4,opt,name=child,proto3"`
	R             []structpb.NullValue `protobuf:"varint,5,rep,packed,name=r,proto3,enum=google.protobuf.NullValue"`
	Mp            map[string]int32     `protobuf:"bytes,6,rep,name=mp,proto3" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"varint,2,opt,name=value"`
	O             isHand_O             `protobuf_oneof:"o"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (m *handWrappers) ProtoReflect() protoreflect.Message { return reflectOf(m) }

type handStrayWrapper handWrappers

func (m *handStrayWrapper) ProtoReflect() protoreflect.Message { return reflectOf(m) }

type isHandOpaque_O interface{ isHandOpaque_O() }

type HandOpaque_A struct {
	A int32 `protobuf:"varint,7,opt,name=a,proto3,oneof"`
}

func (*HandOpaque_A) isHandOpaque_O() {}

// handOpaque is Hand as protoc-gen-go writes an Opaque struct: hidden
// fields, y's presence in bit 1 of XXX_presence.
type handOpaque struct {
	state                  protoimpl.MessageState `protogen:"opaque.v1"`
	xxx_hidden_X           int32                  `protobuf:"varint,1,opt,name=x,proto3"`
	xxx_hidden_Y           *string                `protobuf:"bytes,2,opt,name=y,proto3,oneof"`
	xxx_hidden_B           []byte                 `protobuf:"bytes,3,opt,name=b,proto3"`
	xxx_hidden_Child       *handOpaque            `protobuf:"bytes,4,opt,name=child,proto3"`
	xxx_hidden_R           []structpb.NullValue   `protobuf:"varint,5,rep,packed,name=r,proto3,enum=google.protobuf.NullValue"`
	xxx_hidden_Mp          map[string]int32       `protobuf:"bytes,6,rep,name=mp,proto3" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"varint,2,opt,name=value"`
	xxx_hidden_O           isHandOpaque_O         `protobuf_oneof:"o"`
	XXX_raceDetectHookData protoimpl.RaceDetectHookData
	XXX_presence           [1]uint32
	unknownFields          protoimpl.UnknownFields
	sizeCache              protoimpl.SizeCache
}

func (m *handOpaque) ProtoReflect() protoreflect.Message { return reflectOf(m) }

// handOpaqueNoPresence lacks XXX_presence.
type handOpaqueNoPresence struct {
	state            protoimpl.MessageState `protogen:"opaque.v1"`
	xxx_hidden_X     int32                  `protobuf:"varint,1,opt,name=x,proto3"`
	xxx_hidden_Y     *string                `protobuf:"bytes,2,opt,name=y,proto3,oneof"`
	xxx_hidden_B     []byte                 `protobuf:"bytes,3,opt,name=b,proto3"`
	xxx_hidden_Child *handOpaque            `protobuf:"bytes,4,opt,name=child,proto3"`
	xxx_hidden_R     []structpb.NullValue   `protobuf:"varint,5,rep,packed,name=r,proto3,enum=google.protobuf.NullValue"`
	xxx_hidden_Mp    map[string]int32       `protobuf:"bytes,6,rep,name=mp,proto3" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"varint,2,opt,name=value"`
	xxx_hidden_O     isHandOpaque_O         `protobuf_oneof:"o"`
	unknownFields    protoimpl.UnknownFields
	sizeCache        protoimpl.SizeCache
}

func (m *handOpaqueNoPresence) ProtoReflect() protoreflect.Message { return reflectOf(m) }

// handLazyInfo has the state of lazily decoded fields.
type handLazyInfo struct {
	state                  protoimpl.MessageState `protogen:"opaque.v1"`
	xxx_hidden_X           int32                  `protobuf:"varint,1,opt,name=x,proto3"`
	XXX_raceDetectHookData protoimpl.RaceDetectHookData
	XXX_presence           [1]uint32
	XXX_lazyUnmarshalInfo  protoimpl.LazyUnmarshalInfo
	unknownFields          protoimpl.UnknownFields
	sizeCache              protoimpl.SizeCache
}

func (m *handLazyInfo) ProtoReflect() protoreflect.Message { return reflectOf(m) }

// handLazy is Lazy, whose child is lazily decoded, as an Opaque struct.
type handLazy struct {
	state                  protoimpl.MessageState `protogen:"opaque.v1"`
	xxx_hidden_Child       *handLazy              `protobuf:"bytes,1,opt,name=child"`
	XXX_raceDetectHookData protoimpl.RaceDetectHookData
	XXX_presence           [1]uint32
	XXX_lazyUnmarshalInfo  protoimpl.LazyUnmarshalInfo
	unknownFields          protoimpl.UnknownFields
	sizeCache              protoimpl.SizeCache
}

func (m *handLazy) ProtoReflect() protoreflect.Message { return reflectOf(m) }

// An Opaque struct that matches its descriptor is mapped, y's presence
// read from its bit.
func TestHandWrittenOpaque(t *testing.T) {
	typ := register((*handOpaque)(nil), (*HandOpaque_A)(nil))
	s, err := genstore.ForType(typ, handMD())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		m    *handOpaque
		want map[string]bool // the set fields
	}{
		{&handOpaque{}, nil},
		{&handOpaque{xxx_hidden_Y: proto.String("y")}, nil}, // no bit: unset
		{&handOpaque{xxx_hidden_X: 4, xxx_hidden_Y: proto.String(""), XXX_presence: [1]uint32{1 << 1}}, map[string]bool{"x": true, "y": true}},
		{&handOpaque{XXX_presence: [1]uint32{1 << 1}}, map[string]bool{"y": true}}, // a bit without a string
		{&handOpaque{xxx_hidden_O: &HandOpaque_A{}, xxx_hidden_R: []structpb.NullValue{}}, map[string]bool{"a": true}},
	} {
		p, ok := s.PointerOf(c.m)
		if !ok {
			t.Fatal("PointerOf refused")
		}
		for pos := range s.Fields {
			f := &s.Fields[pos]
			if (f.Layout.Name == "y") != (f.PresenceBit == 1) {
				t.Errorf("%s: presence bit %d", f.Layout.Name, f.PresenceBit)
			}
			if _, set := s.Get(p, pos); set != c.want[string(f.Layout.Name)] {
				t.Errorf("%+v: %s set = %v", c.m, f.Layout.Name, set)
			}
		}
	}
}

// handPresence has presence bits but no Opaque tag.
type handPresence struct {
	state         protoimpl.MessageState
	X             int32 `protobuf:"varint,1,opt,name=x,proto3"`
	XXX_presence  [1]uint32
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (m *handPresence) ProtoReflect() protoreflect.Message { return reflectOf(m) }

// handPanics has a ProtoReflect that panics.
type handPanics struct {
	state protoimpl.MessageState
}

func (m *handPanics) ProtoReflect() protoreflect.Message { panic("no reflection here") }

// legacyV1 is shaped like a golang/protobuf v1 message.
type legacyV1 struct {
	X                *int32 `protobuf:"varint,1,opt,name=x"`
	XXX_unrecognized []byte
}

func (m *legacyV1) Reset()         { *m = legacyV1{} }
func (m *legacyV1) String() string { return "legacyV1" }
func (*legacyV1) ProtoMessage()    {}

// A hand-written struct that matches its descriptor is mapped: the
// refusals below are each for its one difference.
func TestHandWrittenMatch(t *testing.T) {
	typ := register((*hand)(nil), (*Hand_A)(nil))
	s, err := genstore.ForType(typ, handMD())
	if err != nil {
		t.Fatal(err)
	}
	m := &hand{X: 4, O: &Hand_A{A: 9}, R: []structpb.NullValue{0, 0}}
	p, ok := s.PointerOf(m)
	if !ok {
		t.Fatal("PointerOf refused")
	}
	for pos := range s.Fields {
		v, set := s.Get(p, pos)
		switch s.Fields[pos].Layout.Name {
		case "x":
			if !set || v.Int() != 4 {
				t.Errorf("x = %v, %v", v, set)
			}
		case "a":
			if !set || v.Int() != 9 {
				t.Errorf("a = %v, %v", v, set)
			}
		case "r":
			if !set || v.List().Len() != 2 {
				t.Errorf("r = %v, %v", v, set)
			}
		default:
			if set {
				t.Errorf("%s is set", s.Fields[pos].Layout.Name)
			}
		}
	}
}

func TestRefusals(t *testing.T) {
	md := handMD()
	legacyMT := protoimpl.X.MessageTypeOf(&legacyV1{})
	cases := []struct {
		name string
		t    reflect.Type
		md   protoreflect.MessageDescriptor
		want string
	}{
		{"wrong scalar type", register((*handWrongScalar)(nil), (*Hand_A)(nil)), md, "int32 value stored as int64"},
		{"implicit presence as a pointer", register((*handImplicitPointer)(nil), (*Hand_A)(nil)), md, "stored as *int32"},
		{"explicit presence in place", register((*handExplicitInPlace)(nil), (*Hand_A)(nil)), md, "not a pointer"},
		{"another message's type", register((*handWrongMessage)(nil), (*Hand_A)(nil)), md, "generated type of another message (google.protobuf.Empty)"},
		{"an enum as plain int32", register((*handEnumUnnamed)(nil), (*Hand_A)(nil)), md, "not a named int32 type"},
		{"a map's value type", register((*handMapValue)(nil), (*Hand_A)(nil)), md, "map value"},
		{"a missing field", register((*handMissing)(nil), (*Hand_A)(nil)), md, "no struct field for field y"},
		{"an extra field", register((*handExtra)(nil), (*Hand_A)(nil)), md, "number 99"},
		{"an untagged field", register((*handUntagged)(nil), (*Hand_A)(nil)), md, "field Cache ([]uint8) is not one protoc-gen-go writes"},
		{"no oneof wrappers", register((*handWrappers)(nil)), md, "no wrapper type for member a"},
		{"a stray wrapper", register((*handStrayWrapper)(nil), (*Hand_Stray)(nil)), md, "does not implement"},
		{"Opaque without presence bits", register((*handOpaqueNoPresence)(nil), (*HandOpaque_A)(nil)), md, "without XXX_presence"},
		{"lazy state", register((*handLazyInfo)(nil)), md, "lazily decoded fields"},
		{"a lazy field", registerFor((*handLazy)(nil), handFile().Messages().Get(1)), handFile().Messages().Get(1), "field child is lazily decoded"},
		{"presence bits", register((*handPresence)(nil)), md, "field XXX_presence of the Opaque API in a struct without the Opaque tag"},
		{"a panicking ProtoReflect", reflect.TypeFor[*handPanics](), md, "panicked: no reflection here"},
		{"legacy v1", reflect.TypeFor[*legacyV1](), md, "no ProtoReflect method"},
		{"aberrant wrapper", reflect.TypeOf(protoimpl.X.ProtoMessageV2Of(&legacyV1{})), legacyMT.Descriptor(), "aberrant"},
		{"dynamicpb", reflect.TypeFor[*dynamicpb.Message](), md, "dynamicpb"},
		{"package dynamic", reflect.TypeOf(dynamic.NewMessageType(md).Zero().Interface()), md, "not generated by protoc-gen-go"},
		{"not a pointer", reflect.TypeFor[hand](), md, "not a pointer to a struct"},
		{"a pointer to an int", reflect.TypeFor[*int](), md, "not a pointer to a struct"},
		{"a map", reflect.TypeFor[map[int]int](), md, "not a pointer to a struct"},
		{"another message's descriptor", reflect.TypeFor[*test3pb.TestAllTypes](), (&test2pb.TestAllTypes{}).ProtoReflect().Descriptor(), "another one (protolayout.test3.TestAllTypes)"},
	}
	for _, c := range cases {
		s, err := genstore.ForType(c.t, c.md)
		if err == nil || s != nil {
			t.Errorf("%s: mapped (%v)", c.name, err)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q does not say %q", c.name, err, c.want)
		}
		// Asked again, it says the same.
		if _, again := genstore.ForType(c.t, c.md); again == nil || again.Error() != err.Error() {
			t.Errorf("%s: second error %v", c.name, again)
		}
	}
	for name, mt := range map[string]protoreflect.MessageType{
		"dynamicpb":       dynamicpb.NewMessageType(md),
		"package dynamic": dynamic.NewMessageType(md),
		"legacy v1":       legacyMT,
		"nil":             nil,
	} {
		if s, err := genstore.Of(mt); err == nil || s != nil {
			t.Errorf("Of(%s): mapped", name)
		}
	}
	if _, err := genstore.ForType(nil, md); err == nil {
		t.Error("ForType(nil): no error")
	}
}
