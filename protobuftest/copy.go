package protobuftest

import (
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/dynamic"
)

// DynamicTwin returns a dynamicpb message of the runtime-loaded test schema
// holding the same content as m, a message of a generated test type (or
// another form of one, such as a [DynamicMessageTwin]). The
// copy goes field by field through protoreflect rather than through the
// wire, so it also carries content proto.Marshal refuses (invalid UTF-8,
// missing required fields). Extensions are carried over by full name into
// their dynamic types; unknown bytes are copied verbatim.
func DynamicTwin(m proto.Message) proto.Message {
	src := m.ProtoReflect()
	mt, err := DynamicTypes().FindMessageByName(src.Descriptor().FullName())
	if err != nil {
		panic("protobuftest: no dynamic twin for " + string(src.Descriptor().FullName()))
	}
	dst := mt.New()
	copyMessage(dst, src, twinExtensionIn(DynamicTypes()))
	return dst.Interface()
}

// DynamicMessageTwin returns a *dynamic.Message (package dynamic's message,
// which proto.Marshal encodes with protolayout's encoder) of the
// runtime-loaded test schema, over the same descriptor as the
// [DynamicTwin], holding the same content as m, a message of a generated
// test type or its dynamicpb twin. The copy goes field by field through
// protoreflect, as DynamicTwin's does; extensions are carried over by full
// name into their types of [DynamicMessageTypes].
func DynamicMessageTwin(m proto.Message) proto.Message {
	src := m.ProtoReflect()
	mt, err := DynamicMessageTypes().FindMessageByName(src.Descriptor().FullName())
	if err != nil {
		panic("protobuftest: no dynamic twin for " + string(src.Descriptor().FullName()))
	}
	dst := mt.New()
	copyMessage(dst, src, twinExtensionIn(DynamicMessageTypes()))
	return dst.Interface()
}

// dynamicCopy returns m copied field by field into a dynamicpb message of
// its own descriptor (extensions too).
func dynamicCopy(m proto.Message) proto.Message {
	mr := m.ProtoReflect()
	if !mr.IsValid() {
		return dynamicpb.NewMessageType(mr.Descriptor()).Zero().Interface()
	}
	dst := dynamicpb.NewMessage(mr.Descriptor())
	copyMessage(dst, mr, dynamicExtension)
	return dst
}

// isDynamicMessage reports whether m is package dynamic's message, whose
// proto.Marshal is protolayout's encoder.
func isDynamicMessage(m proto.Message) bool {
	_, ok := m.(*dynamic.Message)
	return ok
}

// copyMessage copies every set field of src into dst, recursively, making
// every nested message of dst's kind. Fields map by number; extensions
// through ext, which returns the descriptor to set on dst.
func copyMessage(dst, src protoreflect.Message, ext func(protoreflect.FieldDescriptor) protoreflect.FieldDescriptor) {
	if !src.IsValid() {
		return
	}
	src.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		dfd := ext(fd)
		if !fd.IsExtension() {
			dfd = dst.Descriptor().Fields().ByNumber(fd.Number())
		}
		switch {
		case fd.IsList():
			sl, dl := v.List(), dst.Mutable(dfd).List()
			for i := range sl.Len() {
				dl.Append(copyValue(dl.NewElement, dfd, sl.Get(i), ext))
			}
		case fd.IsMap():
			sm, dm := v.Map(), dst.Mutable(dfd).Map()
			sm.Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				dm.Set(k, copyValue(dm.NewValue, dfd.MapValue(), mv, ext))
				return true
			})
		default:
			dst.Set(dfd, copyValue(func() protoreflect.Value { return dst.NewField(dfd) }, dfd, v, ext))
		}
		return true
	})
	if u := src.GetUnknown(); len(u) > 0 {
		dst.SetUnknown(append(protoreflect.RawFields(nil), u...))
	}
}

// copyValue copies a scalar as is (bytes cloned) and a message into a new
// message made by newValue.
func copyValue(newValue func() protoreflect.Value, fd protoreflect.FieldDescriptor, v protoreflect.Value, ext func(protoreflect.FieldDescriptor) protoreflect.FieldDescriptor) protoreflect.Value {
	if fd.Message() == nil {
		if fd.Kind() == protoreflect.BytesKind {
			return protoreflect.ValueOfBytes(append([]byte(nil), v.Bytes()...))
		}
		return v
	}
	nv := newValue()
	copyMessage(nv.Message(), v.Message(), ext)
	return nv
}

// twinExtensionIn returns a function finding the runtime-loaded twin of an
// extension among types.
func twinExtensionIn(types protoregistry.ExtensionTypeResolver) func(protoreflect.FieldDescriptor) protoreflect.FieldDescriptor {
	return func(fd protoreflect.FieldDescriptor) protoreflect.FieldDescriptor {
		if !fd.IsExtension() {
			return nil
		}
		xt, err := types.FindExtensionByName(fd.FullName())
		if err != nil {
			panic("protobuftest: no dynamic twin for extension " + string(fd.FullName()))
		}
		return xt.TypeDescriptor()
	}
}

// dynamicExtension makes a dynamic type for the extension fd, keeping its
// descriptor.
func dynamicExtension(fd protoreflect.FieldDescriptor) protoreflect.FieldDescriptor {
	if !fd.IsExtension() {
		return nil
	}
	return dynamicpb.NewExtensionType(fd).TypeDescriptor()
}
