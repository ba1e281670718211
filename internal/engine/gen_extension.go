package engine

import (
	"cmp"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/runtime/protoimpl"

	"github.com/protolayout/protolayout/internal/fault"
	"github.com/protolayout/protolayout/internal/genstore"
	"github.com/protolayout/protolayout/internal/layout"
	"github.com/protolayout/protolayout/internal/utf8x"
	"github.com/protolayout/protolayout/internal/wire"
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
	f *layout.Field
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
	start := len(e.st.exts)
	owner := ptr.Addr()
	for _, x := range p.st.Extensions(ptr) {
		v, set, ok := extensionValue(&x)
		if !ok {
			return 0, false
		}
		if !set {
			continue
		}
		f := layout.Extension(x.Type().TypeDescriptor())
		if f.Map || !v.IsValid() {
			return 0, false
		}
		e.st.exts = append(e.st.exts, ext{f: f, v: v, owner: owner})
	}
	k := len(e.st.exts) - start
	if k == 0 {
		return 0, true
	}
	slices.SortFunc(e.st.exts[start:], func(a, b ext) int { return cmp.Compare(a.f.Number, b.f.Number) })
	e.st.exts[start].run = int32(k)
	n := 0
	for i := range k {
		// Copied: sizing a message value may append its own extensions,
		// and so move the slice.
		x := e.st.exts[start+i]
		y, c, ok := e.genSizeExtension(x.f, x.v, depth)
		if !e.trail.Counted(n, y, ok, e.maxSize) {
			return 0, false
		}
		e.st.exts[start+i].child = c
		n += y
	}
	return n, n <= e.maxSize
}

