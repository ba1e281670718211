package engine

import (
	"reflect"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// DirectAppend runs the direct encoder on m as the encoder calls it, with
// fresh scratch space.
func DirectAppend(b []byte, m protoreflect.Message, o Options) ([]byte, int, bool) {
	var st State
	return st.encode(b, m.(*Message), &o)
}

// SetBetweenPasses sets the function called between the direct encoder's
// size and write passes (nil for none).
func SetBetweenPasses(f func(*Message)) { betweenPasses = f }

// Paths reports which of the direct encoder's field loops m's type takes:
// small (at most 64 fields) and inOrder (the layout emits the regular
// fields in index order).
func Paths(m *Message) (small, inOrder bool) {
	p := m.t.shape.program()
	return p.touchedWords == 1, m.t.shape.inOrder
}

// MapEntryBytes is the size of one kept map entry of the direct
// encoder's scratch, and MaxKeptEntries how many it keeps; ExtBytes and
// SizeBytes those of a recorded extension and nested size.
var (
	MapEntryBytes, MaxKeptEntries = int(reflect.TypeFor[entry]().Size()), maxKeptEntries
	MaxKeptGenEntries             = maxKeptRecs
	ExtBytes                      = int(reflect.TypeFor[ext]().Size())
	SizeBytes                     = int(reflect.TypeFor[int32]().Size())
)

// DirectAppendState runs the direct encoder on m with the scratch space
// in state, as an Encoder keeps it.
func DirectAppendState(st *State, b []byte, m protoreflect.Message, o Options) ([]byte, int, bool) {
	return st.encode(b, m.(*Message), &o)
}

// KeptEntries returns the capacity of the map scratch in state.
func KeptEntries(st *State) int { return cap(st.entries) }

// SetOnEncode sets the function called at the start of every direct
// encoding but a write with cached sizes (nil for none).
func SetOnEncode(f func()) { onEncode = f }

// ListType returns the type l shares with the lists of its field, for
// comparing by identity.
func ListType(l protoreflect.List) any { return l.(*list).listType }

// SetOnEarlier sets the function called for every map entry the size
// pass sizes while it looks for an earlier fault (nil for none).
func SetOnEarlier(f func()) { onEarlier = f }

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
	MaxKeptExtensions = maxKept
	MaxScratch        = maxScratch
)
