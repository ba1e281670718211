//go:build !protolayout_purego

package dynstore

import (
	"reflect"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// With the protobuf-go version this module is tested against, the mirror
// matches and direct reads are on. A failure here means a protobuf-go
// release changed dynamicpb's storage: the encoder still works (through
// protoreflect), but the mirror needs updating.
func TestEnabled(t *testing.T) {
	if !Enabled {
		t.Error("the mirror of dynamicpb.Message does not match this protobuf-go; direct reads are off")
	}
}

// shapeMatches refuses every kind of difference a protobuf-go release could
// make to dynamicpb.Message, so that Enabled turns off instead of reading
// the wrong memory.
func TestShapeMismatchDisables(t *testing.T) {
	//lint:ignore U1000 the fields are read through reflection only
	type renamed struct {
		typ     messageType
		fields  map[protoreflect.FieldNumber]protoreflect.Value
		ext     map[protoreflect.FieldNumber]protoreflect.FieldDescriptor
		unknown protoreflect.RawFields
	}
	//lint:ignore U1000 the fields are read through reflection only
	type reordered struct {
		known   map[protoreflect.FieldNumber]protoreflect.Value
		typ     messageType
		ext     map[protoreflect.FieldNumber]protoreflect.FieldDescriptor
		unknown protoreflect.RawFields
	}
	//lint:ignore U1000 the fields are read through reflection only
	type grown struct {
		typ     messageType
		known   map[protoreflect.FieldNumber]protoreflect.Value
		ext     map[protoreflect.FieldNumber]protoreflect.FieldDescriptor
		unknown protoreflect.RawFields
		lazy    *int
	}
	//lint:ignore U1000 the fields are read through reflection only
	type retyped struct {
		typ     messageType
		known   map[protoreflect.FieldNumber]any
		ext     map[protoreflect.FieldNumber]protoreflect.FieldDescriptor
		unknown protoreflect.RawFields
	}
	//lint:ignore U1000 the fields are read through reflection only
	type innerChanged struct {
		typ struct {
			desc protoreflect.MessageDescriptor
			n    int
		}
		known   map[protoreflect.FieldNumber]protoreflect.Value
		ext     map[protoreflect.FieldNumber]protoreflect.FieldDescriptor
		unknown protoreflect.RawFields
	}
	real := reflect.TypeFor[dynamicpb.Message]()
	if !shapeMatches(real, reflect.TypeFor[message]()) {
		t.Fatal("the mirror itself does not match")
	}
	for name, mirror := range map[string]reflect.Type{
		"a field renamed":        reflect.TypeFor[renamed](),
		"fields reordered":       reflect.TypeFor[reordered](),
		"a field added":          reflect.TypeFor[grown](),
		"a field's type changed": reflect.TypeFor[retyped](),
		"an inner struct grown":  reflect.TypeFor[innerChanged](),
		"not a struct":           reflect.TypeFor[int](),
	} {
		if shapeMatches(real, mirror) {
			t.Errorf("%s: shapeMatches accepted it", name)
		}
	}
}
