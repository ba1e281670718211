package engine

import (
	"math"
	"reflect"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/fault"
	"github.com/protolayout/protolayout/internal/genstore"
	"github.com/protolayout/protolayout/internal/layout"
	"github.com/protolayout/protolayout/internal/utf8x"
	"github.com/protolayout/protolayout/internal/wire"
)

// Options are the encoder's options as the encoders that read storage
// directly need them (the engine, and package dynamic's direct encoder),
// resolved:
// MaxDepth and MaxSize are the limits in force, never 0.
type Options struct {
	Deterministic bool
	// Partial skips the required fields check.
	Partial bool
	// SizeOnly asks for nothing but the size, as proto.Size computes it
	// (no UTF-8 validation, no required fields check).
	SizeOnly bool
	MaxDepth int
	MaxSize  int
	// Trail, if not nil, is where the size pass records the fault it
	// fails with (invalid UTF-8, a required field not set, and, with
	// SizeOnly too, the depth limit, a cycle, a MessageSet type, the
	// Signing profile's refusals and the size limit, outside the
	// canonical profiles: size_limit.go), with its path, as the walk would
	// report it; the caller reads it when the call reports handled
	// false, and resets it.
	Trail *fault.Trail
	// Canonical asks for field-number order (cursor.Options.Canonical),
	// with Deterministic; Signing for the Signing profile's rules besides
	// (cursor.Options.Signing). The engine runs a canonical variant of
	// each program (program.canonical), whose codeExts steps merge the
	// extensions by number among the fields in a type whose extension
	// ranges start below its last field (program.interleaved); package
	// dynamic's direct encoder merges them at every step of its
	// number-ordered list (both: canon_ext.go). Both leave to the walk
	// an unpacked repeated scalar extension that Signing packs (after looking for a
	// fault past it), and record a required field missing (as the walk
	// does, when the message is entered), and a non-empty map and
	// unknown fields under Signing, as faults.
	Canonical, Signing bool
}

// maxSize is the largest size the engine counts (larger messages go to
// the walk): far enough below the largest int32 that a size within it,
// with a key and a length prefix added, cannot overflow an int of 32
// bits. Where int has 32 bits, a size that may be large (a nested
// message's, a list's, a map's, a string's, as one string or message may
// be held many times) is added only after checking that the total stays
// within the limit (wire.Fits), so that no sum wraps; with 64 bits no sum
// can wrap before the check of each message's total.
const maxSize = math.MaxInt32 - 64

// A message shared along many paths (a DAG) is counted once per path by
// the size pass, so that a doubling DAG would take exponential time: the
// size pass keeps the last nested messages it visited in a small table
// (by address, with the call's epoch), and past maxRepeats visits of a
// message seen before in the call it leaves the message to the walk,
// which counts a shared subtree once per call. A tree (no message held
// twice) never repeats.
const (
	seenSlots  = 256
	maxRepeats = 256
)

// seen is a slot of the table of visited messages.
type seen struct {
	addr  uintptr
	epoch uint32
}

// scratch is a settable value of one Go type, for reading map keys (or
// values, which may be of the key's type) without allocating.
type scratch struct {
	t     reflect.Type
	value bool
	v     reflect.Value
}

// maxScratch bounds the map scratch values a State keeps.
const maxScratch = 64

// scratchOf returns a settable value of type t, for map keys or (with
// value) map values.
func (st *State) scratchOf(t reflect.Type, value bool) reflect.Value {
	for i := range st.scratch {
		if x := &st.scratch[i]; x.t == t && x.value == value {
			return x.v
		}
	}
	v := reflect.New(t).Elem()
	if len(st.scratch) < maxScratch {
		st.scratch = append(st.scratch, scratch{t, value, v})
	}
	return v
}

// maxKept bounds the scratch kept between calls: sizes (16 times it)
// and extensions.
const maxKept = 1 << 12

// maxKeptRecs bounds the map entries kept between calls: 352 KiB of them
// (4,096 of 88 bytes; fewer in a purego build, whose entries are
// larger).
var maxKeptRecs = 352 << 10 / int(reflect.TypeFor[entry]().Size())

