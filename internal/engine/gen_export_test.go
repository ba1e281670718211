package engine

// SetGenBetweenPasses sets the function called between the size and the
// write pass of every encoding (nil: none), for tests that change a
// message during a call.
func SetGenBetweenPasses(f func()) { genBetweenPasses = f }

// Kept returns the capacities of the scratch st keeps between calls: the
// nested sizes, the map entries, the extensions and the map scratch
// values.
func (st *State) Kept() (sizes, entries, exts, scratch int) {
	return cap(st.sizes), cap(st.recs), cap(st.exts), len(st.scratch)
}

// Bounds are the largest capacities Kept may return.
const (
	MaxKeptSizes      = 16 * maxKept
	MaxKeptGenEntries = maxKept
	MaxKeptExtensions = maxKept
	MaxScratch        = maxScratch
)
