//go:build !protolayout_purego

package genstore

import (
	"errors"
	"reflect"
	"sync/atomic"
	"unsafe"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/runtime/protoimpl"
	"google.golang.org/protobuf/types/known/structpb"
)

// Pointer points to a generated struct (a message, or a oneof member's
// wrapper); the zero Pointer is nil. In this build it is the struct's
// address.
type Pointer struct{ p unsafe.Pointer }

// IsNil reports whether p is nil.
func (p Pointer) IsNil() bool { return p.p == nil }

// Addr returns the struct's address, to tell two pointers to one struct.
func (p Pointer) Addr() uintptr { return uintptr(p.p) }

// eface is the layout of an empty interface value.
type eface struct{ typ, data unsafe.Pointer }

// oneofIface has the layout of every oneof interface field: an interface
// with methods, two words (the itab, whose dynamic type converting to any
// reads, and the data pointer). Reading a oneof field as this type and
// converting it to any gives the wrapper's type and pointer; the start-up
// check verifies it against reflect.
type oneofIface interface{ genstoreOneof() }

// typeID is a Go type's identity: in this build, the type word of its
// interface values.
type typeID = unsafe.Pointer

// typeIDOf returns the type word of the interface values of type t.
func typeIDOf(t reflect.Type) typeID {
	v := reflect.Zero(t).Interface()
	return (*eface)(unsafe.Pointer(&v)).typ
}

// PointerOf returns a pointer to m's struct, if m is of the map's type
// (ok is false otherwise); a nil message gives a nil Pointer.
func (s *Storage) PointerOf(m protoreflect.ProtoMessage) (p Pointer, ok bool) {
	var a any = m
	e := (*eface)(unsafe.Pointer(&a))
	if e.typ != s.id {
		return Pointer{}, false
	}
	return Pointer{e.data}, true
}

// messageAt returns p as a message of type t (a pointer to a struct).
func messageAt(t reflect.Type, p Pointer) protoreflect.ProtoMessage {
	return reflect.NewAt(t.Elem(), p.p).Interface().(protoreflect.ProtoMessage)
}

// at returns the address of f's value in p.
func (f *Field) at(p Pointer) unsafe.Pointer { return unsafe.Add(p.p, f.Offset) }

// Bool reads a RepBool field.
func (f *Field) Bool(p Pointer) bool { return *(*bool)(f.at(p)) }

// Int32 reads a RepInt32 field (enums included).
func (f *Field) Int32(p Pointer) int32 { return *(*int32)(f.at(p)) }

// Int64 reads a RepInt64 field.
func (f *Field) Int64(p Pointer) int64 { return *(*int64)(f.at(p)) }

// Uint32 reads a RepUint32 field.
func (f *Field) Uint32(p Pointer) uint32 { return *(*uint32)(f.at(p)) }

// Uint64 reads a RepUint64 field.
func (f *Field) Uint64(p Pointer) uint64 { return *(*uint64)(f.at(p)) }

// Float32 reads a RepFloat32 field.
func (f *Field) Float32(p Pointer) float32 { return *(*float32)(f.at(p)) }

// Float64 reads a RepFloat64 field.
func (f *Field) Float64(p Pointer) float64 { return *(*float64)(f.at(p)) }

// String reads a RepString field.
func (f *Field) String(p Pointer) string { return *(*string)(f.at(p)) }

// Bytes reads a RepBytes or RepBytesPresence field.
func (f *Field) Bytes(p Pointer) []byte { return *(*[]byte)(f.at(p)) }

// Ptr reads a RepMessage field (the message's struct) or a pointer
// scalar's pointer (the scalar); nil when unset.
func (f *Field) Ptr(p Pointer) Pointer { return Pointer{*(*unsafe.Pointer)(f.at(p))} }

// ptr reads a pointer scalar's target.
func (f *Field) ptr(p Pointer) unsafe.Pointer { return *(*unsafe.Pointer)(f.at(p)) }

// PtrBool reads a RepPtrBool field; ok is false when it is unset.
func (f *Field) PtrBool(p Pointer) (v, ok bool) {
	if q := f.ptr(p); q != nil {
		return *(*bool)(q), true
	}
	return false, false
}

