package genstore

import (
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/layout"
	"github.com/protolayout/protolayout/internal/weakcache"
)

// Rep is how a field's value is stored in a generated struct: the Go type
// of the struct field (or, for a oneof member, of the wrapper's field). An
// encoder switches on it once per field.
type Rep uint8

// The representations. In place: the value itself, whose zero value is
// unset for implicit presence. Ptr: a pointer, nil when unset. List: a
// slice. Enums are stored as their named int32 types and read as int32.
// A field of an Opaque-API struct whose presence is a bit of XXX_presence
// (Field.PresenceBit >= 0) has the representation of its value (in place,
// or *string) and is set exactly when its bit is set (Field.Present),
// whatever its value.
const (
	RepInvalid Rep = iota

	RepBool    // bool
	RepInt32   // int32, or an enum type with int32 underlying type
	RepInt64   // int64
	RepUint32  // uint32
	RepUint64  // uint64
	RepFloat32 // float32
	RepFloat64 // float64
	RepString  // string
	RepBytes   // []byte without presence (or a oneof member): empty is unset

	RepPtrBool    // *bool
	RepPtrInt32   // *int32 or *EnumType
	RepPtrInt64   // *int64
	RepPtrUint32  // *uint32
	RepPtrUint64  // *uint64
	RepPtrFloat32 // *float32
	RepPtrFloat64 // *float64
	RepPtrString  // *string

	RepBytesPresence // []byte with presence: nil is unset, empty is set
	RepMessage       // *T, for messages and groups: nil is unset

	RepListBool    // []bool
	RepListInt32   // []int32 or []EnumType
	RepListInt64   // []int64
	RepListUint32  // []uint32
	RepListUint64  // []uint64
	RepListFloat32 // []float32
	RepListFloat64 // []float64
	RepListString  // []string
	RepListBytes   // [][]byte
	RepListMessage // []*T

	RepMap // map[K]V; Field.Key and Field.Val give K's and V's representations

	RepPtrListMessage // *[]*T (Opaque API): nil is empty; read with Len and MessageAt

	repCount
)

var repNames = [repCount]string{
	"invalid", "bool", "int32", "int64", "uint32", "uint64", "float32", "float64", "string", "bytes",
	"*bool", "*int32", "*int64", "*uint32", "*uint64", "*float32", "*float64", "*string",
	"bytes with presence", "message",
	"[]bool", "[]int32", "[]int64", "[]uint32", "[]uint64", "[]float32", "[]float64", "[]string", "[][]byte", "[]message",
	"map", "*[]message",
}

// String names the representation.
func (r Rep) String() string {
	if r < repCount {
		return repNames[r]
	}
	return fmt.Sprintf("Rep(%d)", uint8(r))
}

// Storage is the storage map of one generated message type: where and how
// each field of its descriptor is stored in the Go struct, checked against
// the descriptor when the map was built. It is immutable and shared.
type Storage struct {
	// GoType is the message's Go type, a pointer to the generated struct.
	GoType reflect.Type
	// Layout is layout.Of of the message's descriptor.
	Layout *layout.Layout
	// Fields holds a record per field, by position in Layout.Fields.
	Fields []Field
	// Oneofs holds a record per real oneof, by index in Layout.Oneofs.
	Oneofs []Oneof
	// UnknownOffset, ExtensionsOffset and SizeCacheOffset are the offsets
	// in the struct of the unknown fields (protoimpl.UnknownFields), the
	// extension fields (protoimpl.ExtensionFields) and the size cache
	// (protoimpl.SizeCache), or -1 where the struct has none.
	UnknownOffset, ExtensionsOffset, SizeCacheOffset int

	// Opaque is set for an Opaque-API struct (hidden fields, presence
	// bits).
	Opaque bool

	// The struct field indexes of the same, or -1.
	unknownIndex, extensionsIndex int

	// id is GoType's identity, for PointerOf.
	id typeID
}

// Field is the storage record of one field. Its accessors (Int32,
// PtrString, Strings, MessageAt, ...) each read one representation, from
// a non-nil Pointer to the field's holder: the message, or, for a oneof
// member, the wrapper that Member or Oneof.Which returns. Calling the
// accessor of another representation reads the wrong memory in this
// package's unsafe build.
type Field struct {
	// Rep is how the value is stored. For a member of a real oneof it is
	// the representation of the value inside the wrapper (in place, bytes
	// or message), read from the pointer Member or Oneof.Which returns.
	Rep Rep
	// Key and Val are a map field's key and value representations (Key in
	// place: bool, integers or string; Val in place, RepBytes or
	// RepMessage); RepInvalid for other fields.
	Key, Val Rep
	// Offset is the value's offset in the struct, or, for a oneof member,
	// in the wrapper struct.
	Offset uintptr
	// Oneof is the index in Storage.Oneofs of the real oneof holding the
	// field, or -1.
	Oneof int
	// GoType is the Go type of the stored value (the struct field's type,
	// or the wrapper field's type for a oneof member).
	GoType reflect.Type
	// Wrapper is a oneof member's wrapper type (a pointer to a struct of
	// one field); nil for other fields.
	Wrapper reflect.Type
	// Elem is the generated Go type (a pointer to a struct) of the
	// messages the field holds: singular, list elements, map values, oneof
	// member; nil if the field holds no messages.
	Elem reflect.Type
	// Layout is the field's record in Storage.Layout.
	Layout *layout.Field
	// PresenceBit is the index in the struct's XXX_presence bitmap of the
	// bit that says whether the field is set (Opaque API: scalars, strings
	// and bytes with explicit presence), or -1: the field is then set as
	// its representation says.
	PresenceBit int

	// index is the struct field's index in its holder (the message, or
	// the wrapper for a oneof member); pos is the field's position.
	index, pos int
	// presWord is the offset in the struct of the uint32 of XXX_presence
	// holding the field's bit, presMask the bit, presIndex the struct
	// field index of XXX_presence (set with PresenceBit).
	presWord  uintptr
	presMask  uint32
	presIndex int
	// def is the value Get reports for an unset singular scalar: the
	// field's default.
	def protoreflect.Value
	// oneof is the record of the oneof holding the field, or nil.
	oneof *Oneof
	// child caches the storage map of Elem.
	child atomic.Pointer[result]
}

