package engine

import (
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/protolayout/protolayout/internal/genstore"
)

// Extensions in canonical order (Options.Canonical). A message's set
// extensions, sorted by number, are merged among its fields in number
// order: before a field go the extensions numbered below it that have
// not been written, and after the last field the rest, as the walk
// writes them. Both storages' passes merge them with extBefore and size
// each one with sizeCanonExt, so that a fault in an extension is named
// where the walk meets it, among the fields:
//
//   - dynamic's messages at every step of encProgram.canon
//     (sizeCanonical, appendCanonical), their extensions stored sorted;
//   - generated messages at the codeExts steps of the canonical variant
//     of a type whose extension ranges start below its last field
//     (program.interleaved), one before each field numbered above the
//     first range's start and one after the last field: each records,
//     sizes and writes the set extensions numbered from the step before
//     it to its field (genRecordExtensions, genTakeExtensions), so that
//     the passes keep no cursor. The steps go through sizeOther and
//     appendOther, so that the passes' inline switch over the fields is
//     that of any other type. Other types have their extensions
//     numbered above their fields: the passes write them after the
//     fields (genSize, appendRest), without a step.

// extBefore reports whether the extension of record x comes before the
// field numbered num in canonical order.
func extBefore(x *encField, num protowire.Number) bool {
	return x.more.lf.Number < num
}

// sizeCanonExt ends the size, k bytes (ok false if it failed), of the
// extension of record x under Canonical: under Signing, a repeated
// scalar that is not packed, which the profile packs and the passes do
// not, is counted with packedMargin and sets enc.packs (the walk then
// writes the message).
func (e *enc) sizeCanonExt(x *encField, k int, ok bool) (int, bool) {
	if ok && e.signing && x.more.lf.SigningPacks() {
		if k > e.maxSize-packedMargin {
			return 0, false
		}
		e.packs = true
		k += packedMargin
	}
	return k, ok
}

// inRange reports whether the extension numbered num is merged by the
// codeExts step for the numbers from from to below (below excluded).
func inRange(num int32, from, below protowire.Number) bool {
	return protowire.Number(num) >= from && protowire.Number(num) < below
}

// genSizeExtensionsAfter returns the size of the set extensions of the
// message at ptr of p, a canonical variant of a type that is not
// interleaved, at level depth, written after its fields: every one is
// numbered above them (else the walk writes the message).
func (e *enc) genSizeExtensionsAfter(p *program, ptr genstore.Pointer, depth int) (int, bool) {
	start := len(e.st.exts)
	x, ok := e.genSizeExtensions(p, ptr, depth)
	if !ok || len(e.st.exts) == start {
		return x, ok
	}
	if extBefore(e.st.exts[start].rec, p.maxNumber) {
		return 0, false
	}
	for i := start; i < start+int(e.st.exts[start].run); i++ {
		if x, ok = e.sizeCanonExt(e.st.exts[i].rec, x, ok); !ok {
			return 0, false
		}
	}
	return x, true
}

// genSizeMerged is the size pass's codeExts step f of the message at ptr
// of program p, at level depth: it records the message's set extensions
// of the step's numbers, sorted, for the write pass, and sizes them.
func (e *enc) genSizeMerged(f *genField, ptr genstore.Pointer, depth int) (int, bool) {
	p := f.more.prog
	if p.st.ExtensionsLen(ptr) == 0 {
		return 0, true
	}
	start, k, ok := e.genRecordExtensions(p, ptr, f.more.from, f.more.below)
	if !ok {
		return 0, false
	}
	n := 0
	for i := start; i < start+k; i++ {
		// Copied: sizing a message value may append its own extensions,
		// and so move the slice.
		x := e.st.exts[i]
		y, c, ok := e.sizeExtension(x.rec, x.v, depth)
		y, ok = e.sizeCanonExt(x.rec, y, ok)
		if !e.trail.Counted(n, y, ok, e.maxSize) {
			return 0, false
		}
		e.st.exts[i].child = c
		n += y
	}
	return n, true
}

// genAppendMerged is the write pass's codeExts step f of the message at
// ptr of program p, at level depth: it takes the extensions the size
// pass recorded at the step (genTakeExtensions) and writes them.
func (e *enc) genAppendMerged(b []byte, f *genField, ptr genstore.Pointer, depth int) ([]byte, bool) {
	p := f.more.prog
	if p.st.ExtensionsLen(ptr) == 0 && !e.hasExtensions(ptr) {
		return b, true
	}
	return e.genAppendExtensions(b, p, ptr, f.more.from, f.more.below, depth)
}