// encodeGenerated is Encode for m, a message that is not package
// dynamic's.
func (st *State) encodeGenerated(b []byte, m protoreflect.ProtoMessage, mr protoreflect.Message, o *Options) (out []byte, n int, handled bool) {
	// The last type encoded first: its program holds no descriptor, and
	// a message of its Go type is of its descriptor.
	p := st.last
	var ptr genstore.Pointer
	ok := false
	if p != nil {
		ptr, ok = p.st.PointerOf(m)
	}
	if !ok {
		if p = programOf(mr.Descriptor(), mr.Type()); p.err != nil {
			return b, 0, false
		}
		if ptr, ok = p.st.PointerOf(m); !ok {
			return b, 0, false
		}
		st.last = p
	}
	if ptr.IsNil() {
		// An invalid message (a typed nil) has nothing set: it fails on
		// its first required field, as the walk finds it; without one,
		// the walk gives what proto.Marshal gives.
		if r := p.st.Layout.Absent(); r != nil && !o.Partial && !o.SizeOnly {
			o.Trail.Fail(fault.RequiredNotSet, r, 0)
		}
		return b, 0, false
	}
	var e enc
	e.start(st, o)
	p = e.variantOf(p)
	e.generatedScratch()
	defer e.release()
	n, ok = e.genSize(p, ptr, 1)
	if !ok || e.packs || n > o.MaxSize {
		return b, 0, false
	}
	if o.SizeOnly {
		return b, n, true
	}
	if genBetweenPasses != nil {
		genBetweenPasses()
	}
	out = wire.Grow(b, n)
	out, ok = e.genAppend(out, p, ptr, 1)
	return e.written(b, out, n, ok)
}

// newSeenEpoch starts a call's table of visited messages.
func (st *State) newSeenEpoch() {
	st.seenEpoch++
	if st.seenEpoch == 0 { // wrapped: forget every slot
		st.seen = [seenSlots]seen{}
		st.seenEpoch = 1
	}
}

// consumed reports whether the write pass took every size, map entry
// and extension of generated messages that the size pass recorded (as
// it does unless a message changed between the passes).
func (e *enc) consumed() bool {
	st := e.st
	return !e.generated || e.next == len(st.sizes) && e.nextEntry == len(st.recs) && e.nextExt == len(st.exts)
}

// genBetweenPasses, when set (by tests), is called between the size and the
// write pass of every encoding.
var genBetweenPasses func()

// genRelease ends a call that read generated messages: it drops the
// references the entries and the extensions hold and the scratch beyond
// what is kept.
func (e *enc) genRelease() {
	st := e.st
	if e.mapped {
		for i := range st.scratch {
			st.scratch[i].v.SetZero()
		}
		st.iter.Reset(reflect.Value{})
	}
	clear(st.recs)
	st.recs = st.recs[:0]
	clear(st.exts)
	st.exts = st.exts[:0]
	st.sizes = st.sizes[:0]
	if cap(st.recs) > maxKeptRecs {
		st.recs = nil
	}
	if cap(st.exts) > maxKept {
		st.exts = nil
	}
	if cap(st.sizes) > 16*maxKept {
		st.sizes = nil
	}
}

// size is the size pass over the message at ptr of program p, at level
// depth: its set extensions first (recorded for the write pass, which
// writes them first), then its fields and unknown bytes; false means the
// walk must take the message. Its callers check the level first
// (enc.levels).
func (e *enc) genSize(p *program, ptr genstore.Pointer, depth int) (int, bool) {
	if !wire.Is32 {
		return e.genSizeCounted(p, ptr, depth)
	}
	n, ok := e.genSizeCounted(p, ptr, depth)
	if !ok && e.nameGiveUp() {
		return 0, e.genExceeded(p, ptr, depth)
	}
	return n, ok
}

