package dynamic

import (
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/dynhook"
)

// DirectAppend runs the direct encoder on m as the encoder calls it, with
// fresh scratch space.
func DirectAppend(b []byte, m protoreflect.Message, o dynhook.Options) ([]byte, int, bool, error) {
	var state any
	return directAppend(&state, b, m, o)
}

// SetBetweenPasses sets the function called between the direct encoder's
// size and write passes (nil for none).
func SetBetweenPasses(f func(*Message)) { betweenPasses = f }

// Paths reports which of the direct encoder's field loops m's type takes:
// small (at most 64 fields) and inOrder (the layout emits the regular
// fields in index order).
func Paths(m *Message) (small, inOrder bool) {
	p := m.shape.program()
	return p.touchedWords == 1, m.shape.inOrder
}