// sizeExtension returns the size of the value v of the extension f of a
// message at level depth, keys included, recording the sizes of its
// messages, and the program of its messages (nil if it holds none).
func (e *enc) genSizeExtension(f *layout.Field, v protoreflect.Value, depth int) (int, *program, bool) {
	if !f.List {
		switch f.Elem {
		case wire.OpMessage, wire.OpGroup:
			c, y, ok := e.sizeExtMessage(v.Message(), nil, f, -1, depth+1)
			if !ok {
				return 0, nil, false
			}
			return len(f.Tag) + wrapped(f.Elem, len(f.EndTag), y), c, true
		case wire.OpString:
			if f.ValidateUTF8 && e.utf8 && !utf8x.ValidString(v.String()) {
				return 0, nil, e.trail.Fail(fault.InvalidUTF8, f, 0)
			}
			if !wire.Fits(0, len(v.String()), e.maxSize) {
				return 0, nil, false
			}
		case wire.OpBytes:
			if !wire.Fits(0, len(v.Bytes()), e.maxSize) {
				return 0, nil, false
			}
		}
		return len(f.Tag) + wire.SizeScalar(f.Kind, v), nil, true
	}
	l := v.List()
	k := l.Len()
	n := 0
	switch f.Elem {
	case wire.OpMessage, wire.OpGroup:
		var c *program
		for j := range k {
			var y int
			var ok bool
			c, y, ok = e.sizeExtMessage(l.Get(j).Message(), c, f, j, depth+1)
			if !e.trail.Counted(n, y, ok, e.maxSize) {
				return 0, nil, false
			}
			n += len(f.Tag) + wrapped(f.Elem, len(f.EndTag), y)
		}
		return n, c, n <= e.maxSize
	case wire.OpString, wire.OpBytes:
		check := f.Elem == wire.OpString && f.ValidateUTF8 && e.utf8
		for j := range k {
			w := l.Get(j)
			y := 0
			if f.Elem == wire.OpString {
				y = len(w.String())
				if check && !utf8x.ValidString(w.String()) {
					return 0, nil, e.trail.Fail(fault.InvalidUTF8, f, n)
				}
			} else {
				y = len(w.Bytes())
			}
			if !wire.Fits(n, y, e.maxSize) {
				return 0, nil, false
			}
			n += len(f.Tag) + wire.SizeScalar(f.Kind, w)
		}
		return n, nil, n <= e.maxSize
	}
	body, ok := wire.SizePackedList(f.Kind, l, e.maxSize)
	if !ok {
		return 0, nil, false
	}
	if f.Op == wire.OpPacked {
		return len(f.PackedTag) + protowire.SizeBytes(body), nil, true
	}
	keys, ok := wire.MulSize(k, len(f.Tag), e.maxSize)
	if ok {
		keys, ok = wire.AddSize(body, keys, e.maxSize)
	}
	return keys, nil, ok
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

// sizeExtMessage returns the program of m, a message value of the
// extension f (element index of a list, or -1) at level depth, and its
// size without key or length, and records the size for the write pass;
// a fault found in m passes up through f.
func (e *enc) sizeExtMessage(m protoreflect.Message, hint *program, f *layout.Field, index, depth int) (*program, int, bool) {
	p, c, ok := extMessage(m, hint)
	if !ok {
		return nil, 0, false
	}
	if depth > e.levels.Deep && e.levels.Check(e.trail, f, c.Addr(), depth, false) || !e.visit(c) {
		return nil, 0, false
	}
	p = e.variantOf(p)
	i := len(e.st.sizes)
	e.st.sizes = append(e.st.sizes, 0)
	n, ok := e.genSize(p, c, depth)
	if !ok {
		e.trail.Enter(f, index)
		return nil, 0, false
	}
	e.st.sizes[i] = int32(n)
	return p, n, true
}

// hasExtensions reports whether the next extensions the size pass
// recorded are those of the message at ptr.
func (e *enc) hasExtensions(ptr genstore.Pointer) bool {
	i := e.nextExt
	return i < len(e.st.exts) && e.st.exts[i].run > 0 && e.st.exts[i].owner == ptr.Addr()
}

// appendExtensions appends the set extensions of the message at ptr of
// program p, at level depth, reading them again: they must be those the
// size pass recorded for it (none, unless hasExtensions).
func (e *enc) genAppendExtensions(b []byte, p *program, ptr genstore.Pointer, depth int) ([]byte, bool) {
	start, k := e.nextExt, 0
	if e.hasExtensions(ptr) {
		k = int(e.st.exts[start].run)
		if start+k > len(e.st.exts) {
			return b, false
		}
		e.nextExt += k
	}
	xs := p.st.Extensions(ptr)
	set := 0
	for _, x := range xs {
		_, s, ok := extensionValue(&x)
		if !ok {
			return b, false
		}
		if s {
			set++
		}
	}
	if set != k {
		return b, false
	}
	ok := true
	for i := start; i < start+k; i++ {
		r := &e.st.exts[i]
		x, found := xs[int32(r.f.Number)]
		if !found {
			return b, false
		}
		v, s, _ := extensionValue(&x)
		if !s || layout.Extension(x.Type().TypeDescriptor()) != r.f {
			return b, false
		}
		if b, ok = e.genAppendExtension(b, r.f, v, r.child, depth); !ok {
			return b, false
		}
	}
	return b, true
}

// appendExtension appends the value v of the extension f of a message at
// level depth, with its keys; child is the program of its messages the
// size pass found.
func (e *enc) genAppendExtension(b []byte, f *layout.Field, v protoreflect.Value, child *program, depth int) ([]byte, bool) {
	if !f.List {
		switch f.Elem {
		case wire.OpMessage, wire.OpGroup:
			return e.appendExtMessage(b, f, v.Message(), child, depth+1)
		}
		return wire.AppendScalar(wire.AppendKey(b, f.Tag), f.Kind, v), true
	}
	l := v.List()
	k := l.Len()
	ok := true
	switch f.Elem {
	case wire.OpMessage, wire.OpGroup:
		for j := range k {
			if b, ok = e.appendExtMessage(b, f, l.Get(j).Message(), child, depth+1); !ok {
				return b, false
			}
		}
		return b, true
	case wire.OpString, wire.OpBytes:
		for j := range k {
			b = wire.AppendScalar(wire.AppendKey(b, f.Tag), f.Kind, l.Get(j))
		}
		return b, true
	}
	if f.Op == wire.OpPacked {
		body, ok := wire.SizePackedList(f.Kind, l, e.maxSize)
		if !ok {
			return b, false
		}
		b = appendVarint(append(b, f.PackedTag...), uint64(body))
		start := len(b)
		b = wire.AppendPacked(b, f.Kind, l)
		return b, len(b)-start == body
	}
	for j := range k {
		b = wire.AppendScalar(wire.AppendKey(b, f.Tag), f.Kind, l.Get(j))
	}
	return b, true
}

// appendExtMessage appends m, a message value of the extension f at level
// depth, with its key and the length the size pass recorded for it (or,
// for a group, its end key).
func (e *enc) appendExtMessage(b []byte, f *layout.Field, m protoreflect.Message, hint *program, depth int) ([]byte, bool) {
	if e.next >= len(e.st.sizes) {
		return b, false
	}
	n := int(e.st.sizes[e.next])
	e.next++
	p, c, ok := extMessage(m, hint)
	if !ok {
		return b, false
	}
	p = e.variantOf(p)
	b = wire.AppendKey(b, f.Tag)
	if !f.Group {
		b = appendVarint(b, uint64(n))
	}
	start := len(b)
	if b, ok = e.genAppend(b, p, c, depth); !ok || len(b)-start != n {
		return b, false
	}
	return append(b, f.EndTag...), true
}
