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
	real := reflect.TypeFor[dynamicpb.Message]()
	mirror := reflect.TypeFor[message]()
	if !shapeMatches(real, mirror) {
		t.Fatal("the mirror itself does not match")
	}
	fields := func() []reflect.StructField {
		out := make([]reflect.StructField, mirror.NumField())
		for i := range out {
			f := mirror.Field(i)
			// StructOf takes exported fields only; shapeMatches compares
			// names, so the variants differ from the real type in case
			// too, which is one more difference it must refuse. The
			// variants below each add one more.
			f.Name = "X" + f.Name
			f.PkgPath = ""
			out[i] = f
		}
		return out
	}
	variants := map[string]func([]reflect.StructField) []reflect.StructField{
		"every field renamed": func(fs []reflect.StructField) []reflect.StructField { return fs },
		"fields reordered": func(fs []reflect.StructField) []reflect.StructField {
			fs[0], fs[1] = fs[1], fs[0]
			return fs
		},
		"a field added": func(fs []reflect.StructField) []reflect.StructField {
			return append(fs, reflect.StructField{Name: "Lazy", Type: reflect.TypeFor[*int]()})
		},
		"a field's type changed": func(fs []reflect.StructField) []reflect.StructField {
			fs[1].Type = reflect.TypeFor[map[protoreflect.FieldNumber]any]()
			return fs
		},
		"a field removed": func(fs []reflect.StructField) []reflect.StructField { return fs[:len(fs)-1] },
	}
	for name, change := range variants {
		if shapeMatches(real, reflect.StructOf(change(fields()))) {
			t.Errorf("%s: shapeMatches accepted it", name)
		}
	}
	// With the names kept, a changed type or an inner struct of another
	// shape is refused too.
	same := func() []reflect.StructField {
		out := make([]reflect.StructField, real.NumField())
		for i := range out {
			out[i] = real.Field(i)
		}
		return out
	}
	sameNames := same()
	sameNames[1].Type = reflect.TypeFor[map[int32]protoreflect.Value]()
	innerGrown := same()
	innerGrown[0].Type = reflect.StructOf([]reflect.StructField{
		{Name: "Desc", Type: reflect.TypeFor[protoreflect.MessageDescriptor]()},
		{Name: "N", Type: reflect.TypeFor[int]()},
	})
	for name, fs := range map[string][]reflect.StructField{"a map's key type changed": sameNames, "the type struct grown": innerGrown} {
		if shapeMatches(real, structOfUnexported(fs)) {
			t.Errorf("%s: shapeMatches accepted it", name)
		}
	}
	if shapeMatches(real, reflect.TypeFor[int]()) {
		t.Error("not a struct: shapeMatches accepted it")
	}
}

// structOfUnexported is reflect.StructOf for fields that may be unexported
// (StructOf panics on those): it exports each name, which keeps the
// offsets, sizes and types that shapeMatches compares after the names.
func structOfUnexported(fs []reflect.StructField) reflect.Type {
	for i := range fs {
		fs[i].PkgPath = ""
		fs[i].Name = "X" + fs[i].Name
	}
	return reflect.StructOf(fs)
}
