package cursor_test

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/protolayout/protolayout/cursor"
)

// A walk hands out a message as a flat sequence of items, in the order
// proto.Marshal writes it; nesting is Enter ... Exit, without recursion.
func ExampleWalker() {
	m := &descriptorpb.DescriptorProto{
		Name: proto.String("Span"),
		Field: []*descriptorpb.FieldDescriptorProto{
			{Name: proto.String("id"), Number: proto.Int32(1)},
			{Name: proto.String("name"), Number: proto.Int32(2)},
		},
		ReservedName: []string{"old"},
	}
	var w cursor.Walker
	w.Reset(m.ProtoReflect(), cursor.Options{Deterministic: true})
	defer w.Release()
	for {
		it := w.Next()
		indent := strings.Repeat("  ", w.Depth())
		switch it.Kind {
		case cursor.Value:
			fmt.Printf("%s%s = %v\n", indent, it.Field.Name(), it.Value)
		case cursor.Enter:
			fmt.Printf("%s%s {\n", indent[2:], it.Field.Name())
		case cursor.Exit:
			fmt.Printf("%s}\n", indent)
		case cursor.Failed:
			fmt.Println(it.Err)
			return
		case cursor.Done:
			return
		}
	}
	// Output:
	// name = Span
	// field {
	//   name = id
	//   number = 1
	// }
	// field {
	//   name = name
	//   number = 2
	// }
	// reserved_name = old
}
