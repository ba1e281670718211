package layout

import (
	"sync/atomic"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/wire"
)

// The value Writer's records (package encoder, writer_table.go) are
// defined here, so that the records they describe keep them typed: a
// layout its tables (WriterTable, SetWriterTable), an extension's record
// the Writer's record of the extension (WriterExt, SetWriterExt). Package
// encoder builds and fills them on first use and reads them on every
// call; they live as long as the layout or record that holds them, and
// so as long as its schema. Nothing else reads them.

// WriterTable is the Writer's table of one layout for one order: per
// field, what the fast paths read (its slot), its child table and the
// learned width of its length prefixes. Fields are found by number
// through the layout's own index (NumberIndex and PositionOfNumber), and
// its required fields are the layout's (RequiredFields). It is built once
// per layout and profile, shared by every Writer and goroutine, and only
// ever changed through atomics.
//
// A table serves one order: proto.Marshal's (profile 0, the table the
// layout keeps), or a canonical profile's (encoder.WriterOptions.Canonical),
// a variant built on first use and kept in the first (Variants). A variant
// differs in its oneof members' order thresholds, in which fields its
// fast paths take under the Signing profile, and links to the variants
// of its children; the fast paths read it as they read the first.
type WriterTable struct {
	Layout *Layout
	// NumIndex is Layout.NumberIndex(), the layout's index by field
	// number (the same array), beside Slots, for the fast paths:
	// NumIndex[n] is the position of field n plus one, or 0 for none.
	NumIndex []uint32
	// Slots holds what the fast paths read of each field, in the order
	// of Layout.Fields shifted by one, as NumIndex counts: Slots[p+1] is
	// the slot of field p, and Slots[0], the zero slot, whose fast bits
	// are 0, stands for the numbers no field has.
	Slots []WriterSlot
	// Entry is set for the table of a map entry message.
	Entry bool
	// Fields holds, per field of Layout.Fields, the child table and the
	// learned width.
	Fields []WriterField
	// MessageSet is set for MessageSet types, which the Writer refuses.
	MessageSet bool
	// HasRequired is Layout.Required, beside what the fast paths read;
	// Wide: more than 64 fields.
	HasRequired, Wide bool

	// For a map entry: the encodings of the key and of the value at their
	// defaults (written when the caller wrote neither), and the zero
	// key's order.
	DefKey, DefVal []byte
	ZeroKey        uint64

	// Profile is the order and rules the table serves, an
	// encoder.Profile: 0 for proto.Marshal's, else Canonical or Signing.
	// (After what the fast paths read, which keeps its place.)
	Profile uint8
	// Variants holds, in a table of profile 0, its Canonical and Signing
	// variants, built on first use.
	Variants [2]atomic.Pointer[WriterTable]
}

// WriterField is the Writer's record of one field of a table, beside
// the layout's: its child table and learned width.
type WriterField struct {
	Child atomic.Pointer[WriterTable] // the table of the field's message, built on first use
	Learn LearnedWidth                // the learned width of the field's length prefixes
}

// WriterSlot is what the Writer's fast paths read of one field, in the
// table's slots, so that finding and checking a field is a load from the
// layout's index by number, then one from the slots. It takes 64 bytes
// (48, padded), so that indexing the slots is one shift.
type WriterSlot struct {
	F   *Field
	Rec *WriterField // the field's record in the table's Fields
	// Child is the table of the field's message (a map field's entry)
	// once built, when the fast paths may open it (not a MessageSet, at
	// most 64 fields); nil otherwise.
	Child atomic.Pointer[WriterTable]
	Fast  uint32 // the field's bit in the Writer's kind masks, or 0 when every call takes the general path
	Idx   int32  // index in the layout's fields
	// Last is the last current field after which the field may come on
	// the fast paths: for a repeated field, the field itself (another
	// element follows its elements); for another field, the field before
	// the first member of its oneof, or before the field outside oneofs.
	// The members of a oneof are contiguous in the layout's fields, so a
	// message whose current field comes before the first member has none
	// of them written yet. Under a canonical profile a oneof member's is
	// derived from number order (encoder's canonicalLast).
	Last  int32
	Kind  protoreflect.Kind
	Op    wire.Op // F.Elem: how the fast paths write a scalar value (wire.PutWord)
	Flags uint8   // the encoder's slot flags
	NTag  uint8   // len(F.Tag)
	// Tag is F.Tag, little-endian, in the low NTag bytes: a whole word,
	// so that the fast paths write the key and zeros with one store (a
	// uint32 would have the compiler store the zeros byte by byte).
	Tag uint64
	_   [16]byte
}

// WriterExt is the Writer's record of one extension field.
type WriterExt struct {
	F       *Field
	Learned *LearnedWidth
	// Child holds the table of the extension's message, per profile (0,
	// Canonical, Signing), built on first use.
	Child [3]atomic.Pointer[WriterTable]
}

// WriterTable returns the Writer's table of l for proto.Marshal's order,
// or nil before the Writer first builds it.
func (l *Layout) WriterTable() *WriterTable { return l.writer.Load() }

// SetWriterTable keeps t as the Writer's table of l unless l keeps one
// already, and returns the one l keeps.
func (l *Layout) SetWriterTable(t *WriterTable) *WriterTable {
	if l.writer.CompareAndSwap(nil, t) {
		return t
	}
	return l.writer.Load()
}

// WriterExt returns the Writer's record of extension f, or nil before
// the Writer first builds it.
func (f *Field) WriterExt() *WriterExt { return f.writerExt.Load() }

// SetWriterExt keeps x as the Writer's record of extension f unless f
// keeps one already, and returns the one f keeps.
func (f *Field) SetWriterExt(x *WriterExt) *WriterExt {
	if f.writerExt.CompareAndSwap(nil, x) {
		return x
	}
	return f.writerExt.Load()
}

// LearnedWidth learns the width of one field's length prefixes: four
// 8-bit counters, for widths 1 to 4 (width 5 counts as 4), of the widths
// seen in a sample of the bodies (the Writer records one body in 32), and
// the guess, the width seen most often (the smaller on ties; 1 with no
// samples), kept beside the counters in the same word. Reading the guess
// is one plain atomic load; only sampled bodies write, so Writers on many
// goroutines rarely touch the shared cache line. A field whose widths
// vary settles on its most common width, which minimizes its moves.
type LearnedWidth struct{ v atomic.Uint64 }

// Guess returns the width to reserve.
func (s *LearnedWidth) Guess() int {
	return int(s.v.Load()>>32) + 1
}

// Record counts a body whose length needed width w.
func (s *LearnedWidth) Record(w int) {
	w = min(w, 4)
	shift := uint(8 * (w - 1))
	for {
		old := s.v.Load()
		c := uint32(old)
		if (c>>shift)&0xff == 0xff {
			c = (c >> 1) & 0x7f7f7f7f // halve every counter
		}
		c += 1 << shift
		if s.v.CompareAndSwap(old, uint64(modeOf(c))<<32|uint64(c)) {
			return
		}
	}
}

// modeOf returns the width (minus one) whose counter in c is highest, the
// smaller on ties.
func modeOf(c uint32) uint32 {
	best, bc := uint32(0), c&0xff
	for w := uint32(1); w < 4; w++ {
		c >>= 8
		if x := c & 0xff; x > bc {
			best, bc = w, x
		}
	}
	return best
}