// genSizeCounted is genSize's count (see sizeCounted).
func (e *enc) genSizeCounted(p *program, ptr genstore.Pointer, depth int) (int, bool) {
	// end is where the fields stop: the first required field not set
	// (a fault, after the fields before it), or the oneofs.
	end := p.regular
	n := 0
	if !p.simple || e.canon {
		if p.messageSet {
			return 0, e.trail.Fail(fault.MessageSetUnsupported, nil, 0)
		}
		if !e.partial && len(p.required) > 0 {
			end = p.firstMissing(ptr)
		}
		if e.canon {
			if r := e.canonMissing(p, ptr); r != nil {
				return 0, e.trail.Fail(fault.RequiredNotSet, r, 0)
			}
			if !canonOrder(p) {
				return 0, false
			}
		}
		if !e.canon && p.st.ExtensionsLen(ptr) > 0 {
			x, ok := e.genSizeExtensions(p, ptr, depth)
			if !ok {
				return 0, false
			}
			n = x
		}
	}
	fields := p.fields[:end]
	for i := range fields {
		f := &fields[i]
		switch f.code {
		case codeInt32:
			v := f.sf.Int32(ptr)
			if v == 0 {
				continue
			}
			n += int(f.TagLen) + protowire.SizeVarint(uint64(int64(v)))
		case codeInt64:
			v := f.sf.Int64(ptr)
			if v == 0 {
				continue
			}
			n += int(f.TagLen) + protowire.SizeVarint(uint64(v))
		case codeUint64:
			v := f.sf.Uint64(ptr)
			if v == 0 {
				continue
			}
			n += int(f.TagLen) + protowire.SizeVarint(v)
		case codeUint32:
			v := f.sf.Uint32(ptr)
			if v == 0 {
				continue
			}
			n += int(f.TagLen) + protowire.SizeVarint(uint64(v))
		case codeSint32:
			v := f.sf.Int32(ptr)
			if v == 0 {
				continue
			}
			n += int(f.TagLen) + protowire.SizeVarint(protowire.EncodeZigZag(int64(v)))
		case codeSint64:
			v := f.sf.Int64(ptr)
			if v == 0 {
				continue
			}
			n += int(f.TagLen) + protowire.SizeVarint(protowire.EncodeZigZag(v))
		case codeFixed32:
			if f.sf.Uint32(ptr) == 0 {
				continue
			}
			n += int(f.TagLen) + 4
		case codeSfixed32:
			if f.sf.Int32(ptr) == 0 {
				continue
			}
			n += int(f.TagLen) + 4
		case codeFixed64:
			if f.sf.Uint64(ptr) == 0 {
				continue
			}
			n += int(f.TagLen) + 8
		case codeSfixed64:
			if f.sf.Int64(ptr) == 0 {
				continue
			}
			n += int(f.TagLen) + 8
		case codeBool:
			if !f.sf.Bool(ptr) {
				continue
			}
			n += int(f.TagLen) + 1
		case codeFloat64:
			if math.Float64bits(f.sf.Float64(ptr)) == 0 {
				continue
			}
			n += int(f.TagLen) + 8
		case codeFloat32:
			if math.Float32bits(f.sf.Float32(ptr)) == 0 {
				continue
			}
			n += int(f.TagLen) + 4
		case codeString:
			s := f.sf.String(ptr)
			if s == "" {
				continue
			}
			// sizeText, inline (its UTF-8 test without a call).
			if f.UTF8 && e.utf8 && !utf8x.ShortASCII(s) && !utf8x.ValidString(s) {
				return 0, e.trail.Fail(fault.InvalidUTF8, f.sf.Layout, n)
			}
			if !wire.Fits(n, len(s), e.maxSize) {
				return 0, false
			}
			n += int(f.TagLen) + protowire.SizeBytes(len(s))
		case codeBytes:
			s := f.sf.Bytes(ptr)
			if len(s) == 0 {
				continue
			}
			x, ok := e.sizeBlob(&f.Rec, len(s), n)
			if !ok {
				return 0, false
			}
			n += x
		case codePtrString:
			s, set := f.sf.PtrString(ptr)
			if !set {
				continue
			}
			if f.UTF8 && e.utf8 && !utf8x.ShortASCII(s) && !utf8x.ValidString(s) {
				return 0, e.trail.Fail(fault.InvalidUTF8, f.sf.Layout, n)
			}
			if !wire.Fits(n, len(s), e.maxSize) {
				return 0, false
			}
			n += int(f.TagLen) + protowire.SizeBytes(len(s))
		case codePtrInt32:
			v, set := f.sf.PtrInt32(ptr)
			if !set {
				continue
			}
			n += int(f.TagLen) + protowire.SizeVarint(uint64(int64(v)))
		case codePtrInt64:
			v, set := f.sf.PtrInt64(ptr)
			if !set {
				continue
			}
			n += int(f.TagLen) + protowire.SizeVarint(uint64(v))
		case codePtrBool:
			if _, set := f.sf.PtrBool(ptr); !set {
				continue
			}
			n += int(f.TagLen) + 1
		case codeBitInt32:
			if !f.sf.Present(ptr) {
				continue
			}
			n += int(f.TagLen) + protowire.SizeVarint(uint64(int64(f.sf.Int32(ptr))))
		case codeBitInt64:
			if !f.sf.Present(ptr) {
				continue
			}
			n += int(f.TagLen) + protowire.SizeVarint(uint64(f.sf.Int64(ptr)))
		case codeBitBool:
			if !f.sf.Present(ptr) {
				continue
			}
			n += int(f.TagLen) + 1
		case codeBitString:
			if !f.sf.Present(ptr) {
				continue
			}
			s, set := f.sf.PtrString(ptr)
			if !set {
				return 0, false // a bit without a string: the walk reads it
			}
			x, ok := e.sizeText(&f.Rec, f.sf.Layout, s, n)
			if !ok {
				return 0, false
			}
			n += x
		case codeMessage:
			c := f.sf.Ptr(ptr)
			if c.IsNil() {
				continue
			}
			x, ok := e.sizeNested(f, c, depth+1, -1)
			if !e.trail.Counted(n, x, ok, e.maxSize) {
				return 0, false
			}
			n += int(f.TagLen) + protowire.SizeBytes(x)
		case codeListMessage, codePtrListMessage:
			var k int
			if f.code == codeListMessage {
				k = f.sf.SliceLen(ptr) // a slice in place: no call
			} else {
				k = f.sf.Len(ptr)
			}
			for j := range k {
				x, ok := e.sizeNested(f, f.sf.MessageAt(ptr, j), depth+1, j)
				if !e.trail.Counted(n, x, ok, e.maxSize) {
					return 0, false
				}
				n += int(f.TagLen) + protowire.SizeBytes(x)
			}
		case codeMember:
			pos, w := f.more.oneof.Which(ptr)
			if pos != f.more.pos {
				continue
			}
			x, ok := e.sizeMember(f, w, depth)
			if !e.trail.Counted(n, x, ok, e.maxSize) {
				return 0, false
			}
			n += x
		case codeList: // most are empty: told without a call
			if f.sf.SliceLen(ptr) == 0 {
				continue
			}
			x, ok := e.genSizeList(f, ptr, depth)
			if !e.trail.Counted(n, x, ok, e.maxSize) {
				return 0, false
			}
			n += x
		case codeMap:
			if f.sf.MapNil(ptr) {
				continue
			}
			x, ok := e.genSizeMap(f, ptr, depth)
			if !e.trail.Counted(n, x, ok, e.maxSize) {
				return 0, false
			}
			n += x
		default:
			x, ok := e.sizeOther(f, ptr, depth)
			if !e.trail.Counted(n, x, ok, e.maxSize) {
				return 0, false
			}
			n += x
		}
	}
	if p.simple && !e.canon {
		n, ok := e.sizeUnknown(n, p.st.Unknown(ptr))
		if !ok {
			return n, e.genExceeded(p, ptr, depth)
		}
		return n, true
	}
	if end < p.regular {
		if n > e.maxSize && e.sizeFaults {
			// The walk passes the limit before the field.
			return 0, e.genExceeded(p, ptr, depth)
		}
		return 0, e.trail.Fail(fault.RequiredNotSet, p.fields[end].sf.Layout, n)
	}
	for _, o := range p.oneofs {
		pos, w := o.Which(ptr)
		if pos < 0 {
			continue
		}
		x, ok := e.sizeMember(&p.fields[pos], w, depth)
		if !e.trail.Counted(n, x, ok, e.maxSize) {
			return 0, false
		}
		n += x
	}
	if e.canon && p.st.ExtensionsLen(ptr) > 0 && !p.interleaved {
		// In number order: after the fields (an interleaved type's
		// codeExts steps merged them among its fields).
		x, ok := e.genSizeExtensionsAfter(p, ptr, depth)
		if !e.trail.Counted(n, x, ok, e.maxSize) {
			return 0, false
		}
		n += x
	}
	n, ok := e.sizeUnknown(n, p.st.Unknown(ptr))
	if !ok {
		// The count, n, for genLocate's programs of one field.
		return n, e.genExceeded(p, ptr, depth)
	}
	return n, true
}

