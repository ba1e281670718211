package genstore

// The test oracle: a field's value and set-ness read through the storage
// map's accessors, as protoreflect reports them, which the tests compare
// with protoreflect's. It is compiled into the package for the tests only.

import (
	"math"
	"reflect"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// Get returns the value of the field at position pos in the message at p
// and whether it is set, as protoreflect's Get and Has report them, read
// through the storage map's accessors. An unset singular scalar reports its
// default; an unset message, a nil message of its type. Lists and maps are
// read-only views over the message's storage.
func (s *Storage) Get(p Pointer, pos int) (protoreflect.Value, bool) {
	f := &s.Fields[pos]
	if p.IsNil() {
		return f.unset(), false
	}
	if f.oneof != nil {
		w, ok := f.Member(p)
		if !ok {
			return f.unset(), false
		}
		return f.value(w), true
	}
	if f.PresenceBit >= 0 {
		if !f.Present(p) {
			return f.unset(), false
		}
		if f.Rep == RepPtrString && f.Ptr(p).IsNil() {
			return f.def, true // as protobuf-go reads a set bit without a string
		}
		return f.value(p), true
	}
	switch f.Rep {
	case RepBool, RepInt32, RepInt64, RepUint32, RepUint64, RepFloat32, RepFloat64, RepString, RepBytes:
		v := f.value(p)
		return v, !isZero(v)
	case RepPtrBool, RepPtrInt32, RepPtrInt64, RepPtrUint32, RepPtrUint64, RepPtrFloat32, RepPtrFloat64, RepPtrString:
		if f.Ptr(p).IsNil() {
			return f.unset(), false
		}
		return f.value(p), true
	case RepBytesPresence:
		b := f.Bytes(p)
		if b == nil {
			return f.unset(), false
		}
		return protoreflect.ValueOfBytes(b), true
	case RepMessage:
		q := f.Ptr(p)
		return f.message(q), !q.IsNil()
	case RepMap:
		m := f.Map(p)
		return protoreflect.ValueOfMap(&mapView{f: f, m: m}), m.Len() > 0
	default: // lists
		return protoreflect.ValueOfList(&listView{f: f, p: p}), f.Len(p) > 0
	}
}

// unset returns what Get reports for an unset field.
func (f *Field) unset() protoreflect.Value {
	switch f.Rep {
	case RepMessage:
		return f.message(Pointer{})
	case RepMap:
		return protoreflect.ValueOfMap(&mapView{f: f, m: reflect.Zero(f.GoType)})
	case RepListBool, RepListInt32, RepListInt64, RepListUint32, RepListUint64,
		RepListFloat32, RepListFloat64, RepListString, RepListBytes, RepListMessage, RepPtrListMessage:
		return protoreflect.ValueOfList(&listView{f: f})
	}
	return f.def
}

// message returns q as a message value of the field's message type.
func (f *Field) message(q Pointer) protoreflect.Value {
	if q.IsNil() {
		return protoreflect.ValueOfMessage(reflect.Zero(f.Elem).Interface().(protoreflect.ProtoMessage).ProtoReflect())
	}
	return protoreflect.ValueOfMessage(messageAt(f.Elem, q).ProtoReflect())
}

// value reads a singular value (in place or through a pointer) from the
// holder p: the message, or the wrapper of a oneof member.
func (f *Field) value(p Pointer) protoreflect.Value {
	var v protoreflect.Value
	switch f.Rep {
	case RepBool:
		v = protoreflect.ValueOfBool(f.Bool(p))
	case RepInt32:
		v = protoreflect.ValueOfInt32(f.Int32(p))
	case RepInt64:
		v = protoreflect.ValueOfInt64(f.Int64(p))
	case RepUint32:
		v = protoreflect.ValueOfUint32(f.Uint32(p))
	case RepUint64:
		v = protoreflect.ValueOfUint64(f.Uint64(p))
	case RepFloat32:
		v = protoreflect.ValueOfFloat32(f.Float32(p))
	case RepFloat64:
		v = protoreflect.ValueOfFloat64(f.Float64(p))
	case RepString:
		v = protoreflect.ValueOfString(f.String(p))
	case RepBytes, RepBytesPresence:
		v = protoreflect.ValueOfBytes(f.Bytes(p))
	case RepMessage:
		return f.message(f.Ptr(p))
	case RepPtrBool:
		x, _ := f.PtrBool(p)
		v = protoreflect.ValueOfBool(x)
	case RepPtrInt32:
		x, _ := f.PtrInt32(p)
		v = protoreflect.ValueOfInt32(x)
	case RepPtrInt64:
		x, _ := f.PtrInt64(p)
		v = protoreflect.ValueOfInt64(x)
	case RepPtrUint32:
		x, _ := f.PtrUint32(p)
		v = protoreflect.ValueOfUint32(x)
	case RepPtrUint64:
		x, _ := f.PtrUint64(p)
		v = protoreflect.ValueOfUint64(x)
	case RepPtrFloat32:
		x, _ := f.PtrFloat32(p)
		v = protoreflect.ValueOfFloat32(x)
	case RepPtrFloat64:
		x, _ := f.PtrFloat64(p)
		v = protoreflect.ValueOfFloat64(x)
	case RepPtrString:
		x, _ := f.PtrString(p)
		v = protoreflect.ValueOfString(x)
	}
	return asKind(v, f.Layout.Kind)
}

// asKind turns an int32 read from an enum field into an enum value.
func asKind(v protoreflect.Value, k protoreflect.Kind) protoreflect.Value {
	if k == protoreflect.EnumKind {
		return protoreflect.ValueOfEnum(protoreflect.EnumNumber(v.Int()))
	}
	return v
}

// isZero reports whether an in-place value is its type's zero, which is
// unset for implicit presence; only +0.0 is zero among floats.
func isZero(v protoreflect.Value) bool {
	switch x := v.Interface().(type) {
	case bool:
		return !x
	case int32:
		return x == 0
	case int64:
		return x == 0
	case uint32:
		return x == 0
	case uint64:
		return x == 0
	case float32:
		return math.Float32bits(x) == 0
	case float64:
		return math.Float64bits(x) == 0
	case string:
		return x == ""
	case []byte:
		return len(x) == 0
	case protoreflect.EnumNumber:
		return x == 0
	}
	return false
}

// listView is a read-only protoreflect.List over a list field.
type listView struct {
	f *Field
	p Pointer // nil for an unset field's empty view
}

func (l *listView) Len() int {
	if l.p.IsNil() {
		return 0
	}
	return l.f.Len(l.p)
}

func (l *listView) Get(i int) protoreflect.Value {
	f, p := l.f, l.p
	var v protoreflect.Value
	switch f.Rep {
	case RepListBool:
		v = protoreflect.ValueOfBool(f.Bools(p)[i])
	case RepListInt32:
		v = protoreflect.ValueOfInt32(f.Int32s(p)[i])
	case RepListInt64:
		v = protoreflect.ValueOfInt64(f.Int64s(p)[i])
	case RepListUint32:
		v = protoreflect.ValueOfUint32(f.Uint32s(p)[i])
	case RepListUint64:
		v = protoreflect.ValueOfUint64(f.Uint64s(p)[i])
	case RepListFloat32:
		v = protoreflect.ValueOfFloat32(f.Float32s(p)[i])
	case RepListFloat64:
		v = protoreflect.ValueOfFloat64(f.Float64s(p)[i])
	case RepListString:
		v = protoreflect.ValueOfString(f.Strings(p)[i])
	case RepListBytes:
		v = protoreflect.ValueOfBytes(f.BytesList(p)[i])
	case RepListMessage, RepPtrListMessage:
		return f.message(f.MessageAt(p, i))
	}
	return asKind(v, f.Layout.Kind)
}

func (l *listView) Set(int, protoreflect.Value)       { panic(readOnly) }
func (l *listView) Append(protoreflect.Value)         { panic(readOnly) }
func (l *listView) AppendMutable() protoreflect.Value { panic(readOnly) }
func (l *listView) Truncate(int)                      { panic(readOnly) }
func (l *listView) NewElement() protoreflect.Value    { panic(readOnly) }
func (l *listView) IsValid() bool                     { return !l.p.IsNil() }

// readOnly is the panic of a view's mutating methods.
const readOnly = "genstore: the view is read-only"

// mapView is a read-only protoreflect.Map over a map field's map.
type mapView struct {
	f *Field
	m reflect.Value
}

func (m *mapView) Len() int      { return m.m.Len() }
func (m *mapView) IsValid() bool { return !m.m.IsNil() }

func (m *mapView) Range(yield func(protoreflect.MapKey, protoreflect.Value) bool) {
	it := m.m.MapRange()
	for it.Next() {
		if !yield(m.key(it.Key()), m.val(it.Value())) {
			return
		}
	}
}

func (m *mapView) Has(k protoreflect.MapKey) bool { return m.m.MapIndex(m.goKey(k)).IsValid() }

func (m *mapView) Get(k protoreflect.MapKey) protoreflect.Value {
	v := m.m.MapIndex(m.goKey(k))
	if !v.IsValid() {
		return protoreflect.Value{}
	}
	return m.val(v)
}

func (m *mapView) Clear(protoreflect.MapKey)                      { panic(readOnly) }
func (m *mapView) Set(protoreflect.MapKey, protoreflect.Value)    { panic(readOnly) }
func (m *mapView) Mutable(protoreflect.MapKey) protoreflect.Value { panic(readOnly) }
func (m *mapView) NewValue() protoreflect.Value                   { panic(readOnly) }

// key converts a Go map key to a protoreflect map key.
func (m *mapView) key(k reflect.Value) protoreflect.MapKey {
	var v protoreflect.Value
	switch m.f.Key {
	case RepBool:
		v = protoreflect.ValueOfBool(k.Bool())
	case RepInt32:
		v = protoreflect.ValueOfInt32(int32(k.Int()))
	case RepInt64:
		v = protoreflect.ValueOfInt64(k.Int())
	case RepUint32:
		v = protoreflect.ValueOfUint32(uint32(k.Uint()))
	case RepUint64:
		v = protoreflect.ValueOfUint64(k.Uint())
	case RepString:
		v = protoreflect.ValueOfString(k.String())
	}
	return v.MapKey()
}

// goKey converts a protoreflect map key to a Go map key.
func (m *mapView) goKey(k protoreflect.MapKey) reflect.Value {
	var v any
	switch m.f.Key {
	case RepBool:
		v = k.Bool()
	case RepInt32:
		v = int32(k.Int())
	case RepInt64:
		v = k.Int()
	case RepUint32:
		v = uint32(k.Uint())
	case RepUint64:
		v = k.Uint()
	case RepString:
		v = k.String()
	}
	return reflect.ValueOf(v)
}

// val converts a Go map value to a protoreflect value.
func (m *mapView) val(x reflect.Value) protoreflect.Value {
	var v protoreflect.Value
	switch m.f.Val {
	case RepBool:
		v = protoreflect.ValueOfBool(x.Bool())
	case RepInt32:
		v = protoreflect.ValueOfInt32(int32(x.Int()))
	case RepInt64:
		v = protoreflect.ValueOfInt64(x.Int())
	case RepUint32:
		v = protoreflect.ValueOfUint32(uint32(x.Uint()))
	case RepUint64:
		v = protoreflect.ValueOfUint64(x.Uint())
	case RepFloat32:
		v = protoreflect.ValueOfFloat32(float32(x.Float()))
	case RepFloat64:
		v = protoreflect.ValueOfFloat64(x.Float())
	case RepString:
		v = protoreflect.ValueOfString(x.String())
	case RepBytes:
		v = protoreflect.ValueOfBytes(x.Bytes())
	case RepMessage:
		return protoreflect.ValueOfMessage(x.Interface().(protoreflect.ProtoMessage).ProtoReflect())
	}
	return asKind(v, m.f.Layout.MapValue.Kind)
}

// Member returns a pointer to the wrapper of the oneof member f, if the
// oneof holding it in the message at p is set to f; ok is false for an
// unset member and for a field outside real oneofs. The value is read from
// the wrapper with f's accessors.
func (f *Field) Member(p Pointer) (w Pointer, ok bool) {
	if f.oneof == nil {
		return Pointer{}, false
	}
	pos, w := f.oneof.Which(p)
	if pos != f.pos {
		return Pointer{}, false
	}
	return w, true
}

// Message returns the message p points to, of the map's type.
func (s *Storage) Message(p Pointer) protoreflect.ProtoMessage {
	return messageAt(s.GoType, p)
}
