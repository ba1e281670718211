package retain

import (
	"math"
	"testing"
)

func TestBudget(t *testing.T) {
	var b Budget
	if got := b.Observe(100); got != Floor {
		t.Fatalf("a small output: budget %d, want the floor %d", got, Floor)
	}
	big := 10 << 20
	if got := b.Observe(big); got != big*PerByte {
		t.Fatalf("a 10 MiB output: budget %d, want %d", got, big*PerByte)
	}
	// Remembered for Window calls of small outputs, then forgotten.
	for i := range Window {
		if got := b.Observe(100); got != big*PerByte {
			t.Fatalf("small call %d after the big one: budget %d", i, got)
		}
	}
	if got := b.Observe(100); got != Floor {
		t.Fatalf("after %d small calls: budget %d, want the floor", Window+1, got)
	}
	// Outputs whose product with PerByte passes Max, or overflows int
	// (1<<30*PerByte wraps to 0 where int has 32 bits).
	for _, n := range []int{Max/PerByte + 1, 1 << 30, math.MaxInt} {
		var b Budget
		if got := b.Observe(n); got != Max {
			t.Fatalf("a huge output of %d bytes: budget %d, want Max", n, got)
		}
	}
	var exact Budget
	if got := exact.Observe(Max / PerByte); got != Max/PerByte*PerByte {
		t.Fatalf("an output of Max/PerByte bytes: budget %d, want %d", got, Max/PerByte*PerByte)
	}
}

func TestKeep(t *testing.T) {
	budget := 100
	if !Keep(&budget, 60) || budget != 40 || Keep(&budget, 41) || budget != 40 || !Keep(&budget, 40) || budget != 0 {
		t.Fatalf("Keep: budget %d", budget)
	}
}
