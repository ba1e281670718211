package engine

import (
	"math"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/protolayout/protolayout/internal/genstore"
	"github.com/protolayout/protolayout/internal/wire"
)

// The write pass visits the fields the size pass visited, in the same
// order, and takes each nested message's size, each map's entries and
// each message's set extensions from what the size pass recorded
// (enc.next, enc.nextEntry, enc.nextExt): a message changed between the
// passes shows as a length that disagrees with its body, a cursor out of
// step, or a total that differs, and the call gives up.

// append is the write pass over the message at ptr of program p, at level
// depth: its set extensions first (those the size pass recorded for it),
// then its fields and unknown bytes.
func (e *enc) genAppend(b []byte, p *program, ptr genstore.Pointer, depth int) ([]byte, bool) {
	ok := true
	if !p.simple && !e.canon && (e.hasExtensions(ptr) || p.st.ExtensionsLen(ptr) > 0) {
		if b, ok = e.genAppendExtensions(b, p, ptr, 0, protowire.MaxValidNumber+1, depth); !ok {
			return b, false
		}
	}
	fields := p.fields[:p.regular]
	for i := range fields {
		f := &fields[i]
		switch f.code {
		case codeInt32:
			v := f.sf.Int32(ptr)
			if v == 0 {
				continue
			}
			b = wire.AppendVarint(f.AppendKey(b), uint64(int64(v)))
		case codeInt64:
			v := f.sf.Int64(ptr)
			if v == 0 {
				continue
			}
			b = wire.AppendVarint(f.AppendKey(b), uint64(v))
		case codeUint64:
			v := f.sf.Uint64(ptr)
			if v == 0 {
				continue
			}
			b = wire.AppendVarint(f.AppendKey(b), v)
		case codeUint32:
			v := f.sf.Uint32(ptr)
			if v == 0 {
				continue
			}
			b = wire.AppendVarint(f.AppendKey(b), uint64(v))
		case codeSint32:
			v := f.sf.Int32(ptr)
			if v == 0 {
				continue
			}
			b = wire.AppendVarint(f.AppendKey(b), protowire.EncodeZigZag(int64(v)))
		case codeSint64:
			v := f.sf.Int64(ptr)
			if v == 0 {
				continue
			}
			b = wire.AppendVarint(f.AppendKey(b), protowire.EncodeZigZag(v))
		case codeFixed32:
			v := f.sf.Uint32(ptr)
			if v == 0 {
				continue
			}
			b = protowire.AppendFixed32(f.AppendKey(b), v)
		case codeSfixed32:
			v := f.sf.Int32(ptr)
			if v == 0 {
				continue
			}
			b = protowire.AppendFixed32(f.AppendKey(b), uint32(v))
		case codeFixed64:
			v := f.sf.Uint64(ptr)
			if v == 0 {
				continue
			}
			b = protowire.AppendFixed64(f.AppendKey(b), v)
		case codeSfixed64:
			v := f.sf.Int64(ptr)
			if v == 0 {
				continue
			}
			b = protowire.AppendFixed64(f.AppendKey(b), uint64(v))
		case codeBool:
			if !f.sf.Bool(ptr) {
				continue
			}
			b = append(f.AppendKey(b), 1)
		case codeFloat64:
			v := math.Float64bits(f.sf.Float64(ptr))
			if v == 0 {
				continue
			}
			b = protowire.AppendFixed64(f.AppendKey(b), v)
		case codeFloat32:
			v := math.Float32bits(f.sf.Float32(ptr))
			if v == 0 {
				continue
			}
			b = protowire.AppendFixed32(f.AppendKey(b), v)
		case codeString:
			s := f.sf.String(ptr)
			if s == "" {
				continue
			}
			// appendText, inline.
			b = wire.AppendVarint(f.AppendKey(b), uint64(len(s)))
			b = append(b, s...)
		case codeBytes:
			s := f.sf.Bytes(ptr)
			if len(s) == 0 {
				continue
			}
			b = wire.AppendVarint(f.AppendKey(b), uint64(len(s)))
			b = append(b, s...)
		case codePtrString:
			s, set := f.sf.PtrString(ptr)
			if !set {
				continue
			}
			b = wire.AppendVarint(f.AppendKey(b), uint64(len(s)))
			b = append(b, s...)
		case codePtrInt32:
			v, set := f.sf.PtrInt32(ptr)
			if !set {
				continue
			}
			b = wire.AppendVarint(f.AppendKey(b), uint64(int64(v)))
		case codePtrInt64:
			v, set := f.sf.PtrInt64(ptr)
			if !set {
				continue
			}
			b = wire.AppendVarint(f.AppendKey(b), uint64(v))
		case codePtrBool:
			v, set := f.sf.PtrBool(ptr)
			if !set {
				continue
			}
			if v {
				b = append(f.AppendKey(b), 1)
			} else {
				b = append(f.AppendKey(b), 0)
			}
		case codeBitInt32:
			if !f.sf.Present(ptr) {
				continue
			}
			b = wire.AppendVarint(f.AppendKey(b), uint64(int64(f.sf.Int32(ptr))))
		case codeBitInt64:
			if !f.sf.Present(ptr) {
				continue
			}
			b = wire.AppendVarint(f.AppendKey(b), uint64(f.sf.Int64(ptr)))
		case codeBitBool:
			if !f.sf.Present(ptr) {
				continue
			}
			if f.sf.Bool(ptr) {
				b = append(f.AppendKey(b), 1)
			} else {
				b = append(f.AppendKey(b), 0)
			}
		case codeBitString:
			if !f.sf.Present(ptr) {
				continue
			}
			s, set := f.sf.PtrString(ptr)
			if !set {
				return b, false
			}
			b = appendText(b, &f.Rec, s)
		case codeMessage:
			c := f.sf.Ptr(ptr)
			if c.IsNil() {
				continue
			}
			if b, ok = e.genAppendNested(b, f, c, depth+1); !ok {
				return b, false
			}
		case codeListMessage, codePtrListMessage:
			var k int
			if f.code == codeListMessage {
				k = f.sf.SliceLen(ptr) // a slice in place: no call
			} else {
				k = f.sf.Len(ptr)
			}
			for j := range k {
				if b, ok = e.genAppendNested(b, f, f.sf.MessageAt(ptr, j), depth+1); !ok {
					return b, false
				}
			}
		case codeMember:
			pos, w := f.more.oneof.Which(ptr)
			if pos != f.more.pos {
				continue
			}
			if b, ok = e.appendMember(b, f, w, depth); !ok {
				return b, false
			}
		case codeList:
			if f.sf.SliceLen(ptr) == 0 {
				continue
			}
			if b, ok = e.genAppendList(b, f, ptr, depth); !ok {
				return b, false
			}
		case codeMap:
			if f.sf.MapNil(ptr) {
				continue
			}
			if b, ok = e.genAppendMap(b, f, ptr, depth); !ok {
				return b, false
			}
		default:
			if b, ok = e.appendOther(b, f, ptr, depth); !ok {
				return b, false
			}
		}
	}
	if !p.simple || e.canon {
		if b, ok = e.appendRest(b, p, ptr, depth); !ok {
			return b, false
		}
	}
	if u := p.st.Unknown(ptr); len(u) > 0 {
		b = append(b, u...)
	}
	return b, true
}

