package engine

import (
	"cmp"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/runtime/protoimpl"

	"github.com/protolayout/protolayout/internal/genstore"
)

// Extensions. The size pass reads a message's extension fields
// (genstore's Storage.Extensions), records the set ones in the call's
// exts, sorted by number, and sizes them. The write pass writes them
// first in the message, as proto.Marshal does: it reads the fields
// again, as it reads every other field again, and gives up unless they
// are the ones recorded (as many set, each of the recorded number and
// field record); the values it writes are checked by the lengths and the
// total as any other. Values are read through protobuf-go's accessors
// (ExtensionField.Value, protoreflect lists and messages, which may
// allocate where protobuf-go's do: decoding a lazily decoded extension)
// and written by their field records (layout.Extension) with
// internal/wire's rules, as the walk writes them.

// ext is a set extension of a message, recorded by the size pass for the
// write pass.
type ext struct {
	// rec is the extension's record for the passes (extField); its
	// layout record is rec.more.lf.
	rec *encField
	// v is the value the size pass read; the write pass reads it again.
	v protoreflect.Value
	// child is the program of the value's messages (of the last, for a
	// list), found by the size pass; nil for other kinds.
	child *program
	// owner is the address of the message holding the extension; run is,
	// on the first extension of a message, how many it has (0 on the
	// others): the write pass takes a message's run only where its owner
	// is the message being written.
	owner uintptr
	run   int32
}

// extensionValue returns the value of the extension entry x and whether
// it is set, as protoreflect's Range decides (an entry with a type whose
// value is not an empty list); ok is false for an entry without a type,
// on which Range panics, left to the walk.
func extensionValue(x *protoimpl.ExtensionFieldV1) (v protoreflect.Value, set, ok bool) {
	if !x.IsSet() {
		return v, false, false
	}
	v = x.Value()
	if x.Type().TypeDescriptor().IsList() && v.List().Len() == 0 {
		return v, false, true
	}
	return v, true, true
}

// sizeExtensions returns the size of the set extensions of the message
// at ptr of program p, at level depth, keys included, and records them,
// sorted by number, for the write pass.
func (e *enc) genSizeExtensions(p *program, ptr genstore.Pointer, depth int) (int, bool) {
	start, k, ok := e.genRecordExtensions(p, ptr, 0, protowire.MaxValidNumber+1)
	if !ok {
		return 0, false
	}
	n := 0
	for i := range k {
		// Copied: sizing a message value may append its own extensions,
		// and so move the slice.
		x := e.st.exts[start+i]
		y, c, ok := e.sizeExtension(x.rec, x.v, depth)
		if !e.trail.Counted(n, y, ok, e.maxSize) {
			return 0, false
		}
		e.st.exts[start+i].child = c
		n += y
	}
	return n, e.within(n)
}

// genRecordExtensions records the set extensions of the message at ptr
// of program p numbered from from to below (below excluded) in the
// call's exts, sorted by number, for both passes: k of them from start.
func (e *enc) genRecordExtensions(p *program, ptr genstore.Pointer, from, below protowire.Number) (start, k int, ok bool) {
	start = len(e.st.exts)
	owner := ptr.Addr()
	for num, x := range p.st.Extensions(ptr) {
		if !inRange(num, from, below) {
			continue
		}
		v, set, ok := extensionValue(&x)
		if !ok {
			return 0, 0, false
		}
		if !set {
			continue
		}
		rec := extField(x.Type().TypeDescriptor())
		if rec.more.lf.Map || !v.IsValid() {
			return 0, 0, false
		}
		e.st.exts = append(e.st.exts, ext{rec: rec, v: v, owner: owner})
	}
	k = len(e.st.exts) - start
	if k == 0 {
		return start, 0, true
	}
	slices.SortFunc(e.st.exts[start:], func(a, b ext) int { return cmp.Compare(a.rec.more.lf.Number, b.rec.more.lf.Number) })
	e.st.exts[start].run = int32(k)
	return start, k, true
}

