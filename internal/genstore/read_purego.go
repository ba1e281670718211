//go:build protolayout_purego

package genstore

import (
	"reflect"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/runtime/protoimpl"
)

// Pointer points to a generated struct (a message, or a oneof member's
// wrapper); the zero Pointer is nil. In this build it is the addressable
// struct as a reflect.Value, and for a wrapper, the message holding it.
//
// reflect reads the values of an Opaque struct's unexported fields but
// will not make interfaces of them: a message, a map or a float32 read
// from one would need unsafe. Those are read through the message's
// protoreflect Get instead (fromReflect), so that every message Pointer
// is of an exported *T and its struct can be turned into the message.
type Pointer struct{ v, holder reflect.Value }

// IsNil reports whether p is nil.
func (p Pointer) IsNil() bool { return !p.v.IsValid() }

// Addr returns the struct's address, to tell two pointers to one struct.
func (p Pointer) Addr() uintptr {
	if !p.v.IsValid() {
		return 0
	}
	return p.v.Addr().Pointer()
}

// typeID is a Go type's identity: in this build, the type itself.
type typeID = reflect.Type

func typeIDOf(t reflect.Type) typeID { return t }

// startupErr is nil: this build has no unsafe reads to check.
var startupErr error

// pointerTo returns the struct a *T value points to.
func pointerTo(v reflect.Value) Pointer {
	if v.IsNil() {
		return Pointer{}
	}
	return Pointer{v: v.Elem()}
}

// PointerOf returns a pointer to m's struct, if m is of the map's type
// (ok is false otherwise); a nil message gives a nil Pointer.
func (s *Storage) PointerOf(m protoreflect.ProtoMessage) (p Pointer, ok bool) {
	v := reflect.ValueOf(m)
	if !v.IsValid() || v.Type() != s.id {
		return Pointer{}, false
	}
	return pointerTo(v), true
}

// messageAt returns p as a message of type t (a pointer to a struct).
func messageAt(t reflect.Type, p Pointer) protoreflect.ProtoMessage {
	if p.IsNil() {
		return reflect.Zero(t).Interface().(protoreflect.ProtoMessage)
	}
	return p.v.Addr().Interface().(protoreflect.ProtoMessage)
}

// at returns f's value in p.
func (f *Field) at(p Pointer) reflect.Value { return p.v.Field(f.index) }

// Bool reads a RepBool field.
func (f *Field) Bool(p Pointer) bool { return f.at(p).Bool() }

// Int32 reads a RepInt32 field (enums included).
func (f *Field) Int32(p Pointer) int32 { return int32(f.at(p).Int()) }

// Int64 reads a RepInt64 field.
func (f *Field) Int64(p Pointer) int64 { return f.at(p).Int() }

// Uint32 reads a RepUint32 field.
func (f *Field) Uint32(p Pointer) uint32 { return uint32(f.at(p).Uint()) }

// Uint64 reads a RepUint64 field.
func (f *Field) Uint64(p Pointer) uint64 { return f.at(p).Uint() }

// Float32 reads a RepFloat32 field.
// It reads the float32 itself, not reflect's float64 of it, whose
// conversion would quiet a signalling NaN; an unexported field (Opaque)
// has no other reading in this build.
func (f *Field) Float32(p Pointer) float32 {
	v := f.at(p)
	if !v.CanInterface() {
		return float32(v.Float())
	}
	return *v.Addr().Interface().(*float32)
}

// Float64 reads a RepFloat64 field.
func (f *Field) Float64(p Pointer) float64 { return f.at(p).Float() }

// String reads a RepString field.
func (f *Field) String(p Pointer) string { return f.at(p).String() }

// Bytes reads a RepBytes or RepBytesPresence field.
func (f *Field) Bytes(p Pointer) []byte { return f.at(p).Bytes() }

// Ptr reads a RepMessage field (the message's struct) or a pointer
// scalar's pointer (the scalar); nil when unset.
func (f *Field) Ptr(p Pointer) Pointer {
	v := f.at(p)
	if f.Rep == RepMessage && !v.CanInterface() && !v.IsNil() {
		return pointerTo(reflect.ValueOf(f.fromReflect(p).Message().Interface()))
	}
	return pointerTo(v)
}

// fromReflect returns the value of the field through the protoreflect
// Get of the message holding it, for what reflect cannot read from an
// unexported field.
func (f *Field) fromReflect(p Pointer) protoreflect.Value {
	h := p.holder
	if !h.IsValid() {
		h = p.v
	}
	m := h.Addr().Interface().(protoreflect.ProtoMessage).ProtoReflect()
	return m.Get(m.Descriptor().Fields().ByNumber(f.Layout.Number))
}

