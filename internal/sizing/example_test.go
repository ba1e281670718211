package sizing_test

import (
	"fmt"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/protolayout/protolayout/internal/cursor"
	"github.com/protolayout/protolayout/internal/fault"
	"github.com/protolayout/protolayout/internal/sizing"
)

// The size pass returns the total and records the tape the write pass
// replays: each value, and the size of every length-prefixed part (which
// ends once that many bytes of its body are written).
func ExampleSizer() {
	m, _ := structpb.NewList([]any{"ab", 1.0})
	var (
		s sizing.Sizer
		w cursor.Walker
	)
	n, code, _ := s.Size(&w, m.ProtoReflect(), sizing.Options{ValidateUTF8: true, Record: true})
	fmt.Println(n, code == fault.OK)
	for _, op := range s.Tape {
		switch op.Kind {
		case sizing.OpEnter:
			fmt.Printf("enter %s (%d bytes)\n", op.Field.Name, op.Size)
		case sizing.OpValue:
			fmt.Printf("value %s = %v\n", op.Field.Name, op.Value)
		}
	}
	w.Release()
	s.Release()
	// Output:
	// 17 true
	// enter values (4 bytes)
	// value string_value = ab
	// enter values (9 bytes)
	// value number_value = 1
}