// canonMissing returns the required field not set that the walk names
// in the message at ptr of p, a canonical variant, as it enters it
// (before its fields and extensions), or nil if every one is set (or
// none is checked).
func (e *enc) canonMissing(p *program, ptr genstore.Pointer) *layout.Field {
	b := p.base
	if e.partial || b == nil || len(b.required) == 0 {
		return nil
	}
	if r := b.firstMissing(ptr); r < b.regular {
		return b.fields[r].sf.Layout
	}
	return nil
}

// canonOrder reports whether the engine writes the messages of p in
// canonical order (see Options.Canonical): p is a canonical variant,
// whose codeExts steps merge extensions by number among the fields where
// its type's extension ranges start below its last field. Required
// fields are checked before (canonMissing).
func canonOrder(p *program) bool {
	return p.base != nil
}

// sizeNested returns the size of c, a message of field f at level
// depth (element index of a list, or -1), without its key or length, and
// records it for the write pass.
func (e *enc) sizeNested(f *genField, c genstore.Pointer, depth, index int) (int, bool) {
	if depth > e.levels.Deep && e.levels.Check(e.trail, f.sf.Layout, c.Addr(), depth, false) {
		return 0, false
	}
	if !e.visit(c) {
		return 0, false
	}
	child := f.childProgram()
	if child.err != nil {
		return 0, false
	}
	i := len(e.st.sizes)
	e.st.sizes = append(e.st.sizes, 0)
	if c.IsNil() {
		// A nil element or oneof value: written as an empty message, as
		// protoreflect reads it, which has no required field set.
		if !e.partial && len(child.st.Layout.RequiredFields) > 0 {
			e.trail.Fail(fault.RequiredNotSet, child.st.Layout.Absent(), 0)
			e.trail.Enter(f.sf.Layout, index)
			return 0, false
		}
		return 0, true
	}
	x, ok := e.genSize(child, c, depth)
	if !ok {
		e.trail.Enter(f.sf.Layout, index)
		return 0, false
	}
	e.st.sizes[i] = int32(x)
	return x, true
}