// Present reports whether the presence bit of a field with one
// (PresenceBit >= 0) is set in the message at p. In this build the bit
// is read plainly: reflect has no atomic load.
func (f *Field) Present(p Pointer) bool {
	return p.v.Field(f.presIndex).Index(f.PresenceBit/32).Uint()&uint64(f.presMask) != 0
}

// PtrBool reads a RepPtrBool field; ok is false when it is unset.
func (f *Field) PtrBool(p Pointer) (v, ok bool) {
	if q := f.at(p); !q.IsNil() {
		return q.Elem().Bool(), true
	}
	return false, false
}

// PtrInt32 reads a RepPtrInt32 field; ok is false when it is unset.
func (f *Field) PtrInt32(p Pointer) (int32, bool) {
	if q := f.at(p); !q.IsNil() {
		return int32(q.Elem().Int()), true
	}
	return 0, false
}

// PtrInt64 reads a RepPtrInt64 field; ok is false when it is unset.
func (f *Field) PtrInt64(p Pointer) (int64, bool) {
	if q := f.at(p); !q.IsNil() {
		return q.Elem().Int(), true
	}
	return 0, false
}

// PtrUint32 reads a RepPtrUint32 field; ok is false when it is unset.
func (f *Field) PtrUint32(p Pointer) (uint32, bool) {
	if q := f.at(p); !q.IsNil() {
		return uint32(q.Elem().Uint()), true
	}
	return 0, false
}

// PtrUint64 reads a RepPtrUint64 field; ok is false when it is unset.
func (f *Field) PtrUint64(p Pointer) (uint64, bool) {
	if q := f.at(p); !q.IsNil() {
		return q.Elem().Uint(), true
	}
	return 0, false
}

// PtrFloat32 reads a RepPtrFloat32 field; ok is false when it is unset.
func (f *Field) PtrFloat32(p Pointer) (float32, bool) {
	if q := f.at(p); !q.IsNil() {
		return *q.Interface().(*float32), true
	}
	return 0, false
}

// PtrFloat64 reads a RepPtrFloat64 field; ok is false when it is unset.
func (f *Field) PtrFloat64(p Pointer) (float64, bool) {
	if q := f.at(p); !q.IsNil() {
		return q.Elem().Float(), true
	}
	return 0, false
}

// PtrString reads a RepPtrString field; ok is false when it is unset.
func (f *Field) PtrString(p Pointer) (string, bool) {
	if q := f.at(p); !q.IsNil() {
		return q.Elem().String(), true
	}
	return "", false
}

// SliceLen returns the length of a list field stored as a slice in place
// (RepListBool to RepListMessage).
func (f *Field) SliceLen(p Pointer) int { return f.at(p).Len() }

// MapNil reports whether the RepMap field at p is a nil map (an empty map
// that is not nil reports false).
func (f *Field) MapNil(p Pointer) bool { return f.at(p).IsNil() }

// Len returns the length of a list or map field.
func (f *Field) Len(p Pointer) int {
	v := f.at(p)
	if f.Rep == RepPtrListMessage {
		if v.IsNil() {
			return 0
		}
		v = v.Elem()
	}
	return v.Len()
}

// slice returns a list field as its own slice type S when its Go type is
// S, else as a copy converted element by element with conv.
func slice[S ~[]E, E any](f *Field, p Pointer, conv func(reflect.Value) E) S {
	v := f.at(p)
	if v.CanInterface() {
		if s, ok := v.Addr().Interface().(*S); ok {
			return *s
		}
	}
	if v.IsNil() {
		return nil
	}
	out := make(S, v.Len())
	for i := range out {
		out[i] = conv(v.Index(i))
	}
	return out
}

// Bools reads a RepListBool field.
func (f *Field) Bools(p Pointer) []bool {
	return slice[[]bool](f, p, reflect.Value.Bool)
}

// Int32s reads a RepListInt32 field (enum lists included: those are
// copied in this build).
func (f *Field) Int32s(p Pointer) []int32 {
	return slice[[]int32](f, p, func(v reflect.Value) int32 { return int32(v.Int()) })
}

// Int64s reads a RepListInt64 field.
func (f *Field) Int64s(p Pointer) []int64 {
	return slice[[]int64](f, p, reflect.Value.Int)
}

// Uint32s reads a RepListUint32 field.
func (f *Field) Uint32s(p Pointer) []uint32 {
	return slice[[]uint32](f, p, func(v reflect.Value) uint32 { return uint32(v.Uint()) })
}

// Uint64s reads a RepListUint64 field.
func (f *Field) Uint64s(p Pointer) []uint64 {
	return slice[[]uint64](f, p, reflect.Value.Uint)
}

