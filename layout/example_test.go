package layout_test

import (
	"fmt"

	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/gofeaturespb"

	"github.com/protolayout/protolayout/layout"
)

// A layout lists a message's fields in the order proto.Marshal writes
// them, each with its precomputed key.
func ExampleOf() {
	l := layout.Of((&descriptorpb.FieldOptions{}).ProtoReflect().Descriptor())
	for i, f := range l.Fields() {
		if i == 4 {
			break
		}
		fmt.Printf("%d %s % x presence=%v\n", f.Number(), f.Name(), f.Tag(), f.HasPresence())
	}
	fmt.Println(l.FullName(), l.Len(), "fields, extendable:", l.Extendable())
	// Output:
	// 1 ctype 08 presence=true
	// 2 packed 10 presence=true
	// 3 deprecated 18 presence=true
	// 5 lazy 28 presence=true
	// google.protobuf.FieldOptions 14 fields, extendable: true
}

// Oneof members come after the other fields, oneof by oneof.
func ExampleLayout_Oneofs() {
	l := layout.Of((&descriptorpb.UninterpretedOption{}).ProtoReflect().Descriptor())
	fmt.Println(len(l.Oneofs()), l.Regular() == l.Len())
	l = layout.Of((&descriptorpb.FeatureSetDefaults{}).ProtoReflect().Descriptor())
	f, _ := l.ByName("defaults")
	fmt.Println(f.IsList(), f.Message().FullName())
	// Output:
	// 0 true
	// true google.protobuf.FeatureSetDefaults.FeatureSetEditionDefault
}

// Extensions have field records of their own.
func ExampleExtension() {
	f := layout.Extension(gofeaturespb.E_Go.TypeDescriptor())
	fmt.Println(f.FullName(), f.Number(), f.IsExtension(), f.Kind(), f.Message().FullName())
	// Output: pb.go 1002 true message pb.GoFeatures
}
