package sizing_test

import (
	"fmt"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/protolayout/protolayout/cursor"
	"github.com/protolayout/protolayout/sizing"
)

// The size pass returns the total and records the size of every
// length-prefixed part in traversal order, for the write pass.
func ExampleSizer() {
	m, _ := structpb.NewList([]any{"ab", 1.0})
	var (
		s sizing.Sizer
		w cursor.Walker
	)
	n, fault, _ := s.Size(&w, m.ProtoReflect(), sizing.Options{ValidateUTF8: true})
	fmt.Println(n, fault == cursor.OK)
	for _, slot := range s.Slots {
		fmt.Print(slot.Size, " ")
	}
	fmt.Println()
	w.Release()
	s.Release()
	// Output:
	// 17 true
	// 4 9
}
