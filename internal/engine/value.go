package engine

import (
	"fmt"
	"math"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// Scalars are kept in uint64 words: signed integers and enums as their
// two's complement, unsigned integers as themselves, bools as 0 or 1,
// float32 as its 32 bits and float64 as its 64 bits. A word is zero
// exactly when the value counts as unset for implicit presence (-0.0 is
// set, as protoreflect has it).

// toWord returns the word of v, a value for a field of kind k, and
// reports whether v has the Go type that kind takes (int32 for Int32Kind,
// and so on). A v of another category (a string for an integer field)
// panics in protoreflect's accessor; callers panic when ok is false.
func toWord(k protoreflect.Kind, v protoreflect.Value) (w uint64, ok bool) {
	switch k {
	case protoreflect.BoolKind:
		if v.Bool() {
			return 1, true
		}
		return 0, true
	case protoreflect.EnumKind:
		return uint64(int64(v.Enum())), true
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		x := v.Int()
		return uint64(x), v.Equal(protoreflect.ValueOfInt32(int32(x)))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		x := v.Int()
		return uint64(x), v.Equal(protoreflect.ValueOfInt64(x))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		x := v.Uint()
		return x, v.Equal(protoreflect.ValueOfUint32(uint32(x)))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		x := v.Uint()
		return x, v.Equal(protoreflect.ValueOfUint64(x))
	case protoreflect.FloatKind:
		x := float32(v.Float())
		return uint64(math.Float32bits(x)), v.Equal(protoreflect.ValueOfFloat32(x))
	case protoreflect.DoubleKind:
		x := v.Float()
		return math.Float64bits(x), v.Equal(protoreflect.ValueOfFloat64(x))
	}
	return 0, false
}

// fromWord returns the value of kind k kept in w.
func fromWord(k protoreflect.Kind, w uint64) protoreflect.Value {
	switch k {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(w != 0)
	case protoreflect.EnumKind:
		return protoreflect.ValueOfEnum(protoreflect.EnumNumber(int32(w)))
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(int32(w))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(int64(w))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(uint32(w))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(w)
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(math.Float32frombits(uint32(w)))
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(math.Float64frombits(w))
	}
	panic(fmt.Sprintf("dynamic: no scalar of kind %v", k))
}

// isString reports whether v holds a string (String formats any other
// type instead of panicking).
func isString(v protoreflect.Value) bool {
	return v.Equal(protoreflect.ValueOfString(v.String()))
}

// errorf returns the error a panic of this package carries.
func errorf(format string, args ...any) error {
	return fmt.Errorf("dynamic: "+format, args...)
}

// typeName names the Go type of v for a panic message.
func typeName(v protoreflect.Value) string {
	if !v.IsValid() {
		return "invalid value"
	}
	return fmt.Sprintf("%T", v.Interface())
}

// wrongType panics: v cannot be stored in fd.
func wrongType(fd protoreflect.FieldDescriptor, v protoreflect.Value) {
	panic(errorf("%v: assigning invalid type %s", fd.FullName(), typeName(v)))
}

// invalidValue panics: an invalid value cannot be stored in fd.
func invalidValue(fd protoreflect.FieldDescriptor) {
	panic(errorf("%v: assigning invalid value", fd.FullName()))
}

// checkSingular panics unless v is a valid value for one element of fd
// (a singular field, a list's element, a map's key or value field).
func checkSingular(fd protoreflect.FieldDescriptor, v protoreflect.Value) {
	if !v.IsValid() {
		invalidValue(fd)
	}
	switch k := fd.Kind(); k {
	case protoreflect.StringKind:
		if !isString(v) {
			wrongType(fd, v)
		}
	case protoreflect.BytesKind:
		_ = v.Bytes()
	case protoreflect.MessageKind, protoreflect.GroupKind:
		checkMessage(fd, v)
	default:
		if _, ok := toWord(k, v); !ok {
			wrongType(fd, v)
		}
	}
}

// checkMessage panics unless v holds a valid *Message of fd's message
// type, and returns it.
func checkMessage(fd protoreflect.FieldDescriptor, v protoreflect.Value) *Message {
	if !v.IsValid() {
		invalidValue(fd)
	}
	m, ok := v.Message().(*Message)
	if !ok {
		wrongType(fd, v)
	}
	if m.t.desc.FullName() != fd.Message().FullName() {
		panic(errorf("%v: assigning invalid message type %v", fd.FullName(), m.t.desc.FullName()))
	}
	if !m.IsValid() {
		panic(errorf("%v: assigning invalid zero-value message", fd.FullName()))
	}
	return m
}

// newElement returns a new value for one element of fd, as a list's
// NewElement does: the zero value of its kind (the first value of an
// enum), or a new empty message.
func newElement(fd protoreflect.FieldDescriptor) protoreflect.Value {
	switch k := fd.Kind(); k {
	case protoreflect.EnumKind:
		return protoreflect.ValueOfEnum(fd.Enum().Values().Get(0).Number())
	case protoreflect.StringKind:
		return protoreflect.ValueOfString("")
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes(nil)
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return protoreflect.ValueOfMessage(NewMessage(fd.Message()))
	default:
		return fromWord(k, 0)
	}
}
