//go:build !protolayout_purego

// Package slots keeps the storage of one dynamic message in a single
// block: a few typed slices (parts) of lengths fixed per message type,
// laid end to end in one allocation, so that a message costs the garbage
// collector one object (or a share of a chunk of them) instead of one
// per part, and its header one pointer instead of a slice header per
// part.
//
// A block's Go type is built once per Layout with reflect (a struct of
// one array per non-empty part), so that the collector sees its exact
// pointer bitmap; Part rebuilds a part's slice from the block's address
// and the offset the Layout recorded, which takes package unsafe. This
// is the one place package dynamic's storage uses unsafe, fenced as
// internal/strview and internal/dynstore are: building with the tag
// protolayout_purego leaves this file out, and blocks hold ordinary
// slices instead (slots_purego.go), with the same API.
//
// The reflect types a Layout builds are never freed (reflect keeps every
// type it makes), but reflect reuses them for equal structures: their
// number is bounded by the distinct part lengths in use, not by how many
// Layouts are built.
package slots

import (
	"math"
	"math/bits"
	"reflect"
	"sync/atomic"
	"unsafe"
)

// Chunked reports whether a Chunk cuts blocks from larger allocations
// (false in purego builds, which allocate each block on its own).
const Chunked = true

// A Layout is the shape of a block: each part's element type and length.
// The zero Layout has no parts. A Layout is immutable once built and may
// be shared.
type Layout struct {
	// typ is the block's type (nil when the block is empty); size is its
	// size.
	typ  reflect.Type
	size uintptr
	// offs are each part's offset in the block.
	offs [MaxParts]uintptr
	// arrays caches the types of the arrays Chunk.Take and TakeHeaded
	// allocate, so that a new chunk does not look its type up in
	// reflect's cache.
	arrays *arrayTypes
	parts
}

// arrayTypes holds the array types of a Layout's chunks, one a length
// class (see lengthClass), the length last asked for in each:
// reflect.ArrayOf looks its types up in a sync.Map, which cost a tenth of
// the decoding of small nested messages. It also holds the headed
// element types (see TakeHeaded and NewHeaded), built on first use.
type arrayTypes struct {
	blocks      [lengthClasses]atomic.Pointer[arrayType]
	head, alone atomic.Pointer[headType]
}

// arrayType is an array type of elements and its length.
type arrayType struct {
	n int
	t reflect.Type
}

// headType is the element of a chunk of headed blocks: a header of type
// h, then a block, in one struct.
type headType struct {
	h, typ reflect.Type
	// size is typ's size, off the block's offset in it; noBlock is set
	// for an empty Layout, whose elements are headers alone.
	size, off uintptr
	noBlock   bool
	arrays    [lengthClasses]atomic.Pointer[arrayType]
}

// lengthClasses is how many length classes the caches hold: the lengths
// below 8, then eight a power of two (up to 2^13 times 8..15).
const lengthClasses = 8 + 14*8

// lengthClass returns the index in the caches of the class of n > 0: the
// lengths that round up to the same number of three significant bits, or
// -1 past the caches.
func lengthClass(n int) int {
	if n < 8 {
		return n
	}
	e := bits.Len(uint(n)) - 4
	m := (n + 1<<e - 1) >> e
	if m == 16 {
		e, m = e+1, 8
	}
	if i := 8 + e*8 + m - 8; i < lengthClasses {
		return i
	}
	return -1
}

// arrayOf returns the type of an array of n elements of type elem, from
// cache when its class holds that length, and stores it there.
func arrayOf(cache *[lengthClasses]atomic.Pointer[arrayType], n int, elem reflect.Type) reflect.Type {
	i := lengthClass(n)
	if i < 0 {
		return reflect.ArrayOf(n, elem)
	}
	if at := cache[i].Load(); at != nil && at.n == n {
		return at.t
	}
	at := &arrayType{n, reflect.ArrayOf(n, elem)}
	cache[i].Store(at)
	return at.t
}

