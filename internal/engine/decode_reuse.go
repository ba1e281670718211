package engine

import (
	"reflect"
	"slices"

	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/protolayout/protolayout/internal/slots"
)

// A Decoder is dynamic.Decoder's state, which documents it: an arena
// kept from call to call, whose chunks of storage blocks and of list
// elements are cut again once the values cut from them are released.
//
// What a caller can hold is never cut again: a message's header (the
// *Message), a list's header, strings and bytes (data chunks), type
// records, maps and extension values are new in every call. Release
// makes every header the calls since the last release cut read-only and
// empty (a message's block nil, a list's elements none) before their
// blocks and arrays are cut again, so that a message or list kept past
// its release can no longer reach storage that another message now
// holds.
type Decoder struct {
	o decodeOptions
	r reuse
}

// reuse is the part of a Decoder's arena that outlives a call.
type reuse struct {
	// budget is the bytes of arrays the chunks and slabs may still keep
	// (a chunk keeps an array while it fits; see slots.Chunk.Keep).
	budget int64
	// limit is the budget's bound, which a change of MaxKeep resets it
	// to.
	limit int64
	// headers is the array the messages' headers are cut from, apart
	// from their blocks (next is the index of the next one); made holds
	// the arrays of the calls since the last release, for release;
	// taken counts the headers those before the last release took,
	// which size the first arrays after it, and done those of the full
	// arrays since; lsKeep notes the arrays of the
	// lists' headers (the arena's ls) likewise.
	headers []Message
	next    int
	made    [][]Message
	taken   int
	done    int
	lsKeep  slabKeep[list]
	// the kept arrays of the list elements' slabs.
	words  slabKeep[uint64]
	lstrs  slabKeep[string]
	lbytes slabKeep[[]byte]
	lmsgs  slabKeep[*Message]
	// merge is set in a call with Merge, whose lists of the messages
	// it merged into are noted in merged, since they may grow into
	// this arena's arrays.
	merge  bool
	merged []*list
}

// slabKeep is a slab's part in a Decoder's arena: kept holds the arrays
// it keeps for the next calls (pos how many of them this call took) and
// made, when track is set, the arrays of the calls since the last
// release, whose values release clears (the headers a caller holds,
// which are never cut again).
type slabKeep[T any] struct {
	kept   [][]T
	pos    int
	budget *int64
	track  bool
	made   [][]T
}

// array returns a zeroed array of n Ts at least: the next kept array
// (cleared by rewind) if it is long enough, or a new one, which the slab
// keeps while the budget has room for it, or notes as made.
func (k *slabKeep[T]) array(n int) []T {
	if k.pos < len(k.kept) && len(k.kept[k.pos]) >= n {
		r := k.kept[k.pos]
		k.pos++
		return r
	}
	r := make([]T, n)
	if k.track {
		k.made = append(k.made, r)
		return r
	}
	if size := int64(n) * int64(reflect.TypeFor[T]().Size()); *k.budget >= size {
		*k.budget -= size
		k.kept = slices.Insert(k.kept, k.pos, r)
		k.pos++
	}
	return r
}

// rewind clears the kept arrays the calls since the last rewind took, so
// that they keep nothing alive, for the next calls to take them again.
func (k *slabKeep[T]) rewind() {
	for _, a := range k.kept[:k.pos] {
		clear(a)
	}
	k.pos = 0
}

// drop forgets the kept arrays, giving their bytes back to the budget.
func (k *slabKeep[T]) drop() {
	size := int64(reflect.TypeFor[T]().Size())
	for _, a := range k.kept {
		*k.budget += int64(len(a)) * size
	}
	clear(k.kept)
	k.kept, k.pos = k.kept[:0], 0
}

// DefaultMaxKeep is the bytes of storage a Decoder keeps between calls
// when MaxKeep is zero (dynamic.DefaultMaxKeep).
const DefaultMaxKeep = 4 << 20

// keepIdle is how many releases in a row a message type's chunk may go
// unused before a Decoder drops its arrays, so that the types it decodes
// now get the budget.
const keepIdle = 8

// cut returns a new empty message from c, the chunk of its shape, whose
// type c has: a new header, and a block from c.
func (r *reuse) cut(c *shapeChunk) *Message {
	m := r.header()
	if c.c.Spent() {
		c.c.Refill(&c.s.slots, 2, chunkBytes, chunkBytes)
	}
	m.t, m.block = c.t, slots.Cut(&c.c, &c.s.slots)
	return m
}

// header returns a new header, which the next release makes read-only.
func (r *reuse) header() *Message {
	if r.next == len(r.headers) {
		r.moreHeaders()
	}
	m := &r.headers[r.next]
	r.next++
	return m
}

// moreHeaders starts a new array of headers: as many as the calls since
// the last release took, at first, then doubling, within a chunk.
func (r *reuse) moreHeaders() {
	n := 2 * len(r.headers)
	if rest := r.taken - r.done; rest > 0 {
		n = rest
	}
	r.done += len(r.headers)
	r.headers, r.next = make([]Message, min(max(16, n), headersLimit)), 0
	r.made = append(r.made, r.headers)
}

// grown notes l, a list of a message the call merges into, whose
// elements may move into this arena's arrays.
func (r *reuse) grown(l *list) {
	if n := len(r.merged); n == 0 || r.merged[n-1] != l {
		r.merged = append(r.merged, l)
	}
}