// appendRest appends what follows the fields outside real oneofs of the
// message at ptr of program p, before its unknown bytes: its oneofs,
// then under Canonical its extensions.
func (e *enc) appendRest(b []byte, p *program, ptr genstore.Pointer, depth int) ([]byte, bool) {
	ok := true
	for _, o := range p.oneofs {
		pos, w := o.Which(ptr)
		if pos < 0 {
			continue
		}
		if b, ok = e.appendMember(b, &p.fields[pos], w, depth); !ok {
			return b, false
		}
	}
	if e.canon && (e.hasExtensions(ptr) || p.st.ExtensionsLen(ptr) > 0) && !p.interleaved {
		if b, ok = e.genAppendExtensions(b, p, ptr, 0, protowire.MaxValidNumber+1, depth); !ok {
			return b, false
		}
	}
	return b, true
}

// appendNested appends c, a message of field f at level depth, with its
// key and its length (or, for a group, its end key), the size the size
// pass recorded for it.
func (e *enc) genAppendNested(b []byte, f *genField, c genstore.Pointer, depth int) ([]byte, bool) {
	if e.next >= len(e.st.sizes) {
		return b, false
	}
	n := int(e.st.sizes[e.next])
	e.next++
	b = f.AppendKey(b)
	if f.Elem != wire.OpGroup {
		b = wire.AppendVarint(b, uint64(n))
	}
	start := len(b)
	if !c.IsNil() {
		var ok bool
		if b, ok = e.genAppend(b, f.childProgram(), c, depth); !ok {
			return b, false
		}
	}
	return closeFrame(b, f.more.rec(), f.Elem, start, n)
}

// appendOther appends the field f (outside real oneofs) of the message at
// ptr, if it is set, for the cases append does not take inline.
func (e *enc) appendOther(b []byte, f *genField, ptr genstore.Pointer, depth int) ([]byte, bool) {
	if f.code == codeExts {
		return e.genAppendMerged(b, f, ptr, depth)
	}
	sf := f.sf
	if sf.PresenceBit >= 0 {
		if !sf.Present(ptr) {
			return b, true
		}
		return appendSet(b, f, ptr)
	}
	switch {
	case isScalarRep(sf.Rep):
		w, ok := word(sf, ptr)
		if !ok {
			return b, true
		}
		return wire.AppendWord(f.AppendKey(b), f.Op, w), true
	case sf.Rep == genstore.RepPtrString:
		s, ok := sf.PtrString(ptr)
		if !ok {
			return b, true
		}
		return appendText(b, &f.Rec, s), true
	case sf.Rep == genstore.RepBytesPresence:
		s := sf.Bytes(ptr)
		if s == nil {
			return b, true
		}
		return appendText(b, &f.Rec, s), true
	case sf.Rep == genstore.RepMessage: // a group
		c := sf.Ptr(ptr)
		if c.IsNil() {
			return b, true
		}
		return e.genAppendNested(b, f, c, depth+1)
	}
	return e.genAppendList(b, f, ptr, depth)
}

