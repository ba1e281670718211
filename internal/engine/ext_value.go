package engine

import (
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/wire"
)

// Extension values, for both storages. An extension's value is a
// protoreflect.Value whatever the storage of the message holding it: a
// scalar, a string or bytes, a message, or a list. Its message values
// are encoded by the storage of their own type, which need not be the
// holder's: a message of package dynamic in a generated message's
// extension (set through dynamic.NewExtensionType), or a generated
// message in a dynamic one's (set through the generated extension type),
// is written by its own storage's passes in the same call. Lists are
// this package's (read from their storage) or any other implementation
// (read through protoreflect, as protobuf-go's are). A message of a type
// neither storage reads leaves the holder to the walk, and so does a
// generated message inside a dynamic map (see enc.inMaps).

// sizeExtension returns the size of the value v of the extension of
// record f, of a message at level depth, keys included, and the program
// of its generated messages (of the last one, for a list; nil if it
// holds none), which the write pass takes as a hint. Extensions always
// have presence: a zero scalar is written.
func (e *enc) sizeExtension(f *encField, v protoreflect.Value, depth int) (int, *program, bool) {
	lf := f.more.lf
	switch f.Op {
	case wire.OpString:
		n, ok := e.sizeText(&f.Rec, lf, v.String(), 0)
		return n, nil, ok
	case wire.OpBytes:
		n, ok := e.sizeBlob(&f.Rec, len(v.Bytes()), 0)
		return n, nil, ok
	case wire.OpMessage, wire.OpGroup:
		x, c, ok := e.sizeExtMessage(f, f.Op, v.Message(), nil, -1, depth)
		return int(f.TagLen) + x, c, ok
	case wire.OpList:
		if l, ok := v.List().(*list); ok {
			n, ok := e.sizeList(l, f, lf, depth)
			return n, nil, ok
		}
		return e.sizeExtList(f, v.List(), depth)
	case wire.OpPacked:
		if l, ok := v.List().(*list); ok {
			return packedSize(&f.Rec, l), nil, true
		}
		body, ok := wire.SizePackedList(lf.Kind, v.List(), e.maxSize)
		if !ok {
			return 0, nil, false
		}
		return int(f.TagLen) + protowire.SizeBytes(body), nil, true
	default:
		return int(f.TagLen) + wire.SizeWord(f.Op, wire.Word(f.more.valueKind, v)), nil, true
	}
}

// sizeExtList returns the size of l, the value of the unpacked repeated
// extension of record f, of a list type of another package (read
// through protoreflect), keys included, and the program of its last
// generated message.
func (e *enc) sizeExtList(f *encField, l protoreflect.List, depth int) (int, *program, bool) {
	lf := f.more.lf
	k := l.Len()
	n := 0
	switch f.Elem {
	case wire.OpMessage, wire.OpGroup:
		var c *program
		for j := range k {
			var x int
			var ok bool
			x, c, ok = e.sizeExtMessage(f, f.Elem, l.Get(j).Message(), c, j, depth)
			if !e.trail.Counted(n, x, ok, e.maxSize) {
				return 0, nil, false
			}
			n += int(f.TagLen) + x
		}
		return n, c, e.within(n)
	case wire.OpString, wire.OpBytes:
		for j := range k {
			var x int
			var ok bool
			if w := l.Get(j); f.Elem == wire.OpString {
				x, ok = e.sizeText(&f.Rec, lf, w.String(), n)
			} else {
				x, ok = e.sizeBlob(&f.Rec, len(w.Bytes()), n)
			}
			if !ok {
				return 0, nil, false
			}
			n += x
		}
		return n, nil, e.within(n)
	}
	for j := range k {
		n += int(f.TagLen) + wire.SizeWord(f.Elem, wire.Word(f.more.valueKind, l.Get(j)))
	}
	return n, nil, e.within(n)
}

// sizeExtMessage returns the size of m, a message value of the extension
// of record f (written by op: a length-prefixed message or a group;
// element index of a list, or -1) at level depth, without its key, with
// its length or end key, and the program of m if it is a generated
// message (hint first, the program of the extension's last message).
// m is sized by its own storage's pass; a fault found in it passes up
// through the extension.
func (e *enc) sizeExtMessage(f *encField, op wire.Op, m protoreflect.Message, hint *program, index, depth int) (int, *program, bool) {
	lf := f.more.lf
	if c, ok := m.(*Message); ok {
		if depth >= e.levels.Deep && e.levels.Check(e.trail, lf, addrOf(c), depth+1, false) {
			return 0, hint, false
		}
		e.dynamicScratch()
		x, ok := e.size(c, depth+1)
		if !ok {
			e.failed(c)
			e.trail.Enter(lf, index)
			return 0, hint, false
		}
		return f.Wrap(x), hint, true
	}
	p, c, ok := extMessage(m, hint)
	if !ok || e.inMaps > 0 || !e.generatedScratch() {
		return 0, hint, false
	}
	if depth >= e.levels.Deep && e.levels.Check(e.trail, lf, c.Addr(), depth+1, false) || !e.visit(c) {
		return 0, hint, false
	}
	p = e.variantOf(p)
	i := len(e.st.sizes)
	e.st.sizes = append(e.st.sizes, 0)
	x, ok := e.genSize(p, c, depth+1)
	if !ok {
		e.trail.Enter(lf, index)
		return 0, p, false
	}
	e.st.sizes[i] = int32(x)
	return f.Wrap(x), p, true
}