// Float32s reads a RepListFloat32 field (an unexported one is copied,
// through float64).
func (f *Field) Float32s(p Pointer) []float32 {
	return slice[[]float32](f, p, func(v reflect.Value) float32 { return float32(v.Float()) })
}

// Float64s reads a RepListFloat64 field.
func (f *Field) Float64s(p Pointer) []float64 {
	return slice[[]float64](f, p, reflect.Value.Float)
}

// Strings reads a RepListString field.
func (f *Field) Strings(p Pointer) []string {
	return slice[[]string](f, p, reflect.Value.String)
}

// BytesList reads a RepListBytes field.
func (f *Field) BytesList(p Pointer) [][]byte {
	return slice[[][]byte](f, p, reflect.Value.Bytes)
}

// MessageAt returns the i-th element of a RepListMessage or
// RepPtrListMessage field (nil for a nil element); i must be below Len.
func (f *Field) MessageAt(p Pointer, i int) Pointer {
	v := f.at(p)
	if f.Rep == RepPtrListMessage {
		v = v.Elem()
	}
	if e := v.Index(i); e.CanInterface() || e.IsNil() {
		return pointerTo(e)
	}
	return pointerTo(reflect.ValueOf(f.fromReflect(p).List().Get(i).Message().Interface()))
}

// Map returns a RepMap field's map. The map of an unexported field is a
// copy, built through protoreflect, nil if empty.
func (f *Field) Map(p Pointer) reflect.Value {
	v := f.at(p)
	if v.CanInterface() {
		return v
	}
	pm := f.fromReflect(p).Map()
	if pm.Len() == 0 {
		return reflect.Zero(f.GoType)
	}
	out := reflect.MakeMapWithSize(f.GoType, pm.Len())
	kt, vt := f.GoType.Key(), f.GoType.Elem()
	pm.Range(func(k protoreflect.MapKey, x protoreflect.Value) bool {
		out.SetMapIndex(goValue(k.Value(), kt), goValue(x, vt))
		return true
	})
	return out
}

// goValue converts a protoreflect value to a Go value of type t.
func goValue(v protoreflect.Value, t reflect.Type) reflect.Value {
	if m, ok := v.Interface().(protoreflect.Message); ok {
		return reflect.ValueOf(m.Interface())
	}
	return reflect.ValueOf(v.Interface()).Convert(t)
}

// Which returns the position in Storage.Fields of the set member of the
// oneof in the message at p, and a pointer to its wrapper; pos is -1 when
// the oneof is unset (nil, or a nil wrapper pointer) or p is nil.
func (o *Oneof) Which(p Pointer) (pos int, w Pointer) {
	if p.IsNil() {
		return -1, Pointer{}
	}
	iv := p.v.Field(o.index)
	if iv.IsNil() {
		return -1, Pointer{}
	}
	wv := iv.Elem()
	if wv.IsNil() {
		return -1, Pointer{}
	}
	t := wv.Type()
	for i := range o.members {
		if o.members[i].id == t {
			return o.members[i].pos, Pointer{v: wv.Elem(), holder: p.v}
		}
	}
	return -1, Pointer{}
}

// Unknown returns the message's unknown fields; nil if the struct has
// none or p is nil.
func (s *Storage) Unknown(p Pointer) []byte {
	if s.unknownIndex < 0 || p.IsNil() {
		return nil
	}
	return p.v.Field(s.unknownIndex).Bytes()
}

// ExtensionsLen returns the number of extensions stored in the message
// (set or not, as protoimpl keeps them); 0 if the struct has none or p
// is nil.
func (s *Storage) ExtensionsLen(p Pointer) int {
	if s.extensionsIndex < 0 || p.IsNil() {
		return 0
	}
	return p.v.Field(s.extensionsIndex).Len()
}

// Extensions returns the message's extension fields, by field number,
// whose entries Type and Value read; nil if the struct has none or p is
// nil. reflect cannot read the unexported map as a value without unsafe,
// so in this build the map is a new one, built through the message's
// protoreflect Range: it holds the set extensions only (no empty list),
// lazily decoded ones decoded, and writing it changes nothing.
func (s *Storage) Extensions(p Pointer) protoimpl.ExtensionFields {
	if s.extensionsIndex < 0 || p.IsNil() || p.v.Field(s.extensionsIndex).Len() == 0 {
		return nil
	}
	var out protoimpl.ExtensionFields
	messageAt(s.GoType, p).ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if xd, ok := fd.(protoreflect.ExtensionTypeDescriptor); ok {
			if out == nil {
				out = make(protoimpl.ExtensionFields)
			}
			var x protoimpl.ExtensionFieldV1
			x.Set(xd.Type(), v)
			out[int32(xd.Number())] = x
		}
		return true
	})
	return out
}