// visit notes a visit of the nested message c by the size pass, and
// reports false once the call has visited messages it saw before more
// than maxRepeats times (see seen).
func (e *enc) visit(c genstore.Pointer) bool {
	a := c.Addr()
	if a == 0 {
		return true
	}
	s := &e.st.seen[(uint64(a)*0x9e3779b97f4a7c15)>>(64-8)]
	if s.addr == a && s.epoch == e.st.seenEpoch {
		e.repeats++
		return e.repeats <= maxRepeats
	}
	s.addr, s.epoch = a, e.st.seenEpoch
	return true
}

// firstMissing returns the position of the first required field of the
// message at ptr that is not set, or p.regular if every one is (required
// fields are never oneof members).
func (p *program) firstMissing(ptr genstore.Pointer) int {
	for _, pos := range p.required {
		sf := p.fields[pos].sf
		if sf.PresenceBit >= 0 {
			if !sf.Present(ptr) {
				return int(pos)
			}
			continue
		}
		switch sf.Rep {
		case genstore.RepBytesPresence:
			if sf.Bytes(ptr) == nil {
				return int(pos)
			}
		default: // messages and pointer scalars
			if sf.Ptr(ptr).IsNil() {
				return int(pos)
			}
		}
	}
	return p.regular
}

// word returns the word (wire.Word) of the scalar field f stored in
// place or behind a pointer in the message (or wrapper) at ptr, and
// whether it is set: a pointer that is not nil, or a value in place that
// is not zero (a oneof member's caller ignores that).
func word(sf *genstore.Field, ptr genstore.Pointer) (uint64, bool) {
	switch sf.Rep {
	case genstore.RepBool:
		if sf.Bool(ptr) {
			return 1, true
		}
		return 0, false
	case genstore.RepInt32:
		v := sf.Int32(ptr)
		return uint64(int64(v)), v != 0
	case genstore.RepInt64:
		v := sf.Int64(ptr)
		return uint64(v), v != 0
	case genstore.RepUint32:
		v := sf.Uint32(ptr)
		return uint64(v), v != 0
	case genstore.RepUint64:
		v := sf.Uint64(ptr)
		return v, v != 0
	case genstore.RepFloat32:
		v := uint64(math.Float32bits(sf.Float32(ptr)))
		return v, v != 0
	case genstore.RepFloat64:
		v := math.Float64bits(sf.Float64(ptr))
		return v, v != 0
	case genstore.RepPtrBool:
		v, ok := sf.PtrBool(ptr)
		if v {
			return 1, ok
		}
		return 0, ok
	case genstore.RepPtrInt32:
		v, ok := sf.PtrInt32(ptr)
		return uint64(int64(v)), ok
	case genstore.RepPtrInt64:
		v, ok := sf.PtrInt64(ptr)
		return uint64(v), ok
	case genstore.RepPtrUint32:
		v, ok := sf.PtrUint32(ptr)
		return uint64(v), ok
	case genstore.RepPtrUint64:
		return sf.PtrUint64(ptr)
	case genstore.RepPtrFloat32:
		v, ok := sf.PtrFloat32(ptr)
		return uint64(math.Float32bits(v)), ok
	case genstore.RepPtrFloat64:
		v, ok := sf.PtrFloat64(ptr)
		return math.Float64bits(v), ok
	}
	return 0, false
}

