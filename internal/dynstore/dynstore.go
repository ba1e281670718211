//go:build !protolayout_purego

// Package dynstore reads a dynamicpb message's field storage directly,
// without going through protoreflect's per-field interface calls.
//
// dynamicpb keeps a message's fields in a Go map from field number to
// protoreflect.Value, plus a map of the extension descriptors in use.
// Reading that map directly costs one map iteration; reading it through
// Range adds, per field, a descriptor lookup by number and half a dozen
// interface calls to decide whether the value counts as set. The encoder
// decides that from its own layout instead.
//
// It uses package unsafe (as internal/weakcache does, only to read an
// interface's two words; this package is the one that mirrors another
// library's internals, and the one the purego tag turns off). It mirrors
// the unexported layout of dynamicpb.Message and checks, once at start-up,
// that the mirror matches the real type field by field (names, types,
// offsets, size) and that a message built through the public API reads
// back identically. If anything differs, Enabled is false and callers use
// protoreflect. Building with the tag protolayout_purego leaves this file
// out and always disables direct reads.
package dynstore

import (
	"reflect"
	"unsafe"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// message mirrors dynamicpb.Message.
type message struct {
	typ     messageType
	known   map[protoreflect.FieldNumber]protoreflect.Value
	ext     map[protoreflect.FieldNumber]protoreflect.FieldDescriptor
	unknown protoreflect.RawFields
}

// messageType mirrors dynamicpb's messageType.
type messageType struct {
	desc protoreflect.MessageDescriptor
}

// Enabled reports whether direct reads are available: the mirror matched
// dynamicpb's storage at start-up.
var Enabled = check()

// Fields returns m's stored values by field number and the extension
// descriptors by number (an entry of known whose number is in ext is that
// extension's value). Stored values may be unset in protoreflect's sense
// (an empty list, an implicit-presence zero): callers decide. ok is false
// when direct reads are disabled.
func Fields(m *dynamicpb.Message) (known map[protoreflect.FieldNumber]protoreflect.Value, ext map[protoreflect.FieldNumber]protoreflect.FieldDescriptor, ok bool) {
	if !Enabled || m == nil {
		return nil, nil, false
	}
	p := (*message)(unsafe.Pointer(m))
	return p.known, p.ext, true
}

// check verifies that message mirrors dynamicpb.Message.
func check() bool {
	return shapeMatches(reflect.TypeFor[dynamicpb.Message](), reflect.TypeFor[message]()) && readsBack()
}

// shapeMatches compares two struct types field by field: names, offsets,
// and types (identical for exported types, recursively for unexported
// structs), and their sizes.
func shapeMatches(real, mirror reflect.Type) bool {
	if real.Kind() != reflect.Struct || mirror.Kind() != reflect.Struct ||
		real.Size() != mirror.Size() || real.NumField() != mirror.NumField() {
		return false
	}
	for i := range real.NumField() {
		rf, mf := real.Field(i), mirror.Field(i)
		if rf.Name != mf.Name || rf.Offset != mf.Offset {
			return false
		}
		if rf.Type == mf.Type {
			continue
		}
		// Unexported named types differ by package; compare their shape.
		if rf.Type.Kind() != reflect.Struct || !shapeMatches(rf.Type, mf.Type) {
			return false
		}
	}
	return true
}

// readsBack builds a message through the public API and checks that the
// mirror sees exactly its fields.
func readsBack() (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	md := (&descriptorpb.FieldDescriptorProto{}).ProtoReflect().Descriptor()
	name, number := md.Fields().ByName("name"), md.Fields().ByName("number")
	m := dynamicpb.NewMessage(md)
	m.Set(name, protoreflect.ValueOfString("probe"))
	m.Set(number, protoreflect.ValueOfInt32(7))
	m.SetUnknown(protoreflect.RawFields{0xf8, 0x7f, 0x01})
	p := (*message)(unsafe.Pointer(m))
	if p.typ.desc != md || len(p.known) != 2 || len(p.unknown) != 3 || len(p.ext) != 0 {
		return false
	}
	if p.known[name.Number()].String() != "probe" || p.known[number.Number()].Int() != 7 {
		return false
	}
	m.Clear(number)
	_, still := p.known[number.Number()]
	return !still && len(p.known) == 1
}

// Addr returns p's address, for hashing by identity (a filter in front of
// a map keyed by the message itself); it is never converted back to a
// pointer.
func Addr[T any](p *T) uintptr {
	return uintptr(unsafe.Pointer(p))
}
