package engine

import (
	"testing"

	"github.com/protolayout/protolayout/internal/fault"
	"github.com/protolayout/protolayout/internal/wire"
)

// TestSizeFaultsNamed checks when the size pass names the size limit
// (size_limit.go): with a trail, outside the canonical profiles, and for
// a limit within the most it counts (maxSize); the default limit,
// wire.MaxSize, is above it.
func TestSizeFaultsNamed(t *testing.T) {
	var tr fault.Trail
	for _, c := range []struct {
		o    Options
		want bool
	}{
		{Options{MaxSize: 100, Trail: &tr}, true},
		{Options{MaxSize: maxSize, Trail: &tr, Deterministic: true, Partial: true, SizeOnly: true}, true},
		{Options{MaxSize: 100}, false},
		{Options{MaxSize: 100, Trail: &tr, Canonical: true}, false},
		{Options{MaxSize: maxSize + 1, Trail: &tr}, false},
		{Options{MaxSize: wire.MaxSize, Trail: &tr}, false},
	} {
		c.o.MaxDepth = wire.DefaultMaxDepth
		var st State
		var e enc
		if e.start(&st, &c.o); e.sizeFaults != c.want || e.limit != min(c.o.MaxSize, maxSize) {
			t.Errorf("%+v: sizeFaults %v, limit %d", c.o, e.sizeFaults, e.limit)
		}
	}
}
