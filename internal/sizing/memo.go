package sizing

import (
	"reflect"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/internal/cursor"
	"github.com/protolayout/protolayout/internal/dynstore"
	"github.com/protolayout/protolayout/internal/layout"
	"github.com/protolayout/protolayout/internal/wire"
)

// The identity memo makes shared subtrees (one message object reachable
// along several paths) cost linear time. When a message part closes whose
// sizing examined more than MemoThreshold content units, its summary is
// remembered by the message's identity for the rest of the call. When the
// same message is entered again, within the depth limit, the walker skips
// it, its summary is added to the enclosing part, and an OpRef points the
// write pass at the first occurrence's OpEnter.
//
// Lookups are kept off the common path: none is made until something is
// remembered, then only for messages of a layout with remembered subtrees
// (of any layout, once more than maxMemoLayouts have some), and a
// dynamicpb message whose address is not in a bit set is not looked up in
// the map.

// MemoThreshold is the number of content units above which a sized subtree
// is remembered by identity within one call.
const MemoThreshold = 64

// maxMemoLayouts bounds the list of layouts known to have remembered
// subtrees; past it, every message is looked up.
const maxMemoLayouts = 8

// seenWords is the size of identityMemo.seen: 4,096 bits, so that with the
// 650 subtrees the OTLP workload remembers, 85% of lookups skip the map.
const seenWords = 64

// summary is what the memo keeps of a sized message part.
type summary struct {
	op     int // index of its OpEnter in Sizer.Tape, or -1 when not recording
	size   int // its body size
	units  int // the content units its sizing examined
	height int // the levels (messages, groups, map entries) below it
}

// identityMemo holds the summaries remembered in one call.
type identityMemo struct {
	// The summaries by identity: dynamicpb messages and those of package
	// dynamic by address (a one-word key, hashed far faster than an
	// interface), the others by interface value.
	dyn   dynTable
	other map[protoreflect.Message]summary
	// seen has a bit set for the address of every message in dyn: a lookup whose bit is clear (most, when nothing is shared)
	// skips the map.
	seen    [seenWords]uint64
	n       int              // entries in dyn and other
	layouts []*layout.Layout // layouts with remembered subtrees
	anyLay  bool             // too many layouts to track: look up everything
}

// seenBit returns the word and bit of address a in identityMemo.seen.
func seenBit(a uintptr) (int, uint64) {
	h := uint64(a) * 0x9e3779b97f4a7c15
	return int(h >> 58), 1 << (h >> 52 & 63)
}

// addrOf returns the address of msg if it is a dynamicpb message or one
// of package dynamic (cursor.Stored), whose summaries the memo keys by
// address, else 0.
func addrOf(msg protoreflect.Message) uintptr {
	if dm, ok := msg.(*dynamicpb.Message); ok {
		return dynstore.Addr(dm)
	}
	if s := cursor.StoredOf(msg); s != nil {
		return dynstore.Addr(s)
	}
	return 0
}