// Oneof is the storage record of one real oneof: an interface field that
// holds a pointer to the set member's wrapper struct, or nil.
type Oneof struct {
	// Offset is the interface field's offset in the struct.
	Offset uintptr
	// GoType is the interface type.
	GoType reflect.Type
	// First and End delimit the oneof's members in Storage.Fields.
	First, End int

	index   int
	members []member
}

// member is one oneof member: its position and wrapper type.
type member struct {
	pos     int
	wrapper reflect.Type
	id      typeID // wrapper's identity, for Which
}

// result is a built storage map or the reason it was refused.
type result struct {
	s   *Storage
	err error
}

// entry is what the cache holds per descriptor: the Go type the map was
// built for, and the map or the refusal.
type entry struct {
	t reflect.Type
	result
}

// cache holds the storage maps by message descriptor identity, released
// with their schema. Entries hold no descriptor: their layouts hold none,
// and errors are plain text.
var cache weakcache.Cache[*entry]

// Of returns the storage map of the generated message type mt, building
// and checking it on first use. It returns an error saying why if mt is
// not a generated type it maps (aberrant, legacy, dynamic, an Opaque type
// with lazily decoded fields) or its struct does not match its
// descriptor.
func Of(mt protoreflect.MessageType) (*Storage, error) {
	if mt == nil {
		return nil, errors.New("genstore: nil message type")
	}
	t, md, err := typeOf(mt)
	if err != nil {
		return nil, err
	}
	return ForType(t, md)
}

// typeOf returns the Go type and descriptor of mt, recovering from a
// panic of a foreign implementation.
func typeOf(mt protoreflect.MessageType) (t reflect.Type, md protoreflect.MessageDescriptor, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("genstore: %T: reading the message type panicked: %v", mt, r)
		}
	}()
	md = mt.Descriptor()
	if md == nil {
		return nil, nil, fmt.Errorf("genstore: %T has no descriptor", mt)
	}
	z := mt.Zero()
	if z == nil {
		return nil, nil, fmt.Errorf("genstore: %s (%T): no zero message", md.FullName(), mt)
	}
	return reflect.TypeOf(z.Interface()), md, nil
}

// ForType returns the storage map of the generated message type t (a
// pointer to a struct) with descriptor md, building and checking it on
// first use. Maps are cached by descriptor identity and released with the
// schema; a map is cached only for t the generated type of md.
func ForType(t reflect.Type, md protoreflect.MessageDescriptor) (*Storage, error) {
	if t == nil || md == nil {
		return nil, errors.New("genstore: nil type or descriptor")
	}
	if e, ok := cache.Load(md); ok && e.t == t {
		return e.s, e.err
	}
	if startupErr != nil {
		return nil, startupErr
	}
	s, cacheable, err := build(t, md)
	if !cacheable {
		return s, err
	}
	e, _ := cache.LoadOrStore(md, &entry{t: t, result: result{s, err}})
	if e.t != t {
		return s, err
	}
	return e.s, e.err
}

// Child returns the storage map of the messages the field holds (Elem),
// built on first use and kept in the field. It returns an error for a
// field that holds no messages, or if that type is refused.
func (f *Field) Child() (*Storage, error) {
	if r := f.child.Load(); r != nil {
		return r.s, r.err
	}
	if f.Elem == nil {
		return nil, fmt.Errorf("genstore: field %s holds no messages", f.Layout.FullName)
	}
	r := &result{}
	if mi, err := messageInfo(f.Elem); err != nil {
		r.err = err
	} else {
		r.s, r.err = ForType(f.Elem, mi.Desc)
	}
	f.child.CompareAndSwap(nil, r)
	return r.s, r.err
}

// setIDs records the identities of the message type and of the oneof
// wrappers, which PointerOf and Which compare.
func (s *Storage) setIDs() {
	s.id = typeIDOf(s.GoType)
	for i := range s.Oneofs {
		for j := range s.Oneofs[i].members {
			m := &s.Oneofs[i].members[j]
			m.id = typeIDOf(m.wrapper)
		}
	}
}
