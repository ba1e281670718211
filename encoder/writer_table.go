package encoder

import (
	"sync/atomic"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/layout"
	"github.com/protolayout/protolayout/internal/wire"
)

// wtable is the Writer's side table for one layout: per field, what the
// fast paths read (its slot), its child table and its learned
// length-prefix widths. Fields are found by number through the layout's
// own index (layout.Layout.NumberIndex and PositionOfNumber), and its
// required fields are the layout's (RequiredFields). It is built once
// per layout and profile, shared by every Writer and goroutine, and only
// ever changed through atomics.
//
// A table serves one order: proto.Marshal's (profile 0, the table kept in
// the layout), or a canonical profile's (WriterOptions.Canonical), a
// variant built on first use and kept in the first. A variant differs in
// its oneof members' order thresholds (canonicalLast), in which fields
// its fast paths take under Signing (see wslot.init), and links to the
// variants of its children; the fast paths read it as they read the
// first (see posExt for extensions).
type wtable struct {
	lay *layout.Layout
	// numIndex is lay.NumberIndex(), the layout's index by field number
	// (the same array), beside slots, for the fast paths (see next):
	// numIndex[n] is the position of field n plus one, or 0 for none.
	numIndex []uint32
	// slots holds what the fast paths read of each field, in the order
	// of lay.Fields shifted by one, as numIndex counts: slots[p+1] is the
	// slot of field p, and slots[0], the zero slot, whose fast bits are
	// 0, stands for the numbers no field has.
	slots []wslot
	// entry is set for the table of a map entry message.
	entry bool
	// fields holds, per field of lay.Fields, the child table and the
	// learned width.
	fields []wfield
	// messageSet is set for MessageSet types, which the Writer refuses.
	messageSet bool
	// hasRequired is lay.Required, beside what Begin's fast path reads;
	// wide: more than 64 fields (a frame needs writtenHi).
	hasRequired, wide bool

	// For a map entry: the encodings of the key and of the value at their
	// defaults (written by End when the caller wrote neither), and the
	// zero key's order.
	defKey, defVal []byte
	zeroKey        uint64

	// profile is the order and rules the table serves: 0 for
	// proto.Marshal's, else Canonical or Signing. (After what the fast
	// paths read, which keeps its place.)
	profile Profile
	// variants holds, in a table of profile 0, its Canonical and Signing
	// variants, built on first use (see tableFor).
	variants [2]atomic.Pointer[wtable]
}

// tableOf returns the Writer table of l, building it on first use. The
// table is kept in the layout (layout.Layout.Aux), so that it lives as
// long as the layout, and the layout as long as its schema.
func tableOf(l *layout.Layout) *wtable {
	if v := l.Aux.Load(); v != nil {
		return v.(*wtable)
	}
	if t := buildTable(l, 0); l.Aux.CompareAndSwap(nil, t) {
		return t
	}
	return l.Aux.Load().(*wtable)
}

// tableFor returns the Writer table of l for profile p (0, Canonical or
// Signing), building it on first use: tableOf's for 0, else a variant
// kept in it.
func tableFor(l *layout.Layout, p Profile) *wtable {
	t := tableOf(l)
	if p == 0 {
		return t
	}
	v := &t.variants[p-1]
	if c := v.Load(); c != nil {
		return c
	}
	if c := buildTable(l, p); v.CompareAndSwap(nil, c) {
		return c
	}
	return v.Load()
}

func buildTable(l *layout.Layout, p Profile) *wtable {
	t := &wtable{
		lay:        l,
		profile:    p,
		entry:      l.MapEntry,
		fields:     make([]wfield, len(l.Fields)),
		messageSet: l.MessageSet,
	}
	t.hasRequired, t.wide = l.Required, len(l.Fields) > 64
	if t.entry && len(l.Fields) == 2 {
		k, v := &l.Fields[0], &l.Fields[1]
		t.defKey = appendDefault(nil, k)
		t.defVal = appendDefault(nil, v)
		t.zeroKey = keyOrd(k.Kind, 0)
	}
	t.numIndex = l.NumberIndex()
	t.slots = make([]wslot, len(l.Fields)+1)
	for i := range l.Fields {
		s := &t.slots[i+1]
		s.init(l, i, p)
		s.rec = &t.fields[i]
	}
	return t
}

// child returns the table of the message held by field i (the map entry
// message for a map field).
func (t *wtable) child(i int) *wtable {
	if c := t.fields[i].child.Load(); c != nil {
		return c
	}
	f := &t.lay.Fields[i]
	c := childTable(f, t.profile)
	t.fields[i].child.Store(c)
	if !c.messageSet && !c.wide {
		t.slots[i+1].child.Store(c) // for Begin's fast path
	}
	return c
}