// appendSet appends the field f, in place or a *string, whose presence
// bit is set in the message at ptr, whatever its value (see sizeSet).
func appendSet(b []byte, f *genField, ptr genstore.Pointer) ([]byte, bool) {
	sf := f.sf
	switch sf.Rep {
	case genstore.RepPtrString:
		s, ok := sf.PtrString(ptr)
		if !ok {
			return b, false
		}
		return appendText(b, &f.Rec, s), true
	case genstore.RepString:
		return appendText(b, &f.Rec, sf.String(ptr)), true
	case genstore.RepBytes:
		return appendText(b, &f.Rec, sf.Bytes(ptr)), true
	}
	w, _ := word(sf, ptr)
	return wire.AppendWord(f.AppendKey(b), f.Op, w), true
}

// appendMember appends f, the set member of a real oneof, whose wrapper
// is at w.
func (e *enc) appendMember(b []byte, f *genField, w genstore.Pointer, depth int) ([]byte, bool) {
	sf := f.sf
	switch sf.Rep {
	case genstore.RepString:
		return appendText(b, &f.Rec, sf.String(w)), true
	case genstore.RepBytes:
		return appendText(b, &f.Rec, sf.Bytes(w)), true
	case genstore.RepMessage:
		return e.genAppendNested(b, f, sf.Ptr(w), depth+1)
	}
	v, _ := word(sf, w)
	return wire.AppendWord(f.AppendKey(b), f.Op, v), true
}

// appendList appends the list field f of the message at ptr.
func (e *enc) genAppendList(b []byte, f *genField, ptr genstore.Pointer, depth int) ([]byte, bool) {
	sf := f.sf
	k := sf.Len(ptr)
	if k == 0 {
		return b, true
	}
	ok := true
	switch sf.Rep {
	case genstore.RepListString:
		return appendTexts(b, &f.Rec, sf.Strings(ptr), false)
	case genstore.RepListBytes:
		return appendTexts(b, &f.Rec, sf.BytesList(ptr), false)
	case genstore.RepListMessage, genstore.RepPtrListMessage:
		for j := range k {
			if b, ok = e.genAppendNested(b, f, sf.MessageAt(ptr, j), depth+1); !ok {
				return b, false
			}
		}
		return b, true
	}
	switch sf.Rep {
	case genstore.RepListInt32:
		return appendIntegers(b, f, sf.Int32s(ptr)), true
	case genstore.RepListUint32:
		return appendIntegers(b, f, sf.Uint32s(ptr)), true
	case genstore.RepListInt64:
		return appendIntegers(b, f, sf.Int64s(ptr)), true
	case genstore.RepListUint64:
		return appendIntegers(b, f, sf.Uint64s(ptr)), true
	}
	// Bools and floats, by their words.
	if f.Op == wire.OpPacked {
		body := scalarsBody(f, ptr, k)
		b = append(b, f.more.PackedTag...)
		b = wire.AppendVarint(b, uint64(body))
		start := len(b)
		for j := range k {
			b = wire.AppendWord(b, f.Elem, elemWord(sf, ptr, j))
		}
		return b, len(b)-start == body
	}
	for j := range k {
		b = wire.AppendWord(f.AppendKey(b), f.Elem, elemWord(sf, ptr, j))
	}
	return b, true
}

// appendIntegers appends xs, the elements of the list of integers of
// field f: packed, or each with its key.
func appendIntegers[T wire.Integers](b []byte, f *genField, xs []T) []byte {
	if f.Op == wire.OpPacked {
		return appendPacked(b, &f.Rec, f.more.PackedTag, xs)
	}
	return appendUnpacked(b, &f.Rec, xs)
}

// appendMap appends the entries of the map field f of the message at
// ptr, as the size pass read them (and, for a deterministic call, sorted
// them).
func (e *enc) genAppendMap(b []byte, f *genField, ptr genstore.Pointer, depth int) ([]byte, bool) {
	k := f.sf.Len(ptr)
	if k == 0 {
		return b, true
	}
	start := e.nextEntry
	if start+k > len(e.st.recs) {
		return b, false
	}
	e.nextEntry += k
	x := f.more
	var child *program
	if f.Elem == wire.OpMessage {
		child = f.childProgram()
	}
	ok := true
	for i := start; i < start+k; i++ {
		en := e.st.recs[i]
		// The entry's size, its message value's from the size pass.
		vn := 0
		if f.Elem == wire.OpMessage {
			if e.next >= len(e.st.sizes) {
				return b, false
			}
			vn = int(e.st.sizes[e.next])
			e.next++
		}
		if b, ok = appendEntry(b, &f.Rec, &x.RecMore, &en, vn, e.maxSize); !ok {
			return b, false
		}
		if f.Elem == wire.OpMessage {
			vs := len(b)
			if !en.vp.IsNil() {
				if b, ok = e.genAppend(b, child, en.vp, depth+2); !ok {
					return b, false
				}
			}
			if len(b)-vs != vn {
				return b, false
			}
		}
	}
	return b, true
}