// extMessage returns the program and the pointer of m, a message value of
// an extension, if it is a generated message of a type the engine reads:
// hint, the program of the extension's last message, first, else the
// program of m's descriptor and type (as programOf finds it).
func extMessage(m protoreflect.Message, hint *program) (*program, genstore.Pointer, bool) {
	if !m.IsValid() {
		return nil, genstore.Pointer{}, false
	}
	pm := m.Interface()
	if hint != nil {
		if c, ok := hint.st.PointerOf(pm); ok {
			return hint, c, !c.IsNil()
		}
	}
	p := programOf(m.Descriptor(), m.Type())
	if p.err != nil {
		return nil, genstore.Pointer{}, false
	}
	c, ok := p.st.PointerOf(pm)
	return p, c, ok && !c.IsNil()
}

// variantOf returns the program the call runs for messages of program
// p: its canonical variant under Options.Canonical (p itself if it is
// one), else p.
func (e *enc) variantOf(p *program) *program {
	if !e.canon || p.base != nil {
		return p
	}
	if e.signing {
		return p.canonical(signingVar)
	}
	return p.canonical(canonicalVar)
}

// hasExtensions reports whether the next extensions the size pass
// recorded are those of the message at ptr.
func (e *enc) hasExtensions(ptr genstore.Pointer) bool {
	i := e.nextExt
	return i < len(e.st.exts) && e.st.exts[i].run > 0 && e.st.exts[i].owner == ptr.Addr()
}

// genAppendExtensions appends the set extensions numbered from from to
// below (below excluded) of the message at ptr of program p, at level
// depth, reading them again: they must be those the size pass recorded
// for it (none, unless hasExtensions).
func (e *enc) genAppendExtensions(b []byte, p *program, ptr genstore.Pointer, from, below protowire.Number, depth int) ([]byte, bool) {
	start, k, xs, ok := e.genTakeExtensions(p, ptr, from, below)
	if !ok {
		return b, false
	}
	for i := start; i < start+k; i++ {
		if b, ok = e.genAppendExtension(b, xs, &e.st.exts[i], depth); !ok {
			return b, false
		}
	}
	return b, true
}

// genTakeExtensions takes, in the write pass, the set extensions
// numbered from from to below (below excluded) that the size pass
// recorded for the message at ptr of program p (none, unless
// hasExtensions and the first is in that range): k of them from start in
// the call's exts, which must be as many as it has set in the range now.
// xs are its extension fields.
func (e *enc) genTakeExtensions(p *program, ptr genstore.Pointer, from, below protowire.Number) (start, k int, xs protoimpl.ExtensionFields, ok bool) {
	start = e.nextExt
	if e.hasExtensions(ptr) && inRange(int32(e.st.exts[start].rec.more.lf.Number), from, below) {
		k = int(e.st.exts[start].run)
		if start+k > len(e.st.exts) {
			return 0, 0, nil, false
		}
		e.nextExt += k
	}
	xs = p.st.Extensions(ptr)
	set := 0
	for num, x := range xs {
		if !inRange(num, from, below) {
			continue
		}
		_, s, ok := extensionValue(&x)
		if !ok {
			return 0, 0, nil, false
		}
		if s {
			set++
		}
	}
	return start, k, xs, set == k
}

// genAppendExtension appends the extension the size pass recorded as r,
// read again from xs, its message's extension fields: it must be set,
// of the same field record.
func (e *enc) genAppendExtension(b []byte, xs protoimpl.ExtensionFields, r *ext, depth int) ([]byte, bool) {
	x, found := xs[int32(r.rec.more.lf.Number)]
	if !found {
		return b, false
	}
	v, s, _ := extensionValue(&x)
	if !s || extField(x.Type().TypeDescriptor()) != r.rec {
		return b, false
	}
	return e.appendExtension(b, r.rec, v, r.child, depth)
}
