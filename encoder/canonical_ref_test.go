package encoder_test

import (
	"bytes"
	"cmp"
	"errors"
	"math"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/encoder"
)

// refCanonical is the test oracle of CheckCanonical: a plain recursive
// encoder over protoreflect that writes m under profile p's rules, fields
// and extensions in ascending field number (not proto.Marshal's order),
// map entries sorted by key, unknown fields last. It shares no code with
// the checker or the encoders: only protowire and protoreflect. Under
// Signing it refuses map entries and unknown fields.
func refCanonical(m protoreflect.Message, p encoder.Profile) ([]byte, error) {
	return refMessage(nil, m, p)
}

var errRefProfile = errors.New("the profile refuses the message")

func refMessage(b []byte, m protoreflect.Message, p encoder.Profile) ([]byte, error) {
	type set struct {
		fd protoreflect.FieldDescriptor
		v  protoreflect.Value
	}
	var fields []set
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		fields = append(fields, set{fd, v})
		return true
	})
	slices.SortFunc(fields, func(a, b set) int { return cmp.Compare(a.fd.Number(), b.fd.Number()) })
	var err error
	for _, s := range fields {
		fd, v := s.fd, s.v
		switch {
		case fd.IsMap():
			if p == encoder.Signing {
				return nil, errRefProfile
			}
			b, err = refMap(b, fd, v.Map(), p)
		case fd.IsList():
			b, err = refList(b, fd, v.List(), p)
		default:
			b, err = refField(b, fd, v, p)
		}
		if err != nil {
			return nil, err
		}
	}
	u := m.GetUnknown()
	if len(u) > 0 && p == encoder.Signing {
		return nil, errRefProfile
	}
	return append(b, u...), nil
}

// refPackable reports whether a repeated field of kind k may be packed.
func refPackable(k protoreflect.Kind) bool {
	switch k {
	case protoreflect.StringKind, protoreflect.BytesKind, protoreflect.MessageKind, protoreflect.GroupKind:
		return false
	}
	return true
}

func refList(b []byte, fd protoreflect.FieldDescriptor, l protoreflect.List, p encoder.Profile) ([]byte, error) {
	packed := fd.IsPacked() || p == encoder.Signing && refPackable(fd.Kind())
	if packed {
		var body []byte
		for i := range l.Len() {
			body = refScalar(body, fd.Kind(), l.Get(i))
		}
		b = protowire.AppendTag(b, fd.Number(), protowire.BytesType)
		return protowire.AppendBytes(b, body), nil
	}
	var err error
	for i := range l.Len() {
		if b, err = refField(b, fd, l.Get(i), p); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func refMap(b []byte, fd protoreflect.FieldDescriptor, mp protoreflect.Map, p encoder.Profile) ([]byte, error) {
	var keys []protoreflect.MapKey
	mp.Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool {
		keys = append(keys, k)
		return true
	})
	slices.SortFunc(keys, func(a, b protoreflect.MapKey) int {
		switch fd.MapKey().Kind() {
		case protoreflect.BoolKind:
			return cmp.Compare(b2i(a.Bool()), b2i(b.Bool()))
		case protoreflect.StringKind:
			return cmp.Compare(a.String(), b.String())
		case protoreflect.Uint32Kind, protoreflect.Uint64Kind, protoreflect.Fixed32Kind, protoreflect.Fixed64Kind:
			return cmp.Compare(a.Uint(), b.Uint())
		}
		return cmp.Compare(a.Int(), b.Int())
	})
	for _, k := range keys {
		entry, err := refField(nil, fd.MapKey(), k.Value(), p)
		if err != nil {
			return nil, err
		}
		if entry, err = refField(entry, fd.MapValue(), mp.Get(k), p); err != nil {
			return nil, err
		}
		b = protowire.AppendTag(b, fd.Number(), protowire.BytesType)
		b = protowire.AppendBytes(b, entry)
	}
	return b, nil
}

func b2i(x bool) int {
	if x {
		return 1
	}
	return 0
}

// refField writes one value of fd with its key.
func refField(b []byte, fd protoreflect.FieldDescriptor, v protoreflect.Value, p encoder.Profile) ([]byte, error) {
	switch fd.Kind() {
	case protoreflect.MessageKind:
		body, err := refMessage(nil, v.Message(), p)
		if err != nil {
			return nil, err
		}
		b = protowire.AppendTag(b, fd.Number(), protowire.BytesType)
		return protowire.AppendBytes(b, body), nil
	case protoreflect.GroupKind:
		b = protowire.AppendTag(b, fd.Number(), protowire.StartGroupType)
		b, err := refMessage(b, v.Message(), p)
		if err != nil {
			return nil, err
		}
		return protowire.AppendTag(b, fd.Number(), protowire.EndGroupType), nil
	}
	b = protowire.AppendTag(b, fd.Number(), refWireType(fd.Kind()))
	return refScalar(b, fd.Kind(), v), nil
}

func refWireType(k protoreflect.Kind) protowire.Type {
	switch k {
	case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind, protoreflect.FloatKind:
		return protowire.Fixed32Type
	case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind, protoreflect.DoubleKind:
		return protowire.Fixed64Type
	case protoreflect.StringKind, protoreflect.BytesKind:
		return protowire.BytesType
	}
	return protowire.VarintType
}

// refScalar writes a scalar, string or bytes value without its key.
func refScalar(b []byte, k protoreflect.Kind, v protoreflect.Value) []byte {
	switch k {
	case protoreflect.BoolKind:
		return protowire.AppendVarint(b, protowire.EncodeBool(v.Bool()))
	case protoreflect.EnumKind:
		return protowire.AppendVarint(b, uint64(v.Enum()))
	case protoreflect.Int32Kind, protoreflect.Int64Kind:
		return protowire.AppendVarint(b, uint64(v.Int()))
	case protoreflect.Sint32Kind, protoreflect.Sint64Kind:
		return protowire.AppendVarint(b, protowire.EncodeZigZag(v.Int()))
	case protoreflect.Uint32Kind, protoreflect.Uint64Kind:
		return protowire.AppendVarint(b, v.Uint())
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
	panic("refScalar: kind " + k.String())
}

// onlyQuietedFloat32NaNs reports whether a and b, of equal length, differ
// only where a float32 signalling NaN of a was quieted in b (its quiet
// bit, 0x40 of the third byte, set): what decoding into dynamicpb, which
// holds float32 values as float64, does to such a NaN.
func onlyQuietedFloat32NaNs(a, b []byte) bool {
	if len(a) != len(b) || bytes.Equal(a, b) {
		return false
	}
	for i := range a {
		if a[i] == b[i] {
			continue
		}
		if a[i]^b[i] != 0x40 || b[i]&0xc0 != 0xc0 || i+1 >= len(b) || b[i+1]&0x7f != 0x7f {
			return false
		}
	}
	return true
}