// NewLayout returns the layout of blocks whose part i holds lens[i]
// values of types[i]. It panics if the two differ in length, if there
// are more than MaxParts, or if a length is negative.
func NewLayout(types []reflect.Type, lens []int) Layout {
	l := Layout{parts: newParts(types, lens), arrays: new(arrayTypes)}
	var fields []reflect.StructField
	var parts []int
	// Parts holding pointers first, so that the block's pointer-free
	// tail (whose bytes the collector never scans) is as long as it can
	// be.
	for _, ptrs := range []bool{true, false} {
		for i := range l.n {
			if l.lens[i] == 0 || hasPointers(types[i]) != ptrs {
				continue
			}
			fields = append(fields, reflect.StructField{
				Name: "P" + string(rune('0'+i)),
				Type: reflect.ArrayOf(l.lens[i], types[i]),
			})
			parts = append(parts, i)
		}
	}
	if len(fields) == 0 {
		return l
	}
	typ := reflect.StructOf(fields)
	if typ.Size() == 0 {
		return l
	}
	l.typ, l.size = typ, typ.Size()
	for k, i := range parts {
		l.offs[i] = l.typ.Field(k).Offset
	}
	return l
}

// hasPointers reports whether values of t hold pointers the collector
// follows.
func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return false
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
		return false
	default:
		return true
	}
}

// Bytes returns the size of a block of l.
func (l *Layout) Bytes() int { return int(l.size) }

// A Block is the storage of one message, laid out by a Layout; the zero
// Block is none at all (IsNil), for a message without storage.
type Block struct {
	p unsafe.Pointer
}

// empty is where the blocks of an empty Layout point, so that they are
// not nil.
var empty uint64

// IsNil reports whether b is the zero Block.
func (b Block) IsNil() bool { return b.p == nil }

// New returns a new block of l, zeroed: one allocation, or none for an
// empty layout.
func (l *Layout) New() Block {
	if l.typ == nil {
		return Block{unsafe.Pointer(&empty)}
	}
	return Block{reflect.New(l.typ).UnsafePointer()}
}

// Part returns part i of b, a block of l, whose elements must be of the
// type l was given for part i (T is not checked against it). It returns
// nil for a part of length 0 or a nil block.
func Part[T any](b Block, l *Layout, i int) []T {
	n := l.lens[i]
	if n == 0 || b.p == nil {
		return nil
	}
	return asSlice[T](Vec{unsafe.Add(b.p, l.offs[i]), n, n})
}

// At returns element j of part i of b, a block of l: Part(b, l, i)[j]
// without Part's checks or the index's, for callers that know b not nil
// and j within the part (an index their shape compiled).
func At[T any](b Block, l *Layout, i, j int) T {
	var zero T
	return *(*T)(unsafe.Add(b.p, l.offs[i]+uintptr(j)*unsafe.Sizeof(zero)))
}

// Ptr returns the address of element j of part i of b, with At's
// terms.
func Ptr[T any](b Block, l *Layout, i, j int) *T {
	var zero T
	return (*T)(unsafe.Add(b.p, l.offs[i]+uintptr(j)*unsafe.Sizeof(zero)))
}

// PointerInString returns the index, for At and Ptr on part k of l, of
// a pointer kept in the first word of element j of part i, a part of
// strings: a pointer that shares a string's slot (see BytesInStrings).
// The index may be out of part k's range, negative included, and k's
// elements must be pointers.
func (l *Layout) PointerInString(i, j, k int) int {
	return (int(l.offs[i]) + j*int(unsafe.Sizeof("")) - int(l.offs[k])) / int(unsafe.Sizeof(uintptr(0)))
}

// asSlice returns the slice of T whose header v is: Vec is laid out as a
// slice header is. It is unsafe.Slice without its checks, which cost more
// than the rest of Part and Get together; the callers know their pointers
// valid and their lengths right.
func asSlice[T any](v Vec) []T {
	return *(*[]T)(unsafe.Pointer(&v))
}

// A Chunk cuts the blocks of one Layout from larger allocations (arrays
// of blocks), so that many small messages cost a few allocations. A block
// keeps its whole chunk alive. The zero Chunk is ready to use; it must be
// used with one Layout only.
type Chunk struct {
	// base is the current array (nil before the first), at the offset
	// in it of the next element to cut, and left counts the elements
	// left. Cutting changes only at and left: no pointer is stored, so
	// a cut takes no write barrier while the collector marks.
	base unsafe.Pointer
	at   uintptr
	left int
	// next is the length of the next array; expect, when positive, the
	// blocks the next arrays are to hold first (see Expect).
	next, expect int
	// size is the size of TakeHeaded's elements, off the offset of the
	// block in one, and noBlock is set when they have none.
	size, off uintptr
	noBlock   bool
	// keep is set once c keeps its arrays (see Keep).
	keep *chunkKeep
}

