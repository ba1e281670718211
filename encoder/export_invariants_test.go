//go:build protolayout_debug

package encoder

// For writer_invariants_test.go: the verdict of the Writer's invariant
// check, and a hook that breaks one invariant of a Writer's state.

// InvariantError returns the first invariant w's state breaks, or nil.
func InvariantError(w *Writer) error { return w.invariantError() }

// Corrupt breaks the invariant named what of w's state, in place; it
// reports false if w's state has nothing to break for it (no open frame,
// no packed record, ...). It changes the Writer only, never the tables
// shared with other Writers.
func Corrupt(w *Writer, what string) bool {
	n := len(w.frames)
	if n == 0 {
		return false
	}
	top := &w.frames[n-1]
	switch what {
	case "state":
		w.state = 7
	case "frames":
		w.frames = w.frames[:0]
	case "depth":
		w.depth++
	case "slack":
		w.slack++
	case "limit":
		w.limit--
	case "error":
		w.err = &Error{Err: ErrOutOfOrder} // and the fast paths left on
	case "fast":
		w.setFast(nil)
	case "stats":
		w.stats.Moves = -1
	case "last":
		w.lastAt, w.lastN = len(w.buf), 2
	case "parent":
		if n < 2 {
			return false
		}
		top.parent = nil
	case "start":
		top.start = len(w.buf) + 1
	case "length": // the reserved length prefix written while open
		if n < 2 || top.width == 0 {
			return false
		}
		w.buf[top.start-1] = 0x7f
	case "tag":
		if n < 2 {
			return false
		}
		w.buf[w.tagAt(n-1)] ^= 0xff
	case "written": // the last field marked written, before its turn
		last := len(top.tab.Layout.Fields) - 1
		if top.pos >= last {
			return false
		}
		top.setWritten(last)
	case "oneof": // the oneof's first member marked written beside the current one
		if top.phase != phaseFields {
			return false
		}
		f := &top.tab.Layout.Fields[top.pos]
		if f.Oneof < 0 || top.tab.Layout.Oneofs[f.Oneof].First == top.pos {
			return false
		}
		top.setWritten(top.tab.Layout.Oneofs[f.Oneof].First)
	case "entry": // a map entry's value marked written, not its key
		if !top.entry {
			return false
		}
		top.written = 2
	case "packed": // the packed record's reserved length written while open
		if top.pack < 0 {
			return false
		}
		w.buf[top.pack-1] = 1
	default:
		return false
	}
	return true
}