// childTable returns the table for profile p of f's message type, or of
// its map entry.
func childTable(f *layout.Field, p Profile) *wtable {
	if f.Map {
		return tableFor(f.Entry(), p)
	}
	return tableFor(f.Message(), p)
}

// packs reports whether the table writes repeated field f packed: as it
// declares, or as the Signing profile packs it (Profile.packs).
func (t *wtable) packs(f *layout.Field) bool {
	return t.profile.packs(f)
}

// wfield is the Writer's record of one field of a table, beside the
// layout's: its child table and learned width.
type wfield struct {
	child atomic.Pointer[wtable] // the table of the field's message, built on first use
	learn learnState             // the learned width of the field's length prefixes
}

// wslot is what the fast paths read of one field, in the table's slots,
// so that finding and checking a field is a load from the layout's index
// by number, then one from the slots. It takes 64 bytes (48, padded), so
// that indexing the slots is one shift.
type wslot struct {
	f   *layout.Field
	rec *wfield // the field's record in the table's fields
	// child is the table of the field's message (a map field's entry)
	// once built, when Begin's or the BeginEntry methods' fast paths may
	// open it (not a MessageSet, at most 64 fields); nil otherwise.
	child atomic.Pointer[wtable]
	fast  uint32 // kindBit(f.Kind), or 0 when every call takes the general path
	idx   int32  // index in the layout's fields
	// last is the last current field (wframe.pos) after which the field
	// may come: for a repeated field, the field itself (another element
	// follows its elements); for another field, the field before the
	// first member of its oneof, or before the field outside oneofs. The
	// members of a oneof are contiguous in the layout's fields, so a
	// frame whose current field comes before the first member has none
	// of them written yet. Under a canonical profile a oneof member's is
	// canonicalLast's.
	last  int32
	kind  protoreflect.Kind
	op    wire.Op // f.Elem: how the fast paths write a scalar value (wire.PutWord)
	flags uint8
	ntag  uint8 // len(f.Tag)
	// tag is f.Tag, little-endian, in the low ntag bytes: a whole word,
	// so that putTag writes the tag and zeros with one store (a uint32
	// would have the compiler store the zeros byte by byte).
	tag uint64
	_   [16]byte
}

// wslot flags
const (
	wfImplicit uint8 = 1 << iota // a zero value is skipped (outside map entries)
	wfUTF8                       // strings are validated
	wf32                         // a 32-bit integer kind
)

func (wf *wslot) init(l *layout.Layout, i int, p Profile) {
	f := &l.Fields[i]
	wf.f, wf.idx, wf.kind, wf.op = f, int32(i), f.Kind, f.Elem
	switch {
	case f.List || f.Map:
		wf.last = int32(i) // never in a oneof
	case f.Oneof >= 0 && p != 0:
		wf.last = canonicalLast(l, &l.Oneofs[f.Oneof])
	case f.Oneof >= 0:
		wf.last = int32(l.Oneofs[f.Oneof].First) - 1
	default:
		wf.last = int32(i) - 1
	}
	entry := l.MapEntry
	// For a map field, kind (and so wf32 below) is its key's.
	kind := f.Kind
	if f.Map {
		kind = f.MapKey.Kind
	}
	// Packed and group fields, tags longer than 4 bytes and the keys of
	// map entries always take the general path; map fields take the
	// BeginEntry methods' fast paths only. So do, under Signing, map
	// fields (which it refuses) and the repeated fields it packs.
	switch {
	case f.Packed || f.Group || len(f.Tag) > 4 || entry && i == 0:
	case p == Signing && (f.Map || f.SigningPacks()):
	case f.Map:
		wf.fast = mapFastBit(kind)
	default:
		wf.fast = kindBit(f.Kind)
	}
	if !f.Explicit && !f.List && !entry { // a map entry writes both its fields
		wf.flags |= wfImplicit
	}
	if f.ValidateUTF8 || f.Map && f.MapKey.ValidateUTF8 {
		wf.flags |= wfUTF8 // for a map field, its keys
	}
	if is32(kind) {
		wf.flags |= wf32
	}
	if len(f.Tag) <= 4 {
		wf.ntag, wf.tag = uint8(len(f.Tag)), f.TagWord
	}
}

