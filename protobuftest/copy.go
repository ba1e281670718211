package protobuftest

import (
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// DynamicTwin returns a dynamicpb message of the runtime-loaded test schema
// holding the same content as m, a message of a generated test type. The
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
	copyMessage(dst, src)
	return dst.Interface()
}

func copyMessage(dst, src protoreflect.Message) {
	if !src.IsValid() {
		return
	}
	src.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		dfd := twinField(dst, fd)
		switch {
		case fd.IsList():
			sl, dl := v.List(), dst.Mutable(dfd).List()
			for i := range sl.Len() {
				dl.Append(copyValue(dl.NewElement, dfd, sl.Get(i)))
			}
		case fd.IsMap():
			sm, dm := v.Map(), dst.Mutable(dfd).Map()
			sm.Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				dm.Set(k, copyValue(dm.NewValue, dfd.MapValue(), mv))
				return true
			})
		default:
			dst.Set(dfd, copyValue(func() protoreflect.Value { return dst.NewField(dfd) }, dfd, v))
		}
		return true
	})
	if u := src.GetUnknown(); len(u) > 0 {
		dst.SetUnknown(append(protoreflect.RawFields(nil), u...))
	}
}

// copyValue copies a scalar as is and a message into a new message made by
// newValue.
func copyValue(newValue func() protoreflect.Value, fd protoreflect.FieldDescriptor, v protoreflect.Value) protoreflect.Value {
	if fd.Message() == nil {
		if b, ok := v.Interface().([]byte); ok {
			return protoreflect.ValueOfBytes(append([]byte(nil), b...))
		}
		return v
	}
	nv := newValue()
	copyMessage(nv.Message(), v.Message())
	return nv
}

// twinField finds the field or extension of dst that corresponds to fd.
func twinField(dst protoreflect.Message, fd protoreflect.FieldDescriptor) protoreflect.FieldDescriptor {
	if !fd.IsExtension() {
		return dst.Descriptor().Fields().ByNumber(fd.Number())
	}
	xt, err := DynamicTypes().FindExtensionByName(fd.FullName())
	if err != nil {
		panic("protobuftest: no dynamic twin for extension " + string(fd.FullName()))
	}
	return xt.TypeDescriptor()
}
