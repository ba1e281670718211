package slots

import (
	"reflect"
	"runtime"
	"strconv"
	"testing"
	"weak"
)

// node is a pointer target of the tests; its pointer keeps it out of the
// tiny allocator, whose blocks outlive their objects.
type node struct {
	v int
	_ *node
}

// The parts of the blocks used in tests: words, strings, bytes, pointers.
var testTypes = []reflect.Type{
	reflect.TypeFor[uint64](),
	reflect.TypeFor[string](),
	reflect.TypeFor[[]byte](),
	reflect.TypeFor[*node](),
}

// fill stores values derived from seed in every part of b.
func fill(b Block, l *Layout, seed int) {
	for i, w := range Part[uint64](b, l, 0) {
		Part[uint64](b, l, 0)[i] = w + uint64(seed*100+i)
	}
	for i := range Part[string](b, l, 1) {
		Part[string](b, l, 1)[i] = strconv.Itoa(seed*100 + i)
	}
	for i := range Part[[]byte](b, l, 2) {
		Part[[]byte](b, l, 2)[i] = []byte(strconv.Itoa(seed*100 + i))
	}
	for i := range Part[*node](b, l, 3) {
		Part[*node](b, l, 3)[i] = &node{v: seed*100 + i}
	}
}

// check verifies the values fill stored with seed.
func check(t *testing.T, b Block, l *Layout, seed int) {
	t.Helper()
	for i, w := range Part[uint64](b, l, 0) {
		if w != uint64(seed*100+i) {
			t.Fatalf("seed %d: word %d = %d", seed, i, w)
		}
	}
	for i, s := range Part[string](b, l, 1) {
		if s != strconv.Itoa(seed*100+i) {
			t.Fatalf("seed %d: string %d = %q", seed, i, s)
		}
	}
	for i, x := range Part[[]byte](b, l, 2) {
		if string(x) != strconv.Itoa(seed*100+i) {
			t.Fatalf("seed %d: bytes %d = %q", seed, i, x)
		}
	}
	for i, p := range Part[*node](b, l, 3) {
		if p == nil || p.v != seed*100+i {
			t.Fatalf("seed %d: pointer %d = %v", seed, i, p)
		}
	}
}

// zeroed verifies that every part of b holds zero values.
func zeroed(t *testing.T, b Block, l *Layout) {
	t.Helper()
	for i, w := range Part[uint64](b, l, 0) {
		if w != 0 {
			t.Fatalf("word %d = %d", i, w)
		}
	}
	for i, s := range Part[string](b, l, 1) {
		if s != "" {
			t.Fatalf("string %d = %q", i, s)
		}
	}
	for i, x := range Part[[]byte](b, l, 2) {
		if x != nil {
			t.Fatalf("bytes %d = %q", i, x)
		}
	}
	for i, p := range Part[*node](b, l, 3) {
		if p != nil {
			t.Fatalf("pointer %d = %v", i, p)
		}
	}
}

func TestParts(t *testing.T) {
	for _, lens := range [][]int{{0, 0, 0, 0}, {3, 0, 0, 0}, {0, 2, 0, 0}, {1, 2, 3, 4}, {5, 1, 0, 7}, {0, 0, 1, 1}} {
		l := NewLayout(testTypes, lens)
		b := l.New()
		if b.IsNil() {
			t.Fatalf("%v: New returned a nil block", lens)
		}
		for i, n := range lens {
			if l.Len(i) != n {
				t.Errorf("%v: Len(%d) = %d", lens, i, l.Len(i))
			}
		}
		if got := len(Part[uint64](b, &l, 0)); got != lens[0] {
			t.Errorf("%v: part 0 has %d elements", lens, got)
		}
		if lens[1] == 0 && Part[string](b, &l, 1) != nil {
			t.Errorf("%v: empty part is not nil", lens)
		}
		if got := len(Part[*node](b, &l, 3)); got != lens[3] {
			t.Errorf("%v: part 3 has %d elements", lens, got)
		}
		zeroed(t, b, &l)
		fill(b, &l, 1)
		check(t, b, &l, 1)
		checkAt(t, b, &l)
		var none Block
		if !none.IsNil() || Part[uint64](none, &l, 0) != nil || Part[*node](none, &l, 3) != nil {
			t.Errorf("%v: the zero block has parts", lens)
		}
	}
}

// checkAt holds At to Part for every element of every part of b.
func checkAt(t *testing.T, b Block, l *Layout) {
	t.Helper()
	for j, w := range Part[uint64](b, l, 0) {
		if At[uint64](b, l, 0, j) != w {
			t.Fatalf("At(0, %d) = %d, Part has %d", j, At[uint64](b, l, 0, j), w)
		}
	}
	for j, x := range Part[string](b, l, 1) {
		if At[string](b, l, 1, j) != x {
			t.Fatalf("At(1, %d) = %q, Part has %q", j, At[string](b, l, 1, j), x)
		}
	}
	for j, x := range Part[[]byte](b, l, 2) {
		if string(At[[]byte](b, l, 2, j)) != string(x) {
			t.Fatalf("At(2, %d) = %q, Part has %q", j, At[[]byte](b, l, 2, j), x)
		}
	}
	for j, p := range Part[*node](b, l, 3) {
		if At[*node](b, l, 3, j) != p {
			t.Fatalf("At(3, %d) = %p, Part has %p", j, At[*node](b, l, 3, j), p)
		}
	}
}