// isScalarRep reports whether r is a scalar in place or behind a pointer.
func isScalarRep(r genstore.Rep) bool {
	return r >= genstore.RepBool && r <= genstore.RepFloat64 || r >= genstore.RepPtrBool && r <= genstore.RepPtrFloat64
}

// sizeOther returns the size of the field f (outside real oneofs) of the
// message at ptr, 0 if it is not set, for the cases size does not take
// inline.
func (e *enc) sizeOther(f *genField, ptr genstore.Pointer, depth int) (int, bool) {
	if f.code == codeExts {
		return e.genSizeMerged(f, ptr, depth)
	}
	sf := f.sf
	if sf.PresenceBit >= 0 {
		if !sf.Present(ptr) {
			return 0, true
		}
		return e.sizeSet(f, ptr)
	}
	switch {
	case isScalarRep(sf.Rep):
		w, ok := word(sf, ptr)
		if !ok {
			return 0, true
		}
		return int(f.TagLen) + wire.SizeWord(f.Op, w), true
	case sf.Rep == genstore.RepPtrString:
		s, ok := sf.PtrString(ptr)
		if !ok {
			return 0, true
		}
		return e.sizeText(&f.Rec, sf.Layout, s, 0)
	case sf.Rep == genstore.RepBytesPresence:
		s := sf.Bytes(ptr)
		if s == nil {
			return 0, true
		}
		return e.sizeBlob(&f.Rec, len(s), 0)
	case sf.Rep == genstore.RepMessage: // a group
		c := sf.Ptr(ptr)
		if c.IsNil() {
			return 0, true
		}
		x, ok := e.sizeNested(f, c, depth+1, -1)
		return int(f.TagLen) + f.Wrap(x), ok
	}
	return e.genSizeList(f, ptr, depth)
}

// sizeSet returns the size of the field f, in place or a *string, whose
// presence bit is set in the message at ptr: written whatever its value.
// A *string whose bit is set but which is nil is left to the walk.
func (e *enc) sizeSet(f *genField, ptr genstore.Pointer) (int, bool) {
	sf := f.sf
	switch sf.Rep {
	case genstore.RepPtrString:
		s, ok := sf.PtrString(ptr)
		if !ok {
			return 0, false
		}
		return e.sizeText(&f.Rec, sf.Layout, s, 0)
	case genstore.RepString:
		return e.sizeText(&f.Rec, sf.Layout, sf.String(ptr), 0)
	case genstore.RepBytes:
		return e.sizeBlob(&f.Rec, len(sf.Bytes(ptr)), 0)
	}
	w, _ := word(sf, ptr)
	return int(f.TagLen) + wire.SizeWord(f.Op, w), true
}

