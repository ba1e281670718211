//go:build protolayout_purego

// Package dynstore would read a dynamicpb message's field storage directly;
// built with the tag protolayout_purego it never does, and callers read
// through protoreflect.
package dynstore

import (
	"reflect"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// Enabled is false: direct reads are compiled out.
const Enabled = false

// Fields always reports ok == false.
func Fields(*dynamicpb.Message) (known map[protoreflect.FieldNumber]protoreflect.Value, ext map[protoreflect.FieldNumber]protoreflect.FieldDescriptor, ok bool) {
	return nil, nil, false
}

// Addr returns p's address, for hashing by identity (a filter in front of
// a map keyed by the message itself); it is never converted back to a
// pointer.
// reflect does not allocate for a pointer.
func Addr[T any](p *T) uintptr {
	return reflect.ValueOf(p).Pointer()
}
