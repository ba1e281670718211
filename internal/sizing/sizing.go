// Package sizing is the size pass of the encoder. It walks a message over
// its layouts (through a cursor.Walker), validates it before anything is
// written (UTF-8 where the schema asks, required fields, depth, the size
// limit), and records a tape: every value it read, in emission order, with
// the size of every length-prefixed part (nested messages, groups, map
// entries, packed fields) on the op that opens it. The write pass replays
// the tape: it never reads the message again and never sizes anything
// twice.
//
// All arithmetic is checked against the size limit, which is at most
// 2 GiB - 1, so no sum can overflow.
//
// Shared subtrees (one message object reachable along several paths) are
// handled by bounded identity summaries: a subtree whose sizing examined
// more than MemoThreshold content units (fields, elements, unknown bytes,
// string bytes) is remembered by message identity for the rest of the call.
// When the same message shows up again, its recorded size is reused and a
// Ref op points the write pass at the first occurrence's ops. Small
// subtrees are never looked up, so ordinary trees pay nothing for this.
//
// The package is for the encoder package of this module.
package sizing

import (
	"reflect"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/cursor"
	"github.com/protolayout/protolayout/internal/fault"
	"github.com/protolayout/protolayout/internal/layout"
	"github.com/protolayout/protolayout/internal/retain"
	"github.com/protolayout/protolayout/internal/utf8x"
	"github.com/protolayout/protolayout/internal/wire"
)

// The pass is in five files: this one has Size, which dispatches the
// walker's items by kind, and the stack of open parts; measure.go
// validates values and does the size arithmetic; tape.go documents the
// tape's grammar and records it; maps.go expands whole maps; memo.go is
// the identity memo.

// maxRetained bounds the remembered subtrees a Sizer keeps between calls
// (the tape and the level stack are kept within a retention budget; see
// ReleaseKeeping).
const maxRetained = 1 << 16

// Options configure a size pass.
type Options struct {
	// Record makes the pass record the tape for a write pass; without it
	// only the size is computed.
	Record bool
	// Walk configures the traversal (depth limit, required fields).
	Walk cursor.Options
	// MaxSize is the largest encoding allowed; 0 or anything above
	// 2 GiB - 1 means 2 GiB - 1.
	MaxSize int
	// ValidateUTF8 checks strings whose schema requires valid UTF-8.
	ValidateUTF8 bool
}

// Stats describe the last size pass, for tests and diagnostics; they
// stay readable after Release, until the next pass.
type Stats struct {
	// Steps counts the work of the pass: the walker's items it read, and
	// the entries of the maps it sized whole. A reused subtree costs one
	// step, however large it is.
	Steps int
	// Remembered counts subtrees stored by identity.
	Remembered int
	// Reused counts subtrees whose size came from an earlier occurrence.
	Reused int
	// Lookups counts identity lookups.
	Lookups int
}

// level is an open part: the root message, a nested message or group, or
// a map entry.
type level struct {
	size   int // of the body so far
	units  int // content units examined so far
	height int // levels (messages, groups, map entries) below this part
	op     int // index of the part's OpEnter in Tape, or -1
	field  *layout.Field
	msg    protoreflect.Message // set for message parts eligible for memoizing
	lay    *layout.Layout       // the message's layout
	entry  bool
}

// Sizer runs size passes. The zero Sizer is ready to use; it belongs to one
// goroutine at a time and keeps its scratch space between calls.
type Sizer struct {
	// Tape is what the last pass recorded with Options.Record.
	Tape []Op
	// Stats describe the last pass.
	Stats Stats

	stack []level
	used  int // the deepest the stack has been since reset
	memo  identityMemo
}

