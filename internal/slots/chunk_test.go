//go:build !protolayout_purego

package slots

import (
	"reflect"
	"testing"
)

// A chunk's array type is the array of its length, for lengths past the
// cache too, and comes from the cache the second time.
func TestArrayTypes(t *testing.T) {
	l := NewLayout(testTypes, []int{1, 2, 3, 4})
	for round := range 2 {
		for _, n := range []int{1, 7, 8, 9, 15, 16, 17, 100, 1000, 1 << 20} {
			got := arrayOf(&l.arrays.blocks, n, l.typ)
			if want := reflect.ArrayOf(n, l.typ); got != want {
				t.Fatalf("round %d: array of %d: got %v, want %v", round, n, got, want)
			}
			if i := lengthClass(n); i >= 0 && l.arrays.blocks[i].Load().t != got {
				t.Fatalf("round %d: array of %d not cached", round, n)
			}
		}
	}
}

// The classes' indexes grow with the lengths, one at a time, and a class
// holds lengths within an eighth of one another.
func TestLengthClass(t *testing.T) {
	prev, low := 0, 1
	for n := 1; n < 1<<18; n++ {
		i := lengthClass(n)
		if i < 0 {
			break
		}
		if i != prev {
			if i != prev+1 {
				t.Fatalf("class of %d: %d after %d", n, i, prev)
			}
			prev, low = i, n
		}
		if n-low > low/8 {
			t.Fatalf("class %d holds %d and %d", i, low, n)
		}
	}
}

// A chunk told to expect n blocks holds them in its next arrays, each
// within the limit, then doubles from the last one's length.
func TestChunkExpect(t *testing.T) {
	l := NewLayout(testTypes, []int{1, 0, 0, 0})
	var c Chunk
	c.Expect(21)
	var lens []int
	for range 21 + 30 {
		if c.left == 0 {
			c.Take(&l, 2, 16, 1<<20)
			lens = append(lens, c.left+1)
			continue
		}
		c.Take(&l, 2, 16, 1<<20)
	}
	if want := []int{16, 5, 10, 16, 16}; !reflect.DeepEqual(lens, want) {
		t.Fatalf("array lengths %v, want %v", lens, want)
	}
}

// A Chunk that keeps its arrays cuts the same blocks again after Rewind,
// cleared, within its budget, and gives the bytes back on Drop; Cut and
// Refill cut as Take does, an empty layout's blocks included.
func TestChunkKeep(t *testing.T) {
	l := NewLayout(testTypes, []int{1, 2, 3, 4})
	budget := int64(4 * l.Bytes())
	var c Chunk
	c.Keep(&budget)
	cut := func() Block {
		if c.Spent() {
			c.Refill(&l, 2, 1<<10, 1<<20)
		}
		return Cut(&c, &l)
	}
	var first []Block
	for i := range 6 {
		b := cut()
		Part[uint64](b, &l, 0)[0] = uint64(i + 1)
		first = append(first, b)
	}
	// Arrays of 2 and 4 blocks were kept, within a budget of 4 blocks: the
	// first only.
	if budget != int64(2*l.Bytes()) || c.Kept() != int64(2*l.Bytes()) {
		t.Fatalf("budget left %d, kept %d, block of %d bytes", budget, c.Kept(), l.Bytes())
	}
	if idle := c.Rewind(); idle != 0 {
		t.Fatalf("Rewind after use: idle %d", idle)
	}
	for i := range 2 {
		if b := cut(); b.p != first[i].p || Part[uint64](b, &l, 0)[0] != 0 {
			t.Fatalf("block %d after Rewind: %p (was %p), value %d", i, b.p, first[i].p, Part[uint64](b, &l, 0)[0])
		}
	}
	if b := cut(); b.p == first[2].p {
		t.Fatal("a block of an array not kept was cut again")
	}
	c.Rewind()
	if idle := c.Rewind(); idle != 1 {
		t.Fatalf("second Rewind with nothing cut: idle %d", idle)
	}
	c.Drop()
	if budget != int64(4*l.Bytes()) || c.Kept() != 0 {
		t.Fatalf("after Drop: budget %d, kept %d", budget, c.Kept())
	}
	var e Layout
	var ce Chunk
	for range 3 {
		if ce.Spent() {
			ce.Refill(&e, 2, 1<<10, 1<<20)
		}
		if b := Cut(&ce, &e); b.p != (&Chunk{}).Take(&e, 1, 1, 1).p {
			t.Fatal("an empty layout's Cut is not the empty block")
		}
	}
}