// appendExtension appends the value v of the extension of record f, of a
// message at level depth, as sizeExtension counted it; child is the
// program of its generated messages sizeExtension returned.
func (e *enc) appendExtension(b []byte, f *encField, v protoreflect.Value, child *program, depth int) ([]byte, bool) {
	switch f.Op {
	case wire.OpString:
		x := v.String()
		if f.UTF8 && e.recheck && invalidText(x) {
			return b, false
		}
		return appendText(b, &f.Rec, x), true
	case wire.OpBytes:
		return appendText(b, &f.Rec, v.Bytes()), true
	case wire.OpMessage, wire.OpGroup:
		return e.appendExtMessage(b, f, f.Op, v.Message(), child, depth)
	case wire.OpList:
		if l, ok := v.List().(*list); ok {
			return e.appendList(b, l, f, depth)
		}
		return e.appendExtList(b, f, v.List(), child, depth)
	case wire.OpPacked:
		if l, ok := v.List().(*list); ok {
			return appendPackedList(b, f, l), true
		}
		l := v.List()
		body, ok := wire.SizePackedList(f.more.lf.Kind, l, e.maxSize)
		if !ok {
			return b, false
		}
		b = wire.AppendVarint(append(b, f.more.PackedTag...), uint64(body))
		start := len(b)
		b = wire.AppendPacked(b, f.more.lf.Kind, l)
		return b, len(b)-start == body
	default:
		return wire.AppendWord(f.AppendKey(b), f.Op, wire.Word(f.more.valueKind, v)), true
	}
}

// appendExtList appends l, the value of the unpacked repeated extension
// of record f, of a list type of another package, as sizeExtList counted
// it.
func (e *enc) appendExtList(b []byte, f *encField, l protoreflect.List, child *program, depth int) ([]byte, bool) {
	k := l.Len()
	ok := true
	switch f.Elem {
	case wire.OpMessage, wire.OpGroup:
		for j := range k {
			if b, ok = e.appendExtMessage(b, f, f.Elem, l.Get(j).Message(), child, depth); !ok {
				return b, false
			}
		}
	case wire.OpString:
		for j := range k {
			x := l.Get(j).String()
			if f.UTF8 && e.recheck && invalidText(x) {
				return b, false
			}
			b = appendText(b, &f.Rec, x)
		}
	case wire.OpBytes:
		for j := range k {
			b = appendText(b, &f.Rec, l.Get(j).Bytes())
		}
	default:
		for j := range k {
			b = wire.AppendWord(f.AppendKey(b), f.Elem, wire.Word(f.more.valueKind, l.Get(j)))
		}
	}
	return b, true
}

// appendExtMessage appends m, a message value of the extension of record
// f written by op, at level depth, with its key and the length its size
// pass recorded for it (or, for a group, its end key), by its own
// storage's write pass.
func (e *enc) appendExtMessage(b []byte, f *encField, op wire.Op, m protoreflect.Message, hint *program, depth int) ([]byte, bool) {
	if c, ok := m.(*Message); ok {
		e.dynamicScratch()
		return e.appendNested(b, f, op, c, depth+1)
	}
	if e.st == nil || e.inMaps > 0 || e.next >= len(e.st.sizes) {
		return b, false
	}
	n := int(e.st.sizes[e.next])
	e.next++
	p, c, ok := extMessage(m, hint)
	if !ok {
		return b, false
	}
	p = e.variantOf(p)
	b = f.AppendKey(b)
	if op != wire.OpGroup {
		b = wire.AppendVarint(b, uint64(n))
	}
	start := len(b)
	if b, ok = e.genAppend(b, p, c, depth+1); !ok {
		return b, false
	}
	return closeFrame(b, &f.more.RecMore, op, start, n)
}

// dynamicScratch readies the call for the passes over a message of
// package dynamic: it gives the call an epoch, if it has none yet (a
// call that started on a generated message).
func (e *enc) dynamicScratch() {
	if e.stamp == 0 {
		e.stamp = e.st.epoch()
	}
}

// generatedScratch readies the call for the passes over generated
// messages, once, and reports whether it can take them: it takes a state
// if the call has none (a call of dynamic's fast-path methods, see
// scratch) and starts the call's table of visited messages. A write with
// cached sizes (appendCached) cannot take them, as no size pass recorded
// their sizes.
func (e *enc) generatedScratch() bool {
	if e.generated {
		return true
	}
	if e.recheck {
		return false
	}
	st := e.scratch()
	st.newSeenEpoch()
	e.generated = true
	return true
}
