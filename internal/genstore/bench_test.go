package genstore_test

import (
	"math"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/protolayout/protolayout/internal/genstore"
	"github.com/protolayout/protolayout/protobuftest/gen/test2pb"
	"github.com/protolayout/protolayout/protobuftest/gen/test3pb"
	"github.com/protolayout/protolayout/protobuftest/gen/testeditionspb"
)

// descriptorSet returns a FileDescriptorSet of descriptor.proto and the
// test schemas: a large message of real descriptors.
func descriptorSet() *descriptorpb.FileDescriptorSet {
	set := &descriptorpb.FileDescriptorSet{}
	for _, fd := range []protoreflect.FileDescriptor{
		descriptorpb.File_google_protobuf_descriptor_proto,
		test2pb.File_protobuftest_proto_test2_proto,
		test3pb.File_protobuftest_proto_test3_proto,
		testeditionspb.File_protobuftest_proto_testeditions_proto,
	} {
		set.File = append(set.File, protodesc.ToFileDescriptorProto(fd))
	}
	return set
}

// walkMap reads every set field of the message at p through its storage
// map, as an encoder would, and returns a checksum of what it read.
func walkMap(s *genstore.Storage, p genstore.Pointer) uint64 {
	var sum uint64
	for pos := range s.Fields {
		f := &s.Fields[pos]
		q := p
		if f.Oneof >= 0 {
			o := &s.Oneofs[f.Oneof]
			if pos != o.First {
				continue
			}
			which, w := o.Which(p)
			if which < 0 {
				continue
			}
			f, q = &s.Fields[which], w
		}
		switch f.Rep {
		case genstore.RepBool:
			if f.Bool(q) {
				sum++
			}
		case genstore.RepInt32:
			sum += uint64(f.Int32(q))
		case genstore.RepInt64:
			sum += uint64(f.Int64(q))
		case genstore.RepUint32:
			sum += uint64(f.Uint32(q))
		case genstore.RepUint64:
			sum += f.Uint64(q)
		case genstore.RepFloat32:
			sum += uint64(math.Float32bits(f.Float32(q)))
		case genstore.RepFloat64:
			sum += math.Float64bits(f.Float64(q))
		case genstore.RepString:
			sum += uint64(len(f.String(q)))
		case genstore.RepBytes, genstore.RepBytesPresence:
			sum += uint64(len(f.Bytes(q)))
		case genstore.RepPtrBool:
			if v, ok := f.PtrBool(q); ok && v {
				sum++
			}
		case genstore.RepPtrInt32:
			v, _ := f.PtrInt32(q)
			sum += uint64(v)
		case genstore.RepPtrInt64:
			v, _ := f.PtrInt64(q)
			sum += uint64(v)
		case genstore.RepPtrUint32:
			v, _ := f.PtrUint32(q)
			sum += uint64(v)
		case genstore.RepPtrUint64:
			v, _ := f.PtrUint64(q)
			sum += v
		case genstore.RepPtrFloat32:
			v, _ := f.PtrFloat32(q)
			sum += uint64(math.Float32bits(v))
		case genstore.RepPtrFloat64:
			v, _ := f.PtrFloat64(q)
			sum += math.Float64bits(v)
		case genstore.RepPtrString:
			v, _ := f.PtrString(q)
			sum += uint64(len(v))
		case genstore.RepMessage:
			if c := f.Ptr(q); !c.IsNil() {
				child, _ := f.Child()
				sum += walkMap(child, c)
			}
		case genstore.RepListInt32:
			for _, v := range f.Int32s(q) {
				sum += uint64(v)
			}
		case genstore.RepListString:
			for _, v := range f.Strings(q) {
				sum += uint64(len(v))
			}
		case genstore.RepListMessage:
			if n := f.Len(q); n > 0 {
				child, _ := f.Child()
				for i := range n {
					sum += walkMap(child, f.MessageAt(q, i))
				}
			}
		default:
			sum += uint64(f.Len(q))
		}
	}
	return sum + uint64(len(s.Unknown(p)))
}

// walkReflect reads the same through protoreflect's Range.
func walkReflect(m protoreflect.Message) uint64 {
	var sum uint64
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap():
			sum += uint64(v.Map().Len())
		case fd.IsList():
			l := v.List()
			for i := range l.Len() {
				sum += scalarSum(fd, l.Get(i))
			}
		default:
			sum += scalarSum(fd, v)
		}
		return true
	})
	return sum + uint64(len(m.GetUnknown()))
}

func scalarSum(fd protoreflect.FieldDescriptor, v protoreflect.Value) uint64 {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return walkReflect(v.Message())
	case protoreflect.BoolKind:
		if v.Bool() {
			return 1
		}
		return 0
	case protoreflect.EnumKind:
		return uint64(v.Enum())
	case protoreflect.StringKind:
		return uint64(len(v.String()))
	case protoreflect.BytesKind:
		return uint64(len(v.Bytes()))
	case protoreflect.FloatKind:
		return uint64(math.Float32bits(float32(v.Float())))
	case protoreflect.DoubleKind:
		return math.Float64bits(v.Float())
	case protoreflect.Uint32Kind, protoreflect.Uint64Kind, protoreflect.Fixed32Kind, protoreflect.Fixed64Kind:
		return v.Uint()
	}
	return uint64(v.Int())
}

// The two walks read the same values.
func TestWalksAgree(t *testing.T) {
	m := descriptorSet()
	s := mustOf(t, m.ProtoReflect().Type())
	p, _ := s.PointerOf(m)
	if a, b := walkMap(s, p), walkReflect(m.ProtoReflect()); a != b || a == 0 {
		t.Errorf("walks differ: %d through the map, %d through protoreflect", a, b)
	}
}

func BenchmarkReadAll(b *testing.B) {
	m := descriptorSet()
	b.Logf("%d bytes encoded", proto.Size(m))
	b.Run("map", func(b *testing.B) {
		b.ReportAllocs()
		s, err := genstore.Of(m.ProtoReflect().Type())
		if err != nil {
			b.Fatal(err)
		}
		p, _ := s.PointerOf(m)
		for b.Loop() {
			walkMap(s, p)
		}
	})
	b.Run("protoreflect", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			walkReflect(m.ProtoReflect())
		}
	})
}