// sizeMember returns the size of f, the set member of a real oneof,
// whose wrapper is at w: set whatever its value.
func (e *enc) sizeMember(f *genField, w genstore.Pointer, depth int) (int, bool) {
	sf := f.sf
	switch sf.Rep {
	case genstore.RepString:
		return e.sizeText(&f.Rec, sf.Layout, sf.String(w), 0)
	case genstore.RepBytes:
		return e.sizeBlob(&f.Rec, len(sf.Bytes(w)), 0)
	case genstore.RepMessage:
		x, ok := e.sizeNested(f, sf.Ptr(w), depth+1, -1)
		return int(f.TagLen) + f.Wrap(x), ok
	}
	v, _ := word(sf, w)
	return int(f.TagLen) + wire.SizeWord(f.Op, v), true
}

// sizeList returns the size of the list field f of the message at ptr.
func (e *enc) genSizeList(f *genField, ptr genstore.Pointer, depth int) (int, bool) {
	sf := f.sf
	k := sf.Len(ptr)
	if k == 0 {
		return 0, true
	}
	n := 0
	switch sf.Rep {
	case genstore.RepListString:
		return e.sizeTexts(&f.Rec, sf.Layout, sf.Strings(ptr))
	case genstore.RepListBytes:
		return e.sizeBlobs(&f.Rec, sf.BytesList(ptr))
	case genstore.RepListMessage, genstore.RepPtrListMessage:
		for j := range k {
			x, ok := e.sizeNested(f, sf.MessageAt(ptr, j), depth+1, j)
			if !e.trail.Counted(n, x, ok, e.maxSize) {
				return 0, false
			}
			n += int(f.TagLen) + f.Wrap(x)
		}
		return n, e.within(n)
	}
	// Scalars: packed, one record, or a key per element.
	if k > e.maxSize {
		return 0, false
	}
	body := scalarsBody(f, ptr, k)
	if f.Op == wire.OpPacked {
		return int(f.TagLen) + protowire.SizeBytes(body), true
	}
	return k*int(f.TagLen) + body, true
}

// scalarsBody returns the size of the k elements of the scalar list field
// f of the message at ptr, without keys: a packed record's body.
func scalarsBody(f *genField, ptr genstore.Pointer, k int) int {
	sf := f.sf
	switch sf.Rep {
	case genstore.RepListInt32:
		return wire.PackedSize(f.Elem, sf.Int32s(ptr))
	case genstore.RepListUint32:
		return wire.PackedSize(f.Elem, sf.Uint32s(ptr))
	case genstore.RepListInt64:
		return wire.PackedSize(f.Elem, sf.Int64s(ptr))
	case genstore.RepListUint64:
		return wire.PackedSize(f.Elem, sf.Uint64s(ptr))
	case genstore.RepListBool:
		return k // a byte each: 0 or 1
	case genstore.RepListFloat32:
		return 4 * k
	default: // RepListFloat64
		return 8 * k
	}
}

// elemWord returns the word of element j of sf, a list of bools or
// floats, of the message at ptr.
func elemWord(sf *genstore.Field, ptr genstore.Pointer, j int) uint64 {
	switch sf.Rep {
	case genstore.RepListBool:
		if sf.Bools(ptr)[j] {
			return 1
		}
		return 0
	case genstore.RepListFloat32:
		return uint64(math.Float32bits(sf.Float32s(ptr)[j]))
	default: // RepListFloat64
		return math.Float64bits(sf.Float64s(ptr)[j])
	}
}

