package appendx

import (
	"slices"
	"testing"
)

type pair struct {
	a int
	b string
}

func TestOne(t *testing.T) {
	var s []pair
	for i := range 100 {
		p := One(&s)
		if *p != (pair{}) {
			t.Fatalf("element %d of a growing slice is %v, not zero", i, *p)
		}
		p.a, p.b = i, "x"
	}
	if len(s) != 100 {
		t.Fatalf("len %d, want 100", len(s))
	}
	for i, p := range s {
		if p.a != i || p.b != "x" {
			t.Fatalf("element %d is %v", i, p)
		}
	}
	// Within capacity the old element shows through, and the backing
	// array is kept.
	c := cap(s)
	s = s[:10]
	p := One(&s)
	if len(s) != 11 || cap(s) != c || p != &s[10] || p.a != 10 {
		t.Fatalf("reuse: len %d cap %d (want 11, %d), element %v", len(s), cap(s), c, *p)
	}
	want := slices.Clone(s)
	q := One(&s)
	q.a, q.b = -1, "y"
	if !slices.Equal(s[:11], want) || s[11] != (pair{-1, "y"}) {
		t.Fatalf("One changed earlier elements: %v", s[:12])
	}
}

func TestOneAllocs(t *testing.T) {
	s := make([]pair, 0, 8)
	allocs := testing.AllocsPerRun(100, func() {
		s = s[:0]
		for i := range 8 {
			One(&s).a = i
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations within capacity", allocs)
	}
}