// Unmarshal decodes b into m as the package's Unmarshal does, from d's
// arena, whose values are released first unless o.Merge is set; keep is
// the bound of what d keeps between calls (0: DefaultMaxKeep, negative:
// nothing).
func (d *Decoder) Unmarshal(b []byte, m *Message, o UnmarshalOptions, keep int64) error {
	switch {
	case keep == 0:
		keep = DefaultMaxKeep
	case keep < 0:
		keep = 0
	}
	if !o.Merge {
		d.Release()
		m.Reset()
	}
	if d.o.reuse == nil || d.r.limit != keep {
		d.start(keep)
	}
	d.r.merge = o.Merge
	limit, depth := o.limits(len(b))
	x := &d.o
	x.restart()
	x.discard, x.resolver, x.limit, x.unchecked = o.DiscardUnknown, o.Resolver, limit, false
	if x.resolver == nil {
		x.resolver = protoregistry.GlobalTypes
	}
	if err := x.top(b, m, depth); err != nil {
		return err
	}
	if o.AllowPartial {
		return nil
	}
	return m.checkInitialized()
}

// start makes d's arena a reusing one, keeping up to keep bytes (all it
// kept before dropped).
func (d *Decoder) start(keep int64) {
	r := &d.r
	d.drop()
	r.limit, r.budget = keep, keep
	r.lsKeep.track = true
	r.words.budget, r.lstrs.budget, r.lbytes.budget, r.lmsgs.budget = &r.budget, &r.budget, &r.budget, &r.budget
	a := &d.o.arena
	a.reuse = r
	a.ls.keep, a.words.keep, a.lstrs.keep, a.lbytes.keep, a.lmsgs.keep = &r.lsKeep, &r.words, &r.lstrs, &r.lbytes, &r.lmsgs
	for i := range a.nblock {
		a.tab.blocks[i].c.Keep(&r.budget)
	}
	for _, c := range a.more {
		c.c.Keep(&r.budget)
	}
}

// drop gives back every array d keeps.
func (d *Decoder) drop() {
	a := &d.o.arena
	for i := range a.nblock {
		a.tab.blocks[i].c.Drop()
	}
	for _, c := range a.more {
		c.c.Drop()
	}
	d.r.words.drop()
	d.r.lstrs.drop()
	d.r.lbytes.drop()
	d.r.lmsgs.drop()
}

// Release releases every message and list the calls since the last
// release decoded (dynamic.Decoder.Reset): each reads as empty and
// read-only from then on, and its storage is cut again by the next
// calls. The arrays of a message type unused for keepIdle releases are
// dropped.
func (d *Decoder) Release() {
	r := &d.r
	taken := 0
	for _, hs := range r.made {
		for i := range hs {
			hs[i].block = slots.Block{}
		}
		taken += len(hs)
	}
	if n := len(r.made); n > 0 {
		taken -= len(r.headers) - r.next
	}
	clear(r.made)
	r.made, r.headers, r.next, r.taken, r.done = r.made[:0], nil, 0, taken, 0
	for _, ls := range r.lsKeep.made {
		for i := range ls {
			// The call's own list types, which no other list shares.
			if l := &ls[i]; l.listType != nil {
				l.listType.valid = false
				l.elems = slots.Vec{}
			}
		}
	}
	clear(r.lsKeep.made)
	r.lsKeep.made = r.lsKeep.made[:0]
	for _, l := range r.merged {
		// A list of a message merged into, whose type other lists may
		// share: a read-only type of its own.
		l.listType = new(listType)
		l.listType.init(l.fd, l.kind, false)
		l.elems = slots.Vec{}
	}
	clear(r.merged)
	r.merged = r.merged[:0]
	a := &d.o.arena
	for i := range a.nblock {
		if c := &a.tab.blocks[i]; c.c.Rewind() >= keepIdle {
			c.c.Drop()
		}
	}
	for s, c := range a.more {
		if c.c.Rewind() >= keepIdle {
			c.c.Drop()
			delete(a.more, s)
		}
	}
	a.ls.restart()
	a.words.restart()
	a.lstrs.restart()
	a.lbytes.restart()
	a.lmsgs.restart()
}

// restart readies the slab for a call cut from the arrays it keeps.
func (s *slab[T]) restart() {
	s.chunk, s.next, s.expect, s.taken = nil, 0, 0, 0
	if s.keep != nil {
		s.keep.rewind()
	}
}

// restart readies a Decoder's arena for a call: its per-call state as a
// new arena's, its chunks and kept arrays as they are.
func (a *arena) restart() {
	for i := range a.nblock {
		c := &a.tab.blocks[i]
		c.t, c.n = nil, 0
	}
	for _, c := range a.more {
		c.t, c.n = nil, 0
	}
	a.types = slab[callType]{}
	// What this call takes, for its hints, from slabs that a call with
	// Merge does not restart.
	a.words.taken, a.ls.taken, a.lstrs.taken, a.lbytes.taken, a.lmsgs.taken = 0, 0, 0, 0, 0
	if a.tab != nil {
		a.tab.clearListTypes()
	}
	a.data, a.dataNext, a.dataExpect, a.dataTaken = nil, 0, 0, 0
	a.room, a.required, a.used = 0, false, 0
}