// chunkKeep holds the arrays a Chunk allocated while its budget had room
// for them (see Keep), in the order it allocated them; pos counts those
// cut from since the last Rewind, used whether a block was cut since,
// and idle the Rewinds in a row that found none cut.
type chunkKeep struct {
	kept   []keptArray
	pos    int
	budget *int64
	used   bool
	idle   int
}

// keptArray is an array a Chunk keeps: its address, length, type and
// bytes.
type keptArray struct {
	p     unsafe.Pointer
	n     int
	typ   reflect.Type
	bytes int64
}

// Keep makes c keep the arrays it allocates from now on, each while
// *budget has room for it (a kept array takes its bytes from *budget,
// which the Chunks of one owner share, and Drop gives them back), so
// that after Rewind it cuts its blocks from them again.
func (c *Chunk) Keep(budget *int64) {
	if c.keep == nil {
		c.keep = new(chunkKeep)
	}
	c.keep.budget = budget
}

// Rewind clears the arrays c keeps that it cut blocks from since the
// last Rewind (so that they keep nothing alive), and makes c cut its
// next blocks from the arrays it keeps, in order, and then from new
// arrays. The blocks it cut before are overwritten: the caller must make
// sure that nothing reaches them any longer. It returns how many Rewinds
// in a row, this one included, found no block cut since the one before.
func (c *Chunk) Rewind() (idle int) {
	c.base, c.at, c.left, c.next, c.expect = nil, 0, 0, 0, 0
	k := c.keep
	if k == nil {
		return 0
	}
	for _, a := range k.kept[:k.pos] {
		// With the write barriers clearing pointers takes.
		reflect.NewAt(a.typ, a.p).Elem().SetZero()
	}
	if k.used {
		k.idle = 0
	} else {
		k.idle++
	}
	k.pos, k.used = 0, false
	return k.idle
}

// Drop forgets the arrays c keeps, giving their bytes back to its
// budget; the blocks cut from them stay valid.
func (c *Chunk) Drop() {
	k := c.keep
	if k == nil {
		return
	}
	for _, a := range k.kept {
		*k.budget += a.bytes
	}
	clear(k.kept)
	k.kept, k.pos = k.kept[:0], 0
}

// Kept returns the bytes of the arrays c keeps.
func (c *Chunk) Kept() int64 {
	n := int64(0)
	if c.keep != nil {
		for _, a := range c.keep.kept {
			n += a.bytes
		}
	}
	return n
}

// Expect tells c that about n more blocks are to be taken from it: its
// next arrays hold n in all (up to the limit each), before doubling
// takes over from the last one's length.
func (c *Chunk) Expect(n int) { c.expect = n }

// Take returns a new zeroed block of l, cut from c's current array, or
// from a new one when that is used up: first blocks long at first (or
// as many as c expects), doubling up to limit blocks (and no more than
// maxBytes of them, but at least one).
func (c *Chunk) Take(l *Layout, first, limit, maxBytes int) Block {
	if l.typ == nil {
		return Block{unsafe.Pointer(&empty)}
	}
	return Block{c.take(&l.arrays.blocks, l.typ, l.size, first, limit, maxBytes)}
}

// take cuts an element of type typ, of size size, from c, as Take does.
func (c *Chunk) take(cache *[lengthClasses]atomic.Pointer[arrayType], typ reflect.Type, size uintptr, first, limit, maxBytes int) unsafe.Pointer {
	if c.left == 0 {
		c.fill(cache, typ, size, first, limit, maxBytes)
	}
	p := unsafe.Add(c.base, c.at)
	c.left--
	c.at += size
	return p
}