// Blocks cut from a chunk are zeroed, do not overlap, and keep what they
// point to alive through collections.
func TestChunk(t *testing.T) {
	for _, lens := range [][]int{{1, 2, 3, 4}, {2, 0, 0, 0}, {0, 0, 0, 0}, {0, 3, 0, 1}} {
		l := NewLayout(testTypes, lens)
		var c Chunk
		var blocks []Block
		for k := range 100 {
			b := c.Take(&l, 2, 16, 1<<10)
			if b.IsNil() {
				t.Fatalf("%v: Take returned a nil block", lens)
			}
			zeroed(t, b, &l)
			fill(b, &l, k)
			blocks = append(blocks, b)
		}
		runtime.GC()
		runtime.GC()
		for k, b := range blocks {
			check(t, b, &l, k)
		}
	}
}

// kept is the block TestBlockKeepsAlive holds and drops.
var kept Block

// A block keeps its pointers' targets alive, and frees them once it is
// dropped.
func TestBlockKeepsAlive(t *testing.T) {
	l := NewLayout(testTypes, []int{2, 1, 1, 3})
	w := keep(&l)
	runtime.GC()
	if w.Value() == nil || Part[*node](kept, &l, 3)[2].v != 42 {
		t.Fatal("a block's pointer was freed while the block is alive")
	}
	kept = Block{}
	runtime.GC()
	runtime.GC()
	if w.Value() != nil {
		t.Error("a dropped block's pointer is still alive")
	}
}

// keep stores a new block of l in kept, with a new node in the last
// pointer slot, and returns a weak pointer to the node.
//
//go:noinline
func keep(l *Layout) weak.Pointer[node] {
	kept = l.New()
	n := &node{v: 42}
	Part[*node](kept, l, 3)[2] = n
	return weak.Make(n)
}

func TestNewLayoutPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"mismatch": func() { NewLayout(testTypes, []int{1}) },
		"negative": func() { NewLayout(testTypes, []int{1, -1, 0, 0}) },
		"too many": func() { NewLayout(make([]reflect.Type, MaxParts+1), make([]int, MaxParts+1)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// A Vec gives back the slice stored in it, nil and empty alike, and keeps
// its elements alive.
func TestVec(t *testing.T) {
	var v Vec
	if Get[string](&v) != nil || v.Len() != 0 {
		t.Fatal("the zero Vec holds a slice")
	}
	Set(&v, []string{})
	if s := Get[string](&v); s == nil || len(s) != 0 {
		t.Fatalf("empty slice read back as %#v", s)
	}
	var s []string
	for i := range 100 {
		s = append(Get[string](&v), strconv.Itoa(i))
		Set(&v, s)
	}
	runtime.GC()
	got := Get[string](&v)
	if v.Len() != 100 || len(got) != 100 || cap(got) != cap(s) {
		t.Fatalf("Len %d, len %d, cap %d; want 100, 100, %d", v.Len(), len(got), cap(got), cap(s))
	}
	for i, x := range got {
		if x != strconv.Itoa(i) {
			t.Fatalf("element %d = %q", i, x)
		}
	}
	Set(&v, got[:3])
	if v.Len() != 3 || len(Get[string](&v)) != 3 {
		t.Fatal("a truncated slice reads back with another length")
	}
	Set[string](&v, nil)
	if Get[string](&v) != nil || v.Len() != 0 {
		t.Fatal("nil reads back as not nil")
	}
	var p Vec
	Set(&p, []*node{{v: 7}})
	runtime.GC()
	if n := Get[*node](&p); len(n) != 1 || n[0].v != 7 {
		t.Fatalf("pointer slice read back as %v", n)
	}
}

// header is the header type of the headed tests: it holds a pointer, so
// that a chunk of headed blocks must keep what it points to alive.
type header struct {
	n    int
	next *node
}

// Headers and blocks cut side by side from a chunk, or made by
// NewHeaded, are zeroed, do not overlap, and keep what they point to
// alive through collections.
func TestTakeHeaded(t *testing.T) {
	for _, lens := range [][]int{{1, 2, 3, 4}, {0, 0, 0, 0}, {0, 3, 0, 1}} {
		l := NewLayout(testTypes, lens)
		var c Chunk
		var heads []*header
		var blocks []Block
		for k := range 100 {
			h, b := TakeHeaded[header](&c, &l, 2, 16, 1<<10)
			if k%7 == 0 {
				h, b = NewHeaded[header](&l)
			}
			if b.IsNil() || h.n != 0 || h.next != nil {
				t.Fatalf("%v: a nil block or a header not zeroed", lens)
			}
			zeroed(t, b, &l)
			fill(b, &l, k)
			h.n, h.next = k, &node{v: k}
			heads = append(heads, h)
			blocks = append(blocks, b)
		}
		runtime.GC()
		runtime.GC()
		for k, b := range blocks {
			check(t, b, &l, k)
			if heads[k].n != k || heads[k].next.v != k {
				t.Fatalf("%v: header %d overwritten", lens, k)
			}
		}
	}
}

// Elems gives two 32-bit elements per word, zero where the words are,
// and (in the default build) in the words' own array; words as 64-bit
// elements are the words themselves.
func TestElems(t *testing.T) {
	if Elems[uint32](nil) != nil {
		t.Fatal("no words give elements")
	}
	words := make([]uint64, 3)
	if w := Elems[uint64](words); len(w) != 3 || &w[0] != &words[0] {
		t.Fatal("words as words are another array")
	}
	h := Elems[int32](words)
	if len(h) != 6 || cap(h) != 6 {
		t.Fatalf("len %d, cap %d; want 6, 6", len(h), cap(h))
	}
	for i, x := range h {
		if x != 0 {
			t.Fatalf("element %d = %d", i, x)
		}
	}
	h[5] = -1
	shared := words[2] != 0
	if shared != Chunked {
		t.Fatalf("the halves share the words' array: %v; want %v", shared, Chunked)
	}
}