// sizeMap returns the size of the map field f of the message at ptr: it
// reads its entries once, into the call's entries (sorted by key when the
// call is deterministic), for the write pass to take in the same order.
func (e *enc) genSizeMap(f *genField, ptr genstore.Pointer, depth int) (int, bool) {
	mv := f.sf.Map(ptr)
	if mv.Len() == 0 {
		return 0, true
	}
	if e.signing {
		return 0, e.trail.Fail(fault.MapRefused, f.sf.Layout, 0)
	}
	if e.levels.Past(e.trail, f.sf.Layout, depth+1) {
		return 0, false // the entries are one level down
	}
	x := f.more
	start := len(e.st.recs)
	e.mapped = true
	key := e.st.scratchOf(x.keyType, false)
	val := e.st.scratchOf(x.valueType, true)
	var child *program
	if f.Elem == wire.OpMessage {
		if child = f.childProgram(); child.err != nil {
			return 0, false
		}
	}
	it := &e.st.iter
	it.Reset(mv)
	for it.Next() {
		key.SetIterKey(it)
		val.SetIterValue(it)
		var en entry
		switch f.sf.Key {
		case genstore.RepString:
			en.ks = key.String()
		case genstore.RepBool:
			if key.Bool() {
				en.kw = 1
			}
		case genstore.RepInt32, genstore.RepInt64:
			en.kw = uint64(key.Int())
		default:
			en.kw = key.Uint()
		}
		switch f.sf.Val {
		case genstore.RepString:
			en.vs = val.String()
		case genstore.RepBytes:
			en.vb = val.Bytes()
		case genstore.RepMessage:
			m, _ := val.Interface().(protoreflect.ProtoMessage)
			p, ok := child.st.PointerOf(m)
			if !ok {
				return 0, false
			}
			en.vp = p
		case genstore.RepBool:
			if val.Bool() {
				en.vw = 1
			}
		case genstore.RepInt32, genstore.RepInt64:
			en.vw = uint64(val.Int())
		case genstore.RepFloat32:
			en.vw = uint64(math.Float32bits(float32(val.Float())))
		case genstore.RepFloat64:
			en.vw = math.Float64bits(val.Float())
		default:
			en.vw = val.Uint()
		}
		e.st.recs = append(e.st.recs, en)
	}
	entries := e.st.recs[start:]
	if e.det {
		e.st.sortEntries(entries, x.KeyOrder)
	}
	n := 0
	for i := range entries {
		// Indexed anew: sizing a value may append nested maps' entries.
		en := e.st.recs[start+i]
		if e.utf8 {
			if key, value := en.invalidUTF8(&f.Rec, &x.RecMore); key || value {
				e.invalidEntry(f.sf.Layout, &en, key)
				e.trail.Up(n)
				return 0, false
			}
		}
		if child != nil && depth+2 > e.levels.Deep && !e.deepEntry(f.sf.Layout, &en, en.vp.Addr(), depth) {
			e.trail.Up(n)
			return 0, false
		}
		y, ok := e.genEntrySize(f, child, &en, depth)
		if !ok {
			e.trail.EnterEntry(f.sf.Layout, en.kw, en.ks, true)
		}
		if !e.trail.Counted(n, y, ok, e.maxSize) {
			return 0, false
		}
		n += int(f.TagLen) + protowire.SizeBytes(y)
	}
	return n, e.within(n)
}

// entrySize returns the size of the body of a map entry of field f: its
// key and value, both always written. A message value is counted (and
// its size recorded) here.
func (e *enc) genEntrySize(f *genField, child *program, en *entry, depth int) (int, bool) {
	vn := 0
	if f.Elem == wire.OpMessage {
		if !e.visit(en.vp) {
			return 0, false
		}
		i := len(e.st.sizes)
		e.st.sizes = append(e.st.sizes, 0)
		if !en.vp.IsNil() {
			var ok bool
			if vn, ok = e.genSize(child, en.vp, depth+2); !ok {
				return 0, false
			}
		} else if !e.partial && len(child.st.Layout.RequiredFields) > 0 {
			// A nil value is an empty message, which has no required
			// field set.
			return 0, e.trail.Fail(fault.RequiredNotSet, child.st.Layout.Absent(), 0)
		}
		e.st.sizes[i] = int32(vn)
	}
	return entryLen(&f.Rec, &f.more.RecMore, en, vn, e.maxSize)
}