// PtrInt32 reads a RepPtrInt32 field; ok is false when it is unset.
func (f *Field) PtrInt32(p Pointer) (int32, bool) {
	if q := f.ptr(p); q != nil {
		return *(*int32)(q), true
	}
	return 0, false
}

// PtrInt64 reads a RepPtrInt64 field; ok is false when it is unset.
func (f *Field) PtrInt64(p Pointer) (int64, bool) {
	if q := f.ptr(p); q != nil {
		return *(*int64)(q), true
	}
	return 0, false
}

// PtrUint32 reads a RepPtrUint32 field; ok is false when it is unset.
func (f *Field) PtrUint32(p Pointer) (uint32, bool) {
	if q := f.ptr(p); q != nil {
		return *(*uint32)(q), true
	}
	return 0, false
}

// PtrUint64 reads a RepPtrUint64 field; ok is false when it is unset.
func (f *Field) PtrUint64(p Pointer) (uint64, bool) {
	if q := f.ptr(p); q != nil {
		return *(*uint64)(q), true
	}
	return 0, false
}

// PtrFloat32 reads a RepPtrFloat32 field; ok is false when it is unset.
func (f *Field) PtrFloat32(p Pointer) (float32, bool) {
	if q := f.ptr(p); q != nil {
		return *(*float32)(q), true
	}
	return 0, false
}

// PtrFloat64 reads a RepPtrFloat64 field; ok is false when it is unset.
func (f *Field) PtrFloat64(p Pointer) (float64, bool) {
	if q := f.ptr(p); q != nil {
		return *(*float64)(q), true
	}
	return 0, false
}

// PtrString reads a RepPtrString field; ok is false when it is unset.
func (f *Field) PtrString(p Pointer) (string, bool) {
	if q := f.ptr(p); q != nil {
		return *(*string)(q), true
	}
	return "", false
}

// Present reports whether the presence bit of a field with one
// (PresenceBit >= 0) is set in the message at p. The bit is read
// atomically, as protobuf-go reads it.
func (f *Field) Present(p Pointer) bool {
	return atomic.LoadUint32((*uint32)(unsafe.Add(p.p, f.presWord)))&f.presMask != 0
}

// Len returns the length of a list or map field.
func (f *Field) Len(p Pointer) int {
	switch f.Rep {
	case RepMap:
		// A map is one pointer word: nil for the commonest map, an
		// unset one, whose length is read without reflection.
		if *(*unsafe.Pointer)(f.at(p)) == nil {
			return 0
		}
		return f.Map(p).Len()
	case RepPtrListMessage:
		if q := f.ptr(p); q != nil {
			return len(*(*[]unsafe.Pointer)(q))
		}
		return 0
	}
	// Every slice header has the same layout; only its length is read.
	return len(*(*[]byte)(f.at(p)))
}

// SliceLen returns the length of a list field stored as a slice in place
// (RepListBool to RepListMessage).
func (f *Field) SliceLen(p Pointer) int { return len(*(*[]byte)(f.at(p))) }

// MapNil reports whether the RepMap field at p is a nil map (an empty map
// that is not nil reports false).
func (f *Field) MapNil(p Pointer) bool { return *(*unsafe.Pointer)(f.at(p)) == nil }

// Bools reads a RepListBool field.
func (f *Field) Bools(p Pointer) []bool { return *(*[]bool)(f.at(p)) }

// Int32s reads a RepListInt32 field (enum lists included).
func (f *Field) Int32s(p Pointer) []int32 { return *(*[]int32)(f.at(p)) }

// Int64s reads a RepListInt64 field.
func (f *Field) Int64s(p Pointer) []int64 { return *(*[]int64)(f.at(p)) }

// Uint32s reads a RepListUint32 field.
func (f *Field) Uint32s(p Pointer) []uint32 { return *(*[]uint32)(f.at(p)) }

// Uint64s reads a RepListUint64 field.
func (f *Field) Uint64s(p Pointer) []uint64 { return *(*[]uint64)(f.at(p)) }

// Float32s reads a RepListFloat32 field.
func (f *Field) Float32s(p Pointer) []float32 { return *(*[]float32)(f.at(p)) }

