package encoder

import (
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/layout"
	"github.com/protolayout/protolayout/internal/wire"
)

// The Writer's records are types of package layout (see
// layout.WriterTable), so that the layouts and extension records keep
// them typed and release them with themselves; this package builds,
// fills and reads them under these names.
type (
	// wtable is the Writer's table of one layout for one order (profile):
	// per field, its slot, child table and learned width.
	wtable = layout.WriterTable
	// wslot is what the fast paths read of one field.
	wslot = layout.WriterSlot
	// wfield is the Writer's record of one field of a table: its child
	// table and learned width.
	wfield = layout.WriterField
	// extInfo is the Writer's record of one extension field.
	extInfo = layout.WriterExt
	// learnState learns the width of one field's length prefixes.
	learnState = layout.LearnedWidth
)

// profileOf returns the profile table t serves.
func profileOf(t *wtable) Profile { return Profile(t.Profile) }

// tableOf returns the Writer table of l, building it on first use. The
// layout keeps the table (layout.Layout.WriterTable), so that it lives as
// long as the layout, and the layout as long as its schema.
func tableOf(l *layout.Layout) *wtable {
	if t := l.WriterTable(); t != nil {
		return t
	}
	return l.SetWriterTable(buildTable(l, 0))
}

// tableFor returns the Writer table of l for profile p (0, Canonical or
// Signing), building it on first use: tableOf's for 0, else a variant
// kept in it.
func tableFor(l *layout.Layout, p Profile) *wtable {
	t := tableOf(l)
	if p == 0 {
		return t
	}
	v := &t.Variants[p-1]
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
		Layout:     l,
		Profile:    uint8(p),
		Entry:      l.MapEntry,
		Fields:     make([]wfield, len(l.Fields)),
		MessageSet: l.MessageSet,
	}
	t.HasRequired, t.Wide = l.Required, len(l.Fields) > 64
	if t.Entry && len(l.Fields) == 2 {
		k, v := &l.Fields[0], &l.Fields[1]
		t.DefKey = appendDefault(nil, k)
		t.DefVal = appendDefault(nil, v)
		t.ZeroKey = keyOrd(k.Kind, 0)
	}
	t.NumIndex = l.NumberIndex()
	t.Slots = make([]wslot, len(l.Fields)+1)
	for i := range l.Fields {
		s := &t.Slots[i+1]
		initSlot(s, l, i, p)
		s.Rec = &t.Fields[i]
	}
	return t
}

// childOf returns the table of the message held by field i of t (the map
// entry message for a map field).
func childOf(t *wtable, i int) *wtable {
	if c := t.Fields[i].Child.Load(); c != nil {
		return c
	}
	f := &t.Layout.Fields[i]
	c := childTable(f, profileOf(t))
	t.Fields[i].Child.Store(c)
	if !c.MessageSet && !c.Wide {
		t.Slots[i+1].Child.Store(c) // for Begin's fast path
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

// wslot flags
const (
	wfImplicit uint8 = 1 << iota // a zero value is skipped (outside map entries)
	wfUTF8                       // strings are validated
	wf32                         // a 32-bit integer kind
)

// initSlot fills the slot wf of field i of l for profile p.
func initSlot(wf *wslot, l *layout.Layout, i int, p Profile) {
	f := &l.Fields[i]
	wf.F, wf.Idx, wf.Kind, wf.Op = f, int32(i), f.Kind, f.Elem
	switch {
	case f.List || f.Map:
		wf.Last = int32(i) // never in a oneof
	case f.Oneof >= 0 && p != 0:
		wf.Last = canonicalLast(l, &l.Oneofs[f.Oneof])
	case f.Oneof >= 0:
		wf.Last = int32(l.Oneofs[f.Oneof].First) - 1
	default:
		wf.Last = int32(i) - 1
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
		wf.Fast = mapFastBit(kind)
	default:
		wf.Fast = kindBit(f.Kind)
	}
	if !f.Explicit && !f.List && !entry { // a map entry writes both its fields
		wf.Flags |= wfImplicit
	}
	if f.ValidateUTF8 || f.Map && f.MapKey.ValidateUTF8 {
		wf.Flags |= wfUTF8 // for a map field, its keys
	}
	if is32(kind) {
		wf.Flags |= wf32
	}
	if len(f.Tag) <= 4 {
		wf.NTag, wf.Tag = uint8(len(f.Tag)), f.TagWord
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

// extInfoOf returns the Writer's record of extension f, building it on
// first use. f keeps it (layout.Field.WriterExt), as layouts keep their
// tables.
func extInfoOf(f *layout.Field) *extInfo {
	if x := f.WriterExt(); x != nil {
		return x
	}
	return f.SetWriterExt(&extInfo{F: f, Learned: new(learnState)})
}

// extTable returns the table for profile p of extension x's message.
func extTable(x *extInfo, p Profile) *wtable {
	if c := x.Child[p].Load(); c != nil {
		return c
	}
	c := childTable(x.F, p)
	x.Child[p].Store(c)
	return c
}

// learnSample is the sampling period of the learned widths
// (learnState): the Writer records one body in learnSample.
const learnSample = 32

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
