package protobuftest

import (
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// QuietFloat32NaNs stores every float32 value of m (map values, list
// elements and extensions included, at every depth) back as protoreflect
// reads it, which quiets a signalling NaN: protoreflect holds float32 values
// as float64. After it, protolayout's layout walk and proto.Marshal write
// the same bits; before it, a signalling NaN's quiet bit is the one byte
// difference the walk cannot avoid (the encoder package documents it).
// Fuzz targets decode such NaNs from arbitrary bytes; after this, any
// other difference is a finding.
func QuietFloat32NaNs(m proto.Message) {
	quietMessage(m.ProtoReflect())
}

func quietMessage(m protoreflect.Message) {
	if !m.IsValid() {
		return
	}
	quiet := func(v protoreflect.Value) protoreflect.Value { return protoreflect.ValueOfFloat32(float32(v.Float())) }
	type update struct {
		fd protoreflect.FieldDescriptor
		v  protoreflect.Value
	}
	// Changes are made after Range, never during it.
	var updates []update
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap():
			mp := v.Map()
			var keys []protoreflect.MapKey
			mp.Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool { keys = append(keys, k); return true })
			for _, k := range keys {
				switch {
				case fd.MapValue().Kind() == protoreflect.FloatKind:
					mp.Set(k, quiet(mp.Get(k)))
				case fd.MapValue().Message() != nil:
					quietMessage(mp.Get(k).Message())
				}
			}
		case fd.IsList():
			l := v.List()
			for i := range l.Len() {
				switch {
				case fd.Kind() == protoreflect.FloatKind:
					l.Set(i, quiet(l.Get(i)))
				case fd.Message() != nil:
					quietMessage(l.Get(i).Message())
				}
			}
		case fd.Kind() == protoreflect.FloatKind:
			updates = append(updates, update{fd, quiet(v)})
		case fd.Message() != nil:
			quietMessage(v.Message())
		}
		return true
	})
	for _, u := range updates {
		m.Set(u.fd, u.v)
	}
}
