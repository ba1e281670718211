//go:build !protolayout_purego

package slots

import (
	"reflect"
	"testing"
)

// A chunk's array type is the array of its length, for more lengths than
// the cache holds, and comes from the cache the second time.
func TestArrayTypes(t *testing.T) {
	l := NewLayout(testTypes, []int{1, 2, 3, 4})
	for round := range 2 {
		for n := 1; n <= 12; n++ {
			got := l.arrays.of(n, l.typ)
			if want := reflect.ArrayOf(n, l.typ); got != want {
				t.Fatalf("round %d: array of %d: got %v, want %v", round, n, got, want)
			}
		}
	}
	for i := range l.arrays {
		if at := l.arrays[i].Load(); at == nil || at.n != i+1 {
			t.Errorf("cache entry %d: %+v, want the array of %d", i, at, i+1)
		}
	}
}
