package engine

import (
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/protolayout/protolayout/internal/fault"
	"github.com/protolayout/protolayout/internal/genstore"
	"github.com/protolayout/protolayout/internal/layout"
)

// The size limit, named as the walk names it. The walk adds a message's
// items (a value, an element of an unpacked list, a packed list, a
// nested message or map entry once closed, the unknown bytes) to the
// running sum of the part that holds them, and fails on the first item,
// in emission order, with which the sum of a part passes the limit,
// naming the item's field; a part whose own sum passes the limit does so
// before it is closed, so that the walk fails inside it.
//
// The size pass of either storage counts each message whole (where int
// has 64 bits, a list, a map or extensions past the limit too: within)
// and checks its total as it ends it (sizeUnknown). The first message
// whose total passes the limit holds none that did: unless a message
// above it had counted past the limit before it, the walk fails on one
// of its own items. exceeded counts them again, in the walk's order
// (nested messages read their stamped sizes, or, generated ones, are
// counted again), finds the one with which the sum passes the limit
// (fault.Crossing) and records it (fault.Trail.Exceeded); the levels the
// fault passes up through add what they had counted before it, and the
// trail keeps it only where each is within the limit. So too where a
// required field not set follows fields that count past the limit.
//
// Left to the walk: the canonical profiles (whose programs merge
// extensions among the fields); a map past the limit within which the
// sum passes it (an entry may pass it by itself: Crossing.Names); a
// message that passes the limit, or another fault, after a message above
// it had counted past the limit before it (the trail drops the fault); a
// generated packed list of more elements than the limit (genSizeList
// gives up before counting it); and a limit above maxSize
// (enc.sizeFaults). Where int has 32 bits, the size pass checks each sum
// as it counts it (wire.Fits) and gives up where one passes the limit;
// the message that gave up is then counted again (nameGiveUp), so that
// more is named there than with 64 bits: the item of the first message
// whose running sum passes the limit, where a message above it had
// counted past the limit too, and a generated packed list counted whole.

// nameGiveUp reports whether the count of a message that gave up without
// a fault is to name the size limit (exceeded): where int has 32 bits a
// running sum is checked as it is counted (wire.Fits) and gives up where
// it passes the limit, before the message's total is checked. Only the
// first message to give up in a call asks: exceeded counts it again and
// names the limit where its sum passes it before anything gave up;
// otherwise the messages holding it give up with it, as they do with 64
// bits, where a message that gave up is not counted whole.
func (e *enc) nameGiveUp() bool {
	if e.trail.Failed() || e.gaveUp {
		return false
	}
	e.gaveUp = true
	return true
}

// exceeded ends the size pass over m, at level depth, whose count passed
// the limit: it records the item at which the walk names the limit
// (locate), and returns false, for the caller to return. (Not inlined:
// it is off the size pass's common path.)
//
//go:noinline
func (e *enc) exceeded(m *Message, depth int) bool {
	s, ok := e.startLocating()
	if !ok {
		return false
	}
	f, n, ok := e.locate(m, depth)
	return e.stopLocating(s, f, n, ok)
}

// genExceeded is exceeded for the generated message at ptr of program p.
//
//go:noinline
func (e *enc) genExceeded(p *program, ptr genstore.Pointer, depth int) bool {
	s, ok := e.startLocating()
	if !ok {
		return false
	}
	f, n, ok := e.genLocate(p, ptr, depth)
	return e.stopLocating(s, f, n, ok)
}

// startLocating readies the call to count a message again (locate),
// with nothing in the trail and maxSize as its limit, so as to count
// what passes the limit; false means the size fault is not to be named
// (Options, or a count under way, or a fault recorded already).
func (e *enc) startLocating() (fault.Saved, bool) {
	if !e.sizeFaults || e.locating || e.trail.Failed() {
		return fault.Saved{}, false
	}
	s := e.trail.Save()
	e.locating, e.maxSize = true, maxSize
	return s, true
}