// Float64s reads a RepListFloat64 field.
func (f *Field) Float64s(p Pointer) []float64 { return *(*[]float64)(f.at(p)) }

// Strings reads a RepListString field.
func (f *Field) Strings(p Pointer) []string { return *(*[]string)(f.at(p)) }

// BytesList reads a RepListBytes field.
func (f *Field) BytesList(p Pointer) [][]byte { return *(*[][]byte)(f.at(p)) }

// MessageAt returns the i-th element of a RepListMessage or
// RepPtrListMessage field (nil for a nil element); i must be below Len.
func (f *Field) MessageAt(p Pointer, i int) Pointer {
	q := f.at(p)
	if f.Rep == RepPtrListMessage {
		q = *(*unsafe.Pointer)(q)
	}
	return Pointer{(*(*[]unsafe.Pointer)(q))[i]}
}

// Map returns a RepMap field's map.
func (f *Field) Map(p Pointer) reflect.Value {
	return reflect.NewAt(f.GoType, f.at(p)).Elem()
}

// Which returns the position in Storage.Fields of the set member of the
// oneof in the message at p, and a pointer to its wrapper; pos is -1 when
// the oneof is unset (nil, or a nil wrapper pointer) or p is nil.
func (o *Oneof) Which(p Pointer) (pos int, w Pointer) {
	if p.p == nil {
		return -1, Pointer{}
	}
	a := any(*(*oneofIface)(unsafe.Add(p.p, o.Offset)))
	e := (*eface)(unsafe.Pointer(&a))
	if e.typ == nil || e.data == nil {
		return -1, Pointer{}
	}
	for i := range o.members {
		if o.members[i].id == e.typ {
			return o.members[i].pos, Pointer{e.data}
		}
	}
	return -1, Pointer{}
}

// Unknown returns the message's unknown fields; nil if the struct has
// none or p is nil.
func (s *Storage) Unknown(p Pointer) []byte {
	if s.UnknownOffset < 0 || p.IsNil() {
		return nil
	}
	return *(*[]byte)(unsafe.Add(p.p, s.UnknownOffset))
}

// ExtensionsLen returns the number of extensions stored in the message
// (set or not, as protoimpl keeps them); 0 if the struct has none or p
// is nil.
func (s *Storage) ExtensionsLen(p Pointer) int {
	if s.ExtensionsOffset < 0 || p.IsNil() {
		return 0
	}
	return len(*(*protoimpl.ExtensionFields)(unsafe.Add(p.p, s.ExtensionsOffset)))
}

// Extensions returns the message's extension fields: the map protoimpl
// keeps in the struct, by field number, whose entries Type and Value
// read (Value decodes a lazily decoded extension). An entry may hold an
// empty list, which protoreflect does not count as set. nil if the
// struct has none or p is nil. In this build the map is the message's
// own: read it, never write it.
func (s *Storage) Extensions(p Pointer) protoimpl.ExtensionFields {
	if s.ExtensionsOffset < 0 || p.IsNil() {
		return nil
	}
	return *(*protoimpl.ExtensionFields)(unsafe.Add(p.p, s.ExtensionsOffset))
}

// startupErr is why direct reads are off, or nil: the interface
// conversion Which relies on must read a real oneof as reflect does.
var startupErr = checkStartup()

func checkStartup() error {
	v := &structpb.Value{Kind: &structpb.Value_NumberValue{NumberValue: 2.5}}
	t := reflect.TypeFor[structpb.Value]()
	sf, ok := t.FieldByName("Kind")
	if !ok {
		return errors.New("genstore: start-up check: structpb.Value has no Kind field")
	}
	a := any(*(*oneofIface)(unsafe.Add(unsafe.Pointer(v), sf.Offset)))
	e := (*eface)(unsafe.Pointer(&a))
	w := reflect.ValueOf(v).Elem().FieldByIndex(sf.Index).Elem()
	if e.typ != typeIDOf(w.Type()) || e.data != w.UnsafePointer() || *(*float64)(e.data) != 2.5 {
		return errors.New("genstore: start-up check: reading a oneof field as an interface does not give its wrapper; direct reads are off")
	}
	return nil
}
