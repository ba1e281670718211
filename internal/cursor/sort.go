package cursor

import (
	"cmp"
	"slices"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/layout"
	"github.com/protolayout/protolayout/internal/wire"
)

// sortExts orders the set extensions in Walker.exts[from:to] by number.
func (w *Walker) sortExts(from, to int) {
	slices.SortFunc(w.exts[from:to], byNumber)
}

func byNumber(a, b extField) int {
	return cmp.Compare(a.FD.Number(), b.FD.Number())
}

// sortSet orders set fields by position: an insertion sort, since most
// messages have few set fields.
func sortSet(s []setField) {
	if len(s) > 24 {
		slices.SortFunc(s, func(a, b setField) int { return cmp.Compare(a.Pos, b.Pos) })
		return
	}
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j].Pos < s[j-1].Pos; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// sortSetByNumber orders set fields of layout lay by field number (a
// oneof member among the others), as sortSet orders them by position.
func sortSetByNumber(s []setField, lay *layout.Layout) {
	num := func(sf setField) protowire.Number { return lay.Fields[sf.Pos].Number }
	if len(s) > 24 {
		slices.SortFunc(s, func(a, b setField) int { return cmp.Compare(num(a), num(b)) })
		return
	}
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && num(s[j]) < num(s[j-1]); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// sortEntries orders map entries by key the way proto.Marshal does in
// deterministic mode: false before true, signed and unsigned integers
// numerically, strings bytewise. It sorts the keys, read once into a
// slice beside their positions, rather than the entries, which are
// larger and whose keys a comparison would convert every time; then it
// puts the entries in that order.
func (w *Walker) sortEntries(es []MapEntry, k protoreflect.Kind) {
	if len(es) < 2 {
		return
	}
	keys := w.keys[:0]
	switch o := wire.KeyOrderOf(k); {
	case o == wire.OrderString:
		for i := range es {
			s := es[i].Key.String()
			keys = append(keys, sortKey{s: s, n: prefix(s), i: int32(i)})
		}
		slices.SortFunc(keys, byStringKey)
	case k == protoreflect.BoolKind:
		// Two entries at most: false first.
		if es[0].Key.Bool() {
			es[0], es[1] = es[1], es[0]
		}
		return
	default:
		for i := range es {
			keys = append(keys, sortKey{n: o.Rank(wire.Word(k, es[i].Key.Value())), i: int32(i)})
		}
		slices.SortFunc(keys, byNumericKey)
	}
	sorted := append(w.sorted[:0], es...)
	for j := range keys {
		es[j] = sorted[keys[j].i]
	}
	clear(keys) // they hold the caller's strings
	clear(sorted)
	w.keys, w.sorted = keys[:0], sorted[:0]
}

// sortKey is a map entry's key, read once for sorting, and the entry's
// position: a string key in s (and its prefix in n), a numeric one in n.
type sortKey struct {
	s string
	n uint64
	i int32
}

func byNumericKey(a, b sortKey) int { return cmp.Compare(a.n, b.n) }

// byStringKey orders string keys bytewise: by their first eight bytes,
// which tell most keys apart in one comparison, then by the whole key.
func byStringKey(a, b sortKey) int {
	if a.n != b.n {
		return cmp.Compare(a.n, b.n)
	}
	return strings.Compare(a.s, b.s)
}

// prefix returns the first eight bytes of s as a big-endian number,
// padded with zeros: prefixes compare as the strings do, or are equal.
func prefix(s string) uint64 {
	if len(s) >= 8 {
		return uint64(s[0])<<56 | uint64(s[1])<<48 | uint64(s[2])<<40 | uint64(s[3])<<32 |
			uint64(s[4])<<24 | uint64(s[5])<<16 | uint64(s[6])<<8 | uint64(s[7])
	}
	var n uint64
	for i := range 8 {
		n <<= 8
		if i < len(s) {
			n |= uint64(s[i])
		}
	}
	return n
}
