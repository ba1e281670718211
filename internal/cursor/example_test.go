package cursor_test

import (
	"fmt"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/protolayout/protolayout/internal/cursor"
)

// A walk hands out a message's contents as a flat sequence of items, in
// the order proto.Marshal writes them; map entries come sorted by key.
func ExampleWalker() {
	m, _ := structpb.NewStruct(map[string]any{"b": true, "a": "x"})
	var w cursor.Walker
	w.Reset(m.ProtoReflect(), cursor.Options{})
	defer w.Release()
	for {
		it := w.Next()
		switch it.Kind {
		case cursor.Done:
			return
		case cursor.Entry:
			fmt.Println("entry of", it.Field.Name)
		case cursor.Enter:
			fmt.Println("enter", it.Field.Name)
		case cursor.Exit:
			fmt.Println("exit", it.Field.Name)
		case cursor.Value:
			fmt.Println(it.Field.Name, "=", it.Value)
		}
	}
	// Output:
	// entry of fields
	// key = a
	// enter value
	// string_value = x
	// exit value
	// exit fields
	// entry of fields
	// key = b
	// enter value
	// bool_value = true
	// exit value
	// exit fields
}
