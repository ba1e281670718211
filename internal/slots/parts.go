package slots

import "reflect"

// MaxParts is the most parts a Layout has.
const MaxParts = 8

// parts is what a Layout records in every build: each part's element type
// and length.
type parts struct {
	lens  [MaxParts]int
	types [MaxParts]reflect.Type
	n     int
}

// newParts checks the arguments of NewLayout and records them.
func newParts(types []reflect.Type, lens []int) parts {
	if len(types) != len(lens) || len(types) > MaxParts {
		panic("slots: bad layout")
	}
	var p parts
	p.n = len(types)
	for i, t := range types {
		if lens[i] < 0 {
			panic("slots: negative part length")
		}
		p.types[i], p.lens[i] = t, lens[i]
	}
	return p
}

// Len returns the length of part i.
func (p *parts) Len(i int) int { return p.lens[i] }