// fill starts the next array of c, whose current one is spent: the next
// array it keeps, or a new one of elements of type typ, of size size, as
// Take sizes them.
func (c *Chunk) fill(cache *[lengthClasses]atomic.Pointer[arrayType], typ reflect.Type, size uintptr, first, limit, maxBytes int) {
	if k := c.keep; k != nil && k.pos < len(k.kept) {
		c.again()
	} else {
		n := c.next
		if n == 0 {
			n = first
		}
		if c.expect > 0 {
			n = c.expect
		}
		limit = max(1, min(limit, maxBytes/int(size)))
		n = max(1, min(n, limit))
		c.expect = max(0, c.expect-n)
		c.next = min(2*n, limit)
		at := arrayOf(cache, n, typ)
		c.base, c.at, c.left = reflect.New(at).UnsafePointer(), 0, n
		if k := c.keep; k != nil {
			k.add(c.base, n, at, int64(n)*int64(size))
		}
	}
}

// Refill starts a new array of blocks of l in c, whose current one is
// spent, as Take does; Cut then cuts from it. A Chunk is used with Take
// or Cut, or with TakeHeaded, not both.
func (c *Chunk) Refill(l *Layout, first, limit, maxBytes int) {
	if l.typ == nil {
		// Blocks of no bytes: the one empty block, without end.
		c.base, c.at, c.left = unsafe.Pointer(&empty), 0, math.MaxInt
		return
	}
	c.fill(&l.arrays.blocks, l.typ, l.size, first, limit, maxBytes)
}

// Cut returns a new zeroed block of l cut from c's current array, which
// must not be spent (see Refill). It is small enough to be inlined.
func Cut(c *Chunk, l *Layout) Block {
	p := unsafe.Add(c.base, c.at)
	c.left--
	c.at += l.size
	return Block{p}
}

// again starts cutting from the next array c keeps, cleared by Rewind.
func (c *Chunk) again() {
	k := c.keep
	a := &k.kept[k.pos]
	k.pos++
	k.used = true
	c.base, c.at, c.left, c.next = a.p, 0, a.n, a.n
}

// add notes a new array of n elements, of type typ and size bytes, at p,
// keeping it if the budget has room.
func (k *chunkKeep) add(p unsafe.Pointer, n int, typ reflect.Type, bytes int64) {
	k.used = true
	if *k.budget >= bytes {
		*k.budget -= bytes
		k.kept = append(k.kept, keptArray{p, n, typ, bytes})
		k.pos++
	}
}

// TakeHeaded returns a new zeroed H and a new zeroed block of l side by
// side, cut from c's current array as Take cuts blocks: a header and its
// block in one element, so that a message costs one share of one chunk.
// A Layout must be used with one H only, and a Chunk with TakeHeaded or
// Take, not both. It is Spent, RefillHeaded and CutHeaded, which a
// caller that wants the cut inlined calls itself.
func TakeHeaded[H any](c *Chunk, l *Layout, first, limit, maxBytes int) (*H, Block) {
	if c.Spent() {
		RefillHeaded[H](c, l, first, limit, maxBytes)
	}
	return CutHeaded[H](c, l)
}

// Spent reports whether c's current array has no element left to cut.
func (c *Chunk) Spent() bool { return c.left == 0 }

// RefillHeaded starts a new array of headed elements in c, whose current
// one is spent, as TakeHeaded does.
func RefillHeaded[H any](c *Chunk, l *Layout, first, limit, maxBytes int) {
	c.refill(l, reflect.TypeFor[H](), first, limit, maxBytes)
}

// CutHeaded returns a new zeroed H and block of l cut from c's current
// array, which must not be spent (see TakeHeaded). It is small enough to
// be inlined.
func CutHeaded[H any](c *Chunk, l *Layout) (*H, Block) {
	p := unsafe.Add(c.base, c.at)
	c.left--
	c.at += c.size
	if c.noBlock {
		return (*H)(p), Block{unsafe.Pointer(&empty)}
	}
	return (*H)(p), Block{unsafe.Add(p, c.off)}
}

// refill starts a new array of headed elements (headers of type h) for
// TakeHeaded, as take does for Take.
func (c *Chunk) refill(l *Layout, h reflect.Type, first, limit, maxBytes int) {
	ht := l.arrays.head.Load()
	if ht == nil {
		ht = l.headType(&l.arrays.head, h)
	}
	c.size, c.off, c.noBlock = ht.size, ht.off, ht.noBlock
	c.fill(&ht.arrays, ht.typ, ht.size, first, limit, maxBytes)
}