// stopLocating ends what startLocating began, dropping anything recorded
// meanwhile, and records the size fault at item f, after n bytes, if ok;
// it returns false.
func (e *enc) stopLocating(s fault.Saved, f *layout.Field, n int, ok bool) bool {
	e.locating, e.maxSize = false, e.limit
	e.trail.Restore(s)
	if ok {
		e.trail.Exceeded(f, n)
	}
	return false
}

// locate returns the item of m, at level depth, with which the walk's
// running sum of m passes the limit: its field (nil for the unknown
// bytes) and the bytes before it; ok is false if it found none.
func (e *enc) locate(m *Message, depth int) (f *layout.Field, n int, ok bool) {
	c := fault.Crossing{Limit: e.limit}
	rare := m.rareOf()
	if rare != nil {
		for i := range rare.ext {
			x := &rare.ext[i]
			if !extensionSet(x.fd, x.v) {
				continue
			}
			k, _, ok := e.sizeExtension(x.rec, x.v, depth)
			if !ok {
				return nil, 0, false
			}
			if c.Add(k) {
				return x.rec.more.lf, c.N, c.Names(x.rec.more.lf, k)
			}
		}
	}
	p := m.t.shape.program()
	words := m.words()
	var found *encField
	var size int
	ok = p.eachWide(words, m.t.shape, p.regular, func(f *encField) bool {
		k, fine := e.sizeField(m, words, f, depth)
		if fine && c.Add(k) {
			found, size = f, k
			return false
		}
		return fine
	})
	if found != nil {
		return found.more.lf, c.N, c.Names(found.more.lf, size)
	}
	if !ok {
		return nil, 0, false
	}
	for _, o := range p.oneofs {
		if w := words[o]; w != 0 {
			f := &p.fields[p.position[w-1]]
			k, ok := e.sizeField(m, words, f, depth)
			if !ok {
				return nil, 0, false
			}
			if c.Add(k) {
				return f.more.lf, c.N, c.Names(f.more.lf, k)
			}
		}
	}
	if rare != nil && c.Add(len(rare.unknown)) {
		return nil, c.N, true
	}
	return nil, 0, false
}

// genLocate is locate for the generated message at ptr of program p.
func (e *enc) genLocate(p *program, ptr genstore.Pointer, depth int) (f *layout.Field, n int, ok bool) {
	// Visited again: not repeats of a shared subtree.
	e.st.newSeenEpoch()
	e.repeats = 0
	c := fault.Crossing{Limit: e.limit}
	if !p.simple && p.st.ExtensionsLen(ptr) > 0 {
		start, k, ok := e.genRecordExtensions(p, ptr, 0, protowire.MaxValidNumber+1)
		if !ok {
			return nil, 0, false
		}
		for i := range k {
			x := e.st.exts[start+i]
			y, _, ok := e.sizeExtension(x.rec, x.v, depth)
			if !ok {
				return nil, 0, false
			}
			if c.Add(y) {
				return x.rec.more.lf, c.N, c.Names(x.rec.more.lf, y)
			}
		}
	}
	u := p.st.Unknown(ptr)
	for i := range p.regular {
		// A program of the one field, which counts it and the unknown
		// bytes.
		one := program{st: p.st, fields: p.fields[i : i+1], regular: 1, simple: true}
		y, ok := e.genSize(&one, ptr, depth)
		if !ok {
			return nil, 0, false
		}
		if c.Add(y - len(u)) {
			return p.fields[i].sf.Layout, c.N, c.Names(p.fields[i].sf.Layout, y-len(u))
		}
	}
	for _, o := range p.oneofs {
		pos, w := o.Which(ptr)
		if pos < 0 {
			continue
		}
		y, ok := e.sizeMember(&p.fields[pos], w, depth)
		if !ok {
			return nil, 0, false
		}
		if c.Add(y) {
			return p.fields[pos].sf.Layout, c.N, c.Names(p.fields[pos].sf.Layout, y)
		}
	}
	if c.Add(len(u)) {
		return nil, c.N, true
	}
	return nil, 0, false
}
