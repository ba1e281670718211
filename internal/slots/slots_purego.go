//go:build protolayout_purego

// Package slots would keep the storage of one dynamic message in a single
// block; in this build (protolayout_purego) it uses no unsafe, and a
// block holds one ordinary slice per part, each its own allocation, with
// the same API as the block of the default build.
package slots

import "reflect"

// Chunked reports whether a Chunk cuts blocks from larger allocations
// (false in purego builds, which allocate each block on its own).
const Chunked = false

// A Layout is the shape of a block: each part's element type and length.
// The zero Layout has no parts. A Layout is immutable once built and may
// be shared.
type Layout struct {
	parts
}

// NewLayout returns the layout of blocks whose part i holds lens[i]
// values of types[i]. It panics if the two differ in length, if there
// are more than MaxParts, or if a length is negative.
func NewLayout(types []reflect.Type, lens []int) Layout {
	return Layout{newParts(types, lens)}
}

// Bytes returns about the memory a block of l takes: its array of parts
// and, for each part that is not empty, the slice boxed in it and the
// slice's elements.
func (l *Layout) Bytes() int {
	n := int(reflect.TypeFor[[MaxParts]any]().Size())
	for i := range l.n {
		if l.lens[i] > 0 {
			n += int(reflect.TypeFor[[]byte]().Size()) + l.lens[i]*int(l.types[i].Size())
		}
	}
	return n
}

// A Block is the storage of one message, laid out by a Layout; the zero
// Block is none at all (IsNil), for a message without storage.
type Block struct {
	parts *[MaxParts]any
}

// IsNil reports whether b is the zero Block.
func (b Block) IsNil() bool { return b.parts == nil }

// New returns a new block of l, zeroed: each non-empty part a slice of
// its own.
func (l *Layout) New() Block {
	parts := new([MaxParts]any)
	for i := range l.n {
		if l.lens[i] > 0 {
			parts[i] = reflect.MakeSlice(reflect.SliceOf(l.types[i]), l.lens[i], l.lens[i]).Interface()
		}
	}
	return Block{parts}
}

// Part returns part i of b, a block of l, whose elements must be of the
// type l was given for part i. It returns nil for a part of length 0 or a
// nil block.
func Part[T any](b Block, l *Layout, i int) []T {
	if b.parts == nil || l.lens[i] == 0 {
		return nil
	}
	return b.parts[i].([]T)
}

// At returns element j of part i of b, a block of l: Part(b, l, i)[j].
func At[T any](b Block, l *Layout, i, j int) T {
	return Part[T](b, l, i)[j]
}

// A Chunk would cut the blocks of one Layout from larger allocations; in
// this build each block is allocated on its own. The zero Chunk is ready
// to use.
type Chunk struct{}

// Take returns a new zeroed block of l (l.New()); the sizes are ignored.
func (c *Chunk) Take(l *Layout, first, limit, maxBytes int) Block { return l.New() }

// Expect does nothing in this build.
func (c *Chunk) Expect(n int) {}

// Refill does nothing in this build.
func (c *Chunk) Refill(l *Layout, first, limit, maxBytes int) {}

// Cut returns a new zeroed block of l (l.New()).
func Cut(c *Chunk, l *Layout) Block { return l.New() }

// Keep does nothing in this build: every block is allocated on its own,
// and none is cut again.
func (c *Chunk) Keep(budget *int64) {}

// Rewind does nothing in this build, and reports no idle Rewind.
func (c *Chunk) Rewind() (idle int) { return 0 }

// Drop does nothing in this build.
func (c *Chunk) Drop() {}

// Kept reports 0 in this build.
func (c *Chunk) Kept() int64 { return 0 }

// TakeHeaded returns a new zeroed H and a new zeroed block of l, each
// allocated on its own in this build; the sizes are ignored.
func TakeHeaded[H any](c *Chunk, l *Layout, first, limit, maxBytes int) (*H, Block) {
	return new(H), l.New()
}

// Spent reports false in this build: CutHeaded allocates.
func (c *Chunk) Spent() bool { return false }

// RefillHeaded does nothing in this build.
func RefillHeaded[H any](c *Chunk, l *Layout, first, limit, maxBytes int) {}

// CutHeaded returns a new zeroed H and a new zeroed block of l, each
// allocated on its own in this build.
func CutHeaded[H any](c *Chunk, l *Layout) (*H, Block) { return new(H), l.New() }

// NewHeaded returns a new zeroed H and a new zeroed block of l, each
// allocated on its own in this build.
func NewHeaded[H any](l *Layout) (*H, Block) { return new(H), l.New() }

// A Vec holds one slice of any element type, chosen when it is first
// stored. The zero Vec holds a nil slice.
type Vec struct {
	// s is a *[]T once a slice has been stored.
	s   any
	len int
}

// Len returns the length of the slice v holds.
func (v *Vec) Len() int { return v.len }

// Get returns the slice v holds, which must have been stored by Set with
// the same T (or be nil).
func Get[T any](v *Vec) []T {
	if v.s == nil {
		return nil
	}
	return *v.s.(*[]T)
}

// Set stores s in v.
func Set[T any](v *Vec, s []T) {
	if p, ok := v.s.(*[]T); ok {
		*p = s
	} else {
		v.s = &s
	}
	v.len = len(s)
}

// Ptr returns the address of element j of part i of b.
func Ptr[T any](b Block, l *Layout, i, j int) *T {
	return &Part[T](b, l, i)[j]
}

// PointerInString panics in this build (see BytesInStrings).
func (l *Layout) PointerInString(i, j, k int) int {
	panic("slots: PointerInString in a purego build")
}

// BytesInStrings reports whether a string can hold a bytes value
// (StoreBytes, LoadBytes): false in this build, which keeps bytes values
// as []byte.
const BytesInStrings = false

// StoreBytes panics in this build (see BytesInStrings).
func StoreBytes(s *string, b []byte) { panic("slots: StoreBytes in a purego build") }

// LoadBytes panics in this build (see BytesInStrings).
func LoadBytes(s *string) []byte { panic("slots: LoadBytes in a purego build") }

// Elems returns words as elements of T, eight bytes of words to 8/size
// of T elements: in this build, words itself for elements of 64 bits and
// a new array otherwise.
func Elems[T ~int32 | ~uint32 | ~uint64](words []uint64) []T {
	if len(words) == 0 {
		return nil
	}
	if w, ok := any(words).([]T); ok {
		return w
	}
	if wide := uint64(1) << 32; T(wide) != 0 {
		return make([]T, len(words))
	}
	return make([]T, 2*len(words))
}