// mayHave reports whether a message of layout lay could have been
// remembered: only messages of a layout with remembered subtrees can.
func (t *identityMemo) mayHave(lay *layout.Layout) bool {
	if t.n == 0 {
		return false
	}
	if !t.anyLay {
		found := false
		for _, l := range t.layouts {
			if l == lay {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// recall returns the summary remembered for msg, if msg can key a map
// (dynamicpb messages can, without asking reflect) and was remembered.
func (t *identityMemo) recall(msg protoreflect.Message, st *Stats) (summary, bool) {
	if a := addrOf(msg); a != 0 {
		st.Lookups++
		if i, b := seenBit(a); t.seen[i]&b == 0 {
			return summary{}, false
		}
		return t.dyn.get(a)
	}
	if !reflect.TypeOf(msg).Comparable() {
		return summary{}, false
	}
	st.Lookups++
	e, ok := t.other[msg]
	return e, ok
}

// reuse is the Enter case of Size for a message met again, entered
// through f in w below the open part top, whose summary e recall returned
// and whose subtree fits within the depth limit there. It skips the
// message in w, adds e to top and records an OpRef to the first
// occurrence; it reports false when top's size then exceeds limit.
func (s *Sizer) reuse(w *cursor.Walker, top *level, f *layout.Field, e summary, rec bool, limit int) bool {
	w.Skip()
	s.Stats.Reused++
	s.recordRef(rec, f, e.size, e.op)
	top.units += e.units
	top.height = max(top.height, e.height+1)
	n, ok := wrapped(f, e.size, limit)
	if ok {
		top.size, ok = wire.AddSize(top.size, n, limit)
	}
	return ok
}

// offer remembers the message part lv, which just closed, if its sizing
// examined more than MemoThreshold content units.
func (t *identityMemo) offer(lv *level, st *Stats) {
	if lv.units > MemoThreshold && lv.msg != nil {
		t.remember(lv, st)
	}
}

// remember stores the summary of the message part lv, which just closed,
// if its message can key a map and is not stored already.
func (t *identityMemo) remember(lv *level, st *Stats) {
	e := summary{op: lv.op, size: lv.size, units: lv.units, height: lv.height}
	if a := addrOf(lv.msg); a != 0 {
		if !t.dyn.add(a, lv.msg, e) {
			return // already there
		}
		i, b := seenBit(a)
		t.seen[i] |= b
	} else {
		if !reflect.TypeOf(lv.msg).Comparable() {
			return
		}
		if t.other == nil {
			t.other = make(map[protoreflect.Message]summary)
		}
		if _, dup := t.other[lv.msg]; dup {
			return
		}
		t.other[lv.msg] = e
	}
	t.n++
	st.Remembered++
	if t.anyLay {
		return
	}
	for _, l := range t.layouts {
		if l == lv.lay {
			return
		}
	}
	if len(t.layouts) == maxMemoLayouts {
		t.anyLay = true
		return
	}
	t.layouts = append(t.layouts, lv.lay)
}

// reset forgets every summary, keeping the maps' space.
func (t *identityMemo) reset() {
	if t.n > 0 {
		t.dyn.reset()
		clear(t.other)
		clear(t.seen[:])
		t.n = 0
	}
	clear(t.layouts)
	t.layouts = t.layouts[:0]
	t.anyLay = false
}

// trim drops the maps that grew past maxRetained entries, before a reset
// between calls.
func (t *identityMemo) trim() {
	if len(t.dyn.slots) > 2*maxRetained {
		t.dyn = dynTable{}
	}
	if len(t.other) > maxRetained {
		t.other = nil
	}
}

// dynTable is the memo's table of dynamicpb messages and messages of
// package dynamic, by address: open addressing with linear probing over a
// power-of-two array, emptied by clearing it. Unlike a Go map, which
// draws a new hash seed when cleared and may then allocate as it fills
// again, a reused table allocates only to grow past its largest size, so
// that a reused Encoder allocates nothing per call. Each slot holds its
// message too, which keeps the address from being reused by another
// object while the call lasts.
type dynTable struct {
	slots []dynSlot
	n     int
}

type dynSlot struct {
	a uintptr // 0: empty
	m protoreflect.Message
	e summary
}

// slot returns the index of the slot of address a, or of the empty slot
// where it would go. len(t.slots) is a power of two and never full.
func (t *dynTable) slot(a uintptr) int {
	mask := len(t.slots) - 1
	i := int(uint64(a)*0x9e3779b97f4a7c15>>32) & mask
	for t.slots[i].a != 0 && t.slots[i].a != a {
		i = (i + 1) & mask
	}
	return i
}

func (t *dynTable) get(a uintptr) (summary, bool) {
	if t.n == 0 {
		return summary{}, false
	}
	s := &t.slots[t.slot(a)]
	return s.e, s.a != 0
}

// add stores e for m, at address a, and reports true, or reports false if
// a is there.
func (t *dynTable) add(a uintptr, m protoreflect.Message, e summary) bool {
	if 2*(t.n+1) > len(t.slots) { // keep it at most half full
		old := t.slots
		t.slots = make([]dynSlot, max(64, 2*len(old)))
		t.n = 0
		for _, s := range old {
			if s.a != 0 {
				t.slots[t.slot(s.a)] = s
				t.n++
			}
		}
	}
	s := &t.slots[t.slot(a)]
	if s.a != 0 {
		return false
	}
	s.a, s.m, s.e = a, m, e
	t.n++
	return true
}

// reset empties the table, keeping its array; it drops every message
// reference.
func (t *dynTable) reset() {
	if t.n > 0 {
		clear(t.slots)
		t.n = 0
	}
}
