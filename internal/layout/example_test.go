package layout_test

import (
	"fmt"

	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/gofeaturespb"

	"github.com/protolayout/protolayout/internal/layout"
)

// The layout of a message lists its fields in the order proto.Marshal
// writes them, each with its precomputed key.
func ExampleOf() {
	md := (&descriptorpb.FieldOptions{}).ProtoReflect().Descriptor()
	l := layout.Of(md)
	for i := range 4 {
		f := &l.Fields[i]
		fmt.Printf("%d %s % x packed=%v\n", f.Number, f.Name, f.Tag, f.Packed)
	}
	fmt.Println(l.Extendable, layout.Of(md) == l)
	// Output:
	// 1 ctype 08 packed=false
	// 2 packed 10 packed=false
	// 3 deprecated 18 packed=false
	// 5 lazy 28 packed=false
	// true true
}

// Extension records are cached like layouts, by extension descriptor.
func ExampleExtension() {
	f := layout.Extension(gofeaturespb.E_Go.TypeDescriptor())
	fmt.Println(f.FullName, f.Number, f.Extension, f.Kind, f.Message().FullName)
	// Output: pb.go 1002 true message pb.GoFeatures
}