// Size walks m with w and returns the size of its encoding. On failure it
// returns the fault and the field to blame (nil when none is), with w left
// at the point of failure so the caller can read the path; the caller
// releases w in either case.
func (s *Sizer) Size(w *cursor.Walker, m protoreflect.Message, o Options) (int, fault.Fault, *layout.Field) {
	limit := o.MaxSize
	if limit <= 0 || limit > wire.MaxSize {
		limit = wire.MaxSize
	}
	if s.used > 0 { // else released since the last pass: nothing to reset
		s.reset()
	}
	s.Stats = Stats{}
	w.Reset(m, o.Walk)
	top := s.push(-1, nil, nil, nil, false)
	rec := o.Record

	for {
		it := w.Next()
		s.Stats.Steps++
		var n int // what the item adds to the open part, top
		switch it.Kind {
		case cursor.Done:
			return top.size, fault.OK, nil

		case cursor.Failed:
			return 0, it.Fault, it.Field

		case cursor.Value:
			// What sizeValue does, here, from helpers that inline: the
			// commonest item goes without a call of its own. it.Value
			// is read where it is used; a copy would be spilled.
			f := it.Field
			top.units++
			switch f.Kind {
			case protoreflect.StringKind:
				str := it.Value.String()
				if checksUTF8(f, o.ValidateUTF8) && !utf8x.ValidString(str) {
					return 0, fault.InvalidUTF8, f
				}
				top.units += len(str)
				n = delimitedSize(f, len(str))
			case protoreflect.BytesKind:
				l := len(it.Value.Bytes())
				top.units += l
				n = delimitedSize(f, l)
			default:
				n = scalarSize(f, it.Value)
			}
			s.recordValue(rec, f, it.Value)

		case cursor.Packed:
			f := it.Field
			l := it.Value.List()
			body, ok := wire.SizePackedList(f.Kind, l, limit)
			if !ok {
				return 0, fault.SizeExceeded, f
			}
			top.units += l.Len()
			s.recordPacked(rec, f, body, it.Value)
			n = packedRecordSize(f, body)

		case cursor.Unknown:
			n = len(it.Value.Bytes())
			top.units += n
			s.recordUnknown(rec, it.Value)

		case cursor.Map:
			if code, f := s.sizeMap(w, top, it.Field, o.ValidateUTF8, rec, limit); code != fault.OK {
				return 0, code, f
			}
			top.height = max(top.height, 1) // its entries are a level below
			continue

		case cursor.Enter:
			msg := w.Message() // it.Message(), already converted by the walker
			lay := w.Layout()
			if msg != nil && s.memo.mayHave(lay) {
				// Reused only where its deepest level (the message's own
				// level is Depth()+1) stays within the limit.
				if e, ok := s.memo.recall(msg, &s.Stats); ok && w.Depth()+1+e.height <= w.MaxDepth() {
					if !s.reuse(w, top, it.Field, e, rec, limit) {
						return 0, fault.SizeExceeded, it.Field
					}
					continue
				}
			}
			top = s.push(s.open(rec, it.Field), it.Field, msg, lay, false)
			continue

		case cursor.Entry:
			top = s.push(s.open(rec, it.Field), it.Field, nil, nil, true)
			continue

		case cursor.Exit:
			var ok bool
			if top, ok = s.exit(top, rec, limit); !ok {
				return 0, fault.SizeExceeded, it.Field // the part's field
			}
			continue
		}

		var ok bool
		if top.size, ok = wire.AddSize(top.size, n, limit); !ok {
			return 0, fault.SizeExceeded, it.Field
		}
	}
}

// push opens a level for a part entered through f (nil for the root) and
// returns it. A reused level is overwritten whole; reset clears the levels
// used, which keep their references once popped.
func (s *Sizer) push(op int, f *layout.Field, msg protoreflect.Message, lay *layout.Layout, entry bool) *level {
	n := len(s.stack)
	if n < cap(s.stack) {
		s.stack = s.stack[:n+1]
	} else {
		s.stack = append(s.stack, level{})
	}
	s.used = max(s.used, n+1)
	lv := &s.stack[n]
	lv.size, lv.units, lv.height, lv.op = 0, 0, 0, op
	lv.field, lv.msg, lv.lay, lv.entry = f, msg, lay, entry
	return lv
}

// exit closes lv, the innermost part, at its Exit item: it sets the body
// size of lv's OpEnter, adds lv, wrapped, to its parent, and offers a
// message part to the memo. It returns the parent, now the innermost part,
// and reports false when the parent's size exceeds limit.
func (s *Sizer) exit(lv *level, rec bool, limit int) (*level, bool) {
	// The popped level stays in the stack's array (reset clears it)
	// until the next push.
	s.stack = s.stack[:len(s.stack)-1]
	top := &s.stack[len(s.stack)-1]
	s.setSize(rec, lv.op, lv.size)
	n, ok := wrapped(lv.field, lv.size, limit)
	if !ok {
		return top, false
	}
	top.units += lv.units + 1
	// A map entry is a level, as for the decoder's recursion limit.
	top.height = max(top.height, lv.height+1)
	if !lv.entry {
		s.memo.offer(lv, &s.Stats)
	}
	top.size, ok = wire.AddSize(top.size, n, limit)
	return top, ok
}

func (s *Sizer) reset() {
	clear(s.stack[:s.used]) // popped levels keep their references
	s.stack, s.used = s.stack[:0], 0
	clear(s.Tape) // drop the references to the caller's values
	s.Tape = s.Tape[:0]
	s.memo.reset()
}

// Release drops every message reference the Sizer holds and trims its
// scratch space.
func (s *Sizer) Release() {
	budget := retain.Floor
	s.ReleaseKeeping(&budget)
}

// ReleaseKeeping ends the size pass as Release does, keeping the tape and
// the level stack only while they fit in budget (in bytes), which it
// decreases by what they hold.
func (s *Sizer) ReleaseKeeping(budget *int) {
	s.memo.trim()
	s.reset()
	if !retain.Keep(budget, cap(s.Tape)*opBytes) {
		s.Tape = nil
	}
	if !retain.Keep(budget, cap(s.stack)*levelBytes) {
		s.stack = nil
	}
}

// The sizes of a tape op and of a level, for the retention budget.
var (
	opBytes    = int(reflect.TypeFor[Op]().Size())
	levelBytes = int(reflect.TypeFor[level]().Size())
)