// NewHeaded returns a new zeroed H and block of l side by side, in one
// allocation, as TakeHeaded lays them out. A Layout must be used with one
// H only here too, which may differ from TakeHeaded's.
func NewHeaded[H any](l *Layout) (*H, Block) {
	ht := l.arrays.alone.Load()
	if ht == nil {
		ht = l.headType(&l.arrays.alone, reflect.TypeFor[H]())
	}
	p := reflect.New(ht.typ).UnsafePointer()
	return (*H)(p), ht.block(p)
}

// block returns the block of the headed element at p.
func (ht *headType) block(p unsafe.Pointer) Block {
	if ht.noBlock {
		return Block{unsafe.Pointer(&empty)}
	}
	return Block{unsafe.Add(p, ht.off)}
}

// headType returns l's headed element type for headers of type h, kept
// in cache (l's head or alone), building it on first use; it panics if
// cache holds another header type's.
func (l *Layout) headType(cache *atomic.Pointer[headType], h reflect.Type) *headType {
	fields := []reflect.StructField{{Name: "H", Type: h}}
	if l.typ != nil {
		fields = append(fields, reflect.StructField{Name: "B", Type: l.typ})
	}
	typ := reflect.StructOf(fields)
	ht := &headType{h: h, typ: typ, size: typ.Size(), noBlock: l.typ == nil}
	if l.typ != nil {
		ht.off = typ.Field(1).Offset
	}
	if !cache.CompareAndSwap(nil, ht) {
		ht = cache.Load()
	}
	if ht.h != h {
		panic("slots: a layout used with two header types")
	}
	return ht
}

// A Vec holds one slice of any element type in three words, a slice
// header without its element type, so that a value that keeps a slice of
// one of several types (chosen when it is made) needs room for one only.
// The zero Vec holds a nil slice. Its pointer is an unsafe.Pointer, which
// the collector follows to the slice's array, whose own type tells the
// collector what the array holds.
type Vec struct {
	p        unsafe.Pointer
	len, cap int
}

// Len returns the length of the slice v holds.
func (v *Vec) Len() int { return v.len }

// Get returns the slice v holds, which must have been stored by Set with
// the same T (or be nil).
func Get[T any](v *Vec) []T {
	return asSlice[T](*v)
}

// Set stores s in v.
func Set[T any](v *Vec, s []T) {
	v.p, v.len, v.cap = unsafe.Pointer(unsafe.SliceData(s)), len(s), cap(s)
}

// BytesInStrings reports whether a string can hold a bytes value
// (StoreBytes, LoadBytes), or a pointer in its first word
// (Layout.PointerInString): true in this build, where a []byte's pointer
// and length fill a string's header; false in purego builds.
const BytesInStrings = true

// strHeader is the layout of a string's header.
type strHeader struct {
	p unsafe.Pointer
	n int
}

// StoreBytes stores b's pointer and length in *s, which then holds a
// bytes value, not a string: only LoadBytes may read it. b is not copied
// (a caller that writes b changes what LoadBytes returns), and the
// collector keeps b's array alive through *s as it would through b.
func StoreBytes(s *string, b []byte) {
	*(*strHeader)(unsafe.Pointer(s)) = strHeader{unsafe.Pointer(unsafe.SliceData(b)), len(b)}
}

// LoadBytes returns the bytes value StoreBytes stored in *s, with no
// spare capacity: nil if it stored nil (or *s is the zero string), empty
// and not nil if it stored an empty slice that was not nil.
func LoadBytes(s *string) []byte {
	h := *(*strHeader)(unsafe.Pointer(s))
	return unsafe.Slice((*byte)(h.p), h.n)
}

// Elems returns the memory of words as elements of T, eight bytes of
// words to 8/size of T elements: for lists of scalars of 32 or 64 bits
// cut from a slab of words, which share its array (and its lifetime). In
// purego builds a list of 32-bit elements gets a new array instead.
func Elems[T ~int32 | ~uint32 | ~uint64](words []uint64) []T {
	if len(words) == 0 {
		return nil
	}
	n := len(words) * 8 / int(unsafe.Sizeof(T(0)))
	return asSlice[T](Vec{unsafe.Pointer(unsafe.SliceData(words)), n, n})
}
