package protobuftest

import (
	"math"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// QuietFloat32NaNs rewrites every float field of m (recursively, lists and
// map values included) that holds a NaN through protoreflect, which stores
// float32 values as float64 and so quiets signalling NaNs. After it,
// protolayout's layout walk and proto.Marshal write the same bits: the
// walk reads through protoreflect and cannot see a signalling NaN's
// payload, the one byte difference it cannot avoid (the encoder package
// documents it). It reports whether anything was rewritten.
func QuietFloat32NaNs(m proto.Message) bool {
	return quietMessage(m.ProtoReflect())
}

func quietMessage(m protoreflect.Message) bool {
	if !m.IsValid() {
		return false
	}
	changed := false
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList():
			l := v.List()
			for i := range l.Len() {
				if nv, ok := quietValue(fd, l.Get(i)); ok {
					l.Set(i, nv)
					changed = true
				}
			}
		case fd.IsMap():
			mv := v.Map()
			mv.Range(func(k protoreflect.MapKey, e protoreflect.Value) bool {
				if nv, ok := quietValue(fd.MapValue(), e); ok {
					mv.Set(k, nv)
					changed = true
				}
				return true
			})
		default:
			if nv, ok := quietValue(fd, v); ok {
				m.Set(fd, nv)
				changed = true
			}
		}
		return true
	})
	return changed
}

// quietValue returns the quieted value of a float32 NaN, recursing into
// messages; ok reports a rewrite of v itself.
func quietValue(fd protoreflect.FieldDescriptor, v protoreflect.Value) (protoreflect.Value, bool) {
	switch fd.Kind() {
	case protoreflect.FloatKind:
		if f := v.Float(); math.IsNaN(f) {
			return protoreflect.ValueOfFloat32(float32(f)), true
		}
	case protoreflect.MessageKind, protoreflect.GroupKind:
		quietMessage(v.Message())
	}
	return v, false
}
