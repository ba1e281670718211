//go:build !protolayout_debug

package encoder

// check does nothing and inlines away: the invariant check of the
// Writer's state that every exported method ends with is compiled in
// only with the protolayout_debug build tag (writer_invariants.go).
func (w *Writer) check() {}
