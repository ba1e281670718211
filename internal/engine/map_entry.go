package engine

import (
	"cmp"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/fault"
	"github.com/protolayout/protolayout/internal/genstore"
	"github.com/protolayout/protolayout/internal/layout"
	"github.com/protolayout/protolayout/internal/utf8x"
	"github.com/protolayout/protolayout/internal/wire"
)

// Map entries, for both storages: each storage's passes read a map's
// entries their own way (a generated map through reflect, once, into
// the call's recorded entries; a dynamic map from its Go map) into an
// entry, and size, check, sort and write it here. Only a message value
// is counted and written by its own storage's pass.

// entry is a map entry: its key (the word kw, or the string ks) and its
// value (the word vw, the string vs, the bytes vb, or a message: vp in a
// generated map, vm in a dynamic one).
type entry struct {
	kw uint64
	ks string
	vw uint64
	vs string
	vb []byte
	vp genstore.Pointer
	vm *Message
}

// set makes en the entry of key w or s and value v of the dynamic map
// field f (setting only what entries of f hold, so that one entry serves
// a whole map); false for a message value of another storage, which the
// walk takes.
func (en *entry) set(f *encField, w uint64, s string, v protoreflect.Value) bool {
	en.kw, en.ks = w, s
	switch f.Elem {
	case wire.OpString:
		en.vs = v.String()
	case wire.OpBytes:
		en.vb = v.Bytes()
	case wire.OpMessage:
		c, ok := v.Message().(*Message)
		en.vm = c
		return ok
	default:
		en.vw = wire.Word(f.more.valueKind, v)
	}
	return true
}

// sortKey is a map entry's key being sorted: its rank in the key order
// (wire.KeyOrder.Rank) or its string, and its index among the entries.
type sortKey struct {
	rank uint64
	s    string
	i    int
}

// sortEntries sorts the entries of a map of key order o by key, the
// deterministic order. It sorts their keys, which are smaller than the
// entries, with their ranks taken once, then moves each entry once to
// its place. (Not inlined, which keeps the passes' loops lean.)
//
//go:noinline
func (st *State) sortEntries(entries []entry, o wire.KeyOrder) {
	keys := st.keys[:0]
	for i := range entries {
		en := &entries[i]
		keys = append(keys, sortKey{rank: o.Rank(en.kw), s: en.ks, i: i})
	}
	if o == wire.OrderString {
		slices.SortFunc(keys, func(a, b sortKey) int { return cmp.Compare(a.s, b.s) })
	} else {
		slices.SortFunc(keys, func(a, b sortKey) int { return cmp.Compare(a.rank, b.rank) })
	}
	// Place k takes the entry at keys[k].i: follow each cycle of the
	// permutation, marking the places filled.
	for k := range keys {
		if keys[k].i < 0 {
			continue
		}
		first := entries[k]
		j := k
		for {
			from := keys[j].i
			keys[j].i = -1
			if from == k {
				entries[j] = first
				break
			}
			entries[j] = entries[from]
			j = from
		}
	}
	clear(keys)
	st.keys = keys[:0]
}

// invalidUTF8 reports whether the key or the value of en, an entry of
// the map r, x, fails the UTF-8 check its field asks for: key for the
// key, which is checked first, or value.
func (en *entry) invalidUTF8(r *layout.Rec, x *layout.RecMore) (key, value bool) {
	// invalidText, inline: every entry of a map of strings is tested.
	if x.KeyUTF8 && !utf8x.ShortASCII(en.ks) && !utf8x.ValidString(en.ks) {
		return true, false
	}
	return false, r.Elem == wire.OpString && r.UTF8 && !utf8x.ShortASCII(en.vs) && !utf8x.ValidString(en.vs)
}

// invalidEntry records the fault of en, an entry of the map of layout
// record lf whose key (key) or value fails its UTF-8 check
// (invalidUTF8), for the size pass, which returns false.
//
//go:noinline
func (e *enc) invalidEntry(lf *layout.Field, en *entry, key bool) bool {
	bad := lf.MapValue
	if key {
		bad = lf.MapKey
	}
	e.trail.Fail(fault.InvalidUTF8, bad, 0)
	e.trail.EnterEntry(lf, en.kw, en.ks, false)
	return false
}

// deepEntry is the size pass's check of a message value at addr, of an
// entry of the map of layout record lf, past the level from which the
// call checks depth and cycles (enc.levels): false, with the fault
// recorded with the entry, if the value is past the depth limit or
// reached again through itself.
//
//go:noinline
func (e *enc) deepEntry(lf *layout.Field, en *entry, addr uintptr, depth int) bool {
	if e.levels.Check(e.trail, lf.MapValue, addr, depth+2, true) {
		e.trail.EnterEntry(lf, en.kw, en.ks, false)
		return false
	}
	return true
}

// entryLen returns the length of the body of en, an entry of the map r,
// x: its key and its value, both always written, where vn is the size
// of a message value; false if it does not fit within limit.
func entryLen(r *layout.Rec, x *layout.RecMore, en *entry, vn, limit int) (int, bool) {
	n := 2 // the keys of fields 1 and 2
	if x.Key == wire.OpString {
		if !wire.Fits(n, len(en.ks), limit) {
			return 0, false
		}
		n += protowire.SizeBytes(len(en.ks))
	} else {
		n += wire.SizeWord(x.Key, en.kw)
	}
	var k int
	switch r.Elem {
	case wire.OpString:
		k = len(en.vs)
	case wire.OpBytes:
		k = len(en.vb)
	case wire.OpMessage:
		k = vn
	default:
		return n + wire.SizeWord(r.Elem, en.vw), true
	}
	if !wire.Fits(n, k, limit) {
		return 0, false
	}
	return n + protowire.SizeBytes(k), true
}

// appendEntry appends en, an entry of the map r, x, with the map's key:
// the entry's length, key and value, but of a message value of vn bytes
// its length only, for the caller to append the message; false if the
// entry does not fit within limit (entryLen).
func appendEntry(b []byte, r *layout.Rec, x *layout.RecMore, en *entry, vn, limit int) ([]byte, bool) {
	n, ok := entryLen(r, x, en, vn, limit)
	if !ok {
		return b, false
	}
	b = wire.AppendVarint(r.AppendKey(b), uint64(n))
	b = append(b, x.KeyTag)
	if x.Key == wire.OpString {
		b = appendString(b, en.ks)
	} else {
		b = wire.AppendWord(b, x.Key, en.kw)
	}
	b = append(b, x.ValueTag)
	switch r.Elem {
	case wire.OpString:
		b = appendString(b, en.vs)
	case wire.OpBytes:
		b = wire.AppendVarint(b, uint64(len(en.vb)))
		b = append(b, en.vb...)
	case wire.OpMessage:
		b = wire.AppendVarint(b, uint64(vn))
	default:
		b = wire.AppendWord(b, r.Elem, en.vw)
	}
	return b, true
}