// canonicalLast is the last current field after which, under a canonical
// profile, a member of oneof o may come: the last of the leading fields,
// in emission order, numbered below every member of o (-1 for none). A
// frame whose current field is one of them has written nothing numbered
// above it (number order), so nothing of o, and the member comes after
// it. The regular fields need no such threshold of their own: they are
// in number order in the layout, before every oneof member, so the one
// before a regular field is the last numbered below it. Where emission
// order is number order (layout.Layout.InNumberOrder), this is the field
// before o's first member, as in proto.Marshal's order; elsewhere a
// member may come after fewer fields on the fast paths, and the general
// path, which compares numbers, takes the rest.
func canonicalLast(l *layout.Layout, o *layout.Oneof) int32 {
	lo := l.Fields[o.First].Number // members are by ascending number
	k := 0
	for k < len(l.Fields) && l.Fields[k].Number < lo {
		k++
	}
	return int32(k) - 1
}

// extInfo is the Writer's record of one extension field.
type extInfo struct {
	f       *layout.Field
	learned *learnState
	// child holds the table of the extension's message, per profile (0,
	// Canonical, Signing), built on first use.
	child [3]atomic.Pointer[wtable]
}

// extInfoOf returns the Writer's record of extension f, building it on
// first use. It is kept in f (layout.Field.Aux), as tables are in their
// layouts.
func extInfoOf(f *layout.Field) *extInfo {
	if v := f.Aux.Load(); v != nil {
		return v.(*extInfo)
	}
	if x := (&extInfo{f: f, learned: new(learnState)}); f.Aux.CompareAndSwap(nil, x) {
		return x
	}
	return f.Aux.Load().(*extInfo)
}

// table returns the table for profile p of the extension's message.
func (x *extInfo) table(p Profile) *wtable {
	if c := x.child[p].Load(); c != nil {
		return c
	}
	c := childTable(x.f, p)
	x.child[p].Store(c)
	return c
}

// learnState learns the width of one field's length prefixes: four 8-bit
// counters, for widths 1 to 4 (width 5 counts as 4), of the widths seen in
// a sample of the bodies (every learnSample-th body a Writer ends), and
// the guess, the width seen most often (the smaller on ties; 1 with no
// samples), kept beside the counters in the same word. Reading the guess
// is one plain atomic load; only sampled bodies write, so Writers on many
// goroutines rarely touch the shared cache line. A field whose widths vary
// settles on its most common width, which minimizes its moves.
type learnState struct{ v atomic.Uint64 }

// learnSample is the sampling period of learnState.
const learnSample = 32

// guess returns the width to reserve.
func (s *learnState) guess() int {
	return int(s.v.Load()>>32) + 1
}

// record counts a body whose length needed width w.
func (s *learnState) record(w int) {
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

// fieldKindMask returns the bit of kind k in a kind mask.
func kindBit(k protoreflect.Kind) uint32 { return 1 << uint(k) }

// kind masks of the value methods
const (
	maskSigned = 1<<protoreflect.Int32Kind | 1<<protoreflect.Sint32Kind | 1<<protoreflect.Sfixed32Kind |
		1<<protoreflect.Int64Kind | 1<<protoreflect.Sint64Kind | 1<<protoreflect.Sfixed64Kind
	maskUnsigned = 1<<protoreflect.Uint32Kind | 1<<protoreflect.Fixed32Kind |
		1<<protoreflect.Uint64Kind | 1<<protoreflect.Fixed64Kind
	maskFloat   = 1<<protoreflect.FloatKind | 1<<protoreflect.DoubleKind
	maskBool    = 1 << protoreflect.BoolKind
	maskEnum    = 1 << protoreflect.EnumKind
	maskString  = 1<<protoreflect.StringKind | 1<<protoreflect.BytesKind
	maskMessage = 1<<protoreflect.MessageKind | 1<<protoreflect.GroupKind
)

// is32 reports whether kind k holds 32-bit values.
func is32(k protoreflect.Kind) bool {
	switch k {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return true
	}
	return false
}

// appendDefault appends field f with its default value: zero, empty, or
// an enum's default number.
func appendDefault(b []byte, f *layout.Field) []byte {
	b = append(b, f.Tag...)
	switch f.Kind {
	case protoreflect.EnumKind:
		return wire.AppendVarint(b, uint64(int64(f.EnumDefault)))
	case protoreflect.GroupKind:
		return append(b, f.EndTag...)
	}
	if f.Elem.IsScalar() {
		return wire.AppendWord(b, f.Elem, 0)
	}
	return append(b, 0) // an empty string, bytes or message: its zero length
}
