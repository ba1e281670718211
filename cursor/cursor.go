// Package cursor walks a protobuf message without recursion, in the order
// proto.Marshal writes it, for code that builds its own transcoder (to
// JSON, to another wire format, to a hash) over protolayout's layouts.
//
// A Walker keeps an explicit stack of frames, one per open message or map
// entry, so that depth is bounded by Options.MaxDepth and never by the
// goroutine stack, and hands out the message as a flat sequence of Items:
//
//	Value    a scalar, string or bytes value of Field (a singular field, one
//	         element of an unpacked list, a map entry's key or value)
//	Packed   a whole non-empty packed list of Field (Value is the list)
//	Enter    a nested message of Field (Value is the message; it may be
//	         invalid, and then it is empty); its contents follow, up to Exit
//	Entry    one map entry of the map field Field; its key (a Value) and its
//	         value (a Value, or Enter ... Exit) follow, up to Exit
//	Exit     the end of the innermost open message or map entry
//	Unknown  the current message's unknown fields, raw (Value is the bytes)
//	Failed   the walk cannot go on; Err says why and where
//	Done     the end of the walk
//
// The order is the one encoder.Marshal and proto.Marshal use: set
// extensions by ascending number, then the fields of the layout's emission
// order (see package layout), then the unknown fields; map entries sorted
// by key with Options.Deterministic, else in the map's own order. The
// walker is the one the encoder itself runs (its size pass consumes the
// same sequence), wrapped so that Fields are read-only layout views.
//
// A Walker is reused across walks: Release drops every message reference
// it holds and keeps a bounded amount of scratch space. A Walker belongs
// to one goroutine at a time.
package cursor

import (
	"strconv"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	icursor "github.com/protolayout/protolayout/internal/cursor"
	ilayout "github.com/protolayout/protolayout/internal/layout"
	"github.com/protolayout/protolayout/layout"
)

// DefaultMaxDepth is the nesting limit used when Options.MaxDepth is 0:
// proto.Unmarshal's default recursion limit.
const DefaultMaxDepth = icursor.DefaultMaxDepth

// Kind says what an Item holds.
type Kind uint8

// The kinds of Items; see the package documentation.
const (
	Done    = Kind(icursor.Done)
	Value   = Kind(icursor.Value)
	Packed  = Kind(icursor.Packed)
	Enter   = Kind(icursor.Enter)
	Entry   = Kind(icursor.Entry)
	Exit    = Kind(icursor.Exit)
	Unknown = Kind(icursor.Unknown)
	Failed  = Kind(icursor.Failed)
)

// String returns the kind's name, such as "Enter".
func (k Kind) String() string {
	switch k {
	case Done:
		return "Done"
	case Value:
		return "Value"
	case Packed:
		return "Packed"
	case Enter:
		return "Enter"
	case Entry:
		return "Entry"
	case Exit:
		return "Exit"
	case Unknown:
		return "Unknown"
	case Failed:
		return "Failed"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Item is one step of a walk.
type Item struct {
	// Kind says what the item is.
	Kind Kind
	// Field is the field the item concerns: the field of a Value, Packed
	// or Enter item, the map field of an Entry, the field an Exit closes;
	// for a Failed item, the field to blame, if any. It is the zero Field
	// for Unknown and Done.
	Field layout.Field
	// Value is the scalar of a Value item, the list of a Packed item, the
	// message of an Enter item, the raw bytes of an Unknown item.
	Value protoreflect.Value
	// Err, for a Failed item, says what failed and where, such as
	// "required field not set at child.leaf"; errors.Is(Err, proto.Error)
	// is true.
	Err error
}

// Options configure a walk. The zero value walks with DefaultMaxDepth,
// without checking required fields, map entries in map order.
type Options struct {
	// MaxDepth is the recursion limit, counted as proto.Unmarshal counts
	// it: the root message is level 1, and every nested message, group
	// and map entry one level more. A message or map entry past level
	// MaxDepth gives a Failed item. 0 means DefaultMaxDepth. A message
	// that contains itself gives a Failed item ("message contains
	// itself") whatever the limit.
	MaxDepth int
	// CheckRequired gives a Failed item at the first required field that
	// is not set, in walk order, nested messages included.
	CheckRequired bool
	// Deterministic hands out map entries sorted by key, as proto.Marshal
	// writes them with Deterministic; without it they come in the order
	// the map's Range yields them.
	Deterministic bool
}

// Walker walks one message at a time. The zero Walker is ready to use.
type Walker struct {
	w      icursor.Walker
	failed Item // the Failed item, once the walk has failed
}

// Reset starts a walk over m. Call Release when the walk is over, whether
// it reached Done or not.
func (w *Walker) Reset(m protoreflect.Message, o Options) {
	w.failed = Item{}
	w.w.Reset(m, icursor.Options{MaxDepth: o.MaxDepth, CheckRequired: o.CheckRequired, Unsorted: !o.Deterministic})
}

// Next returns the next item. After Done or Failed it returns the same
// item again.
func (w *Walker) Next() Item {
	if w.failed.Kind == Failed {
		return w.failed
	}
	it := w.w.Next()
	out := Item{Kind: Kind(it.Kind), Value: it.Value}
	if it.Field != nil {
		out.Field = layout.Field(ilayout.ViewOfField(it.Field))
	}
	if it.Kind == icursor.Failed {
		out.Err = &walkError{msg: it.Fault.String() + pathSuffix(w.w.AppendPath(nil, it.Field))}
		out.Value = protoreflect.Value{}
		w.failed = out
	}
	return out
}

func pathSuffix(p []byte) string {
	if len(p) == 0 {
		return ""
	}
	return " at " + string(p)
}

// Depth returns the nesting depth of the innermost open message or map
// entry: 0 for the root (and once the walk is over), 1 right after the
// Enter or Entry of one of its fields, back to 0 at the matching Exit.
func (w *Walker) Depth() int { return max(w.w.Depth(), 0) }

// Skip abandons the message the last Enter item opened: its contents are
// not walked and no Exit follows for it. Call it right after that Enter
// item, before the next call to Next.
func (w *Walker) Skip() { w.w.Skip() }

// Release ends the walk: the Walker drops every reference to the message
// it walked and trims its scratch space.
func (w *Walker) Release() {
	w.w.Release()
	w.failed = Item{}
}

// walkError is a Failed item's error.
type walkError struct{ msg string }

func (e *walkError) Error() string { return "cursor: " + e.msg }

// Is makes errors.Is(err, proto.Error) true, as it is for protobuf's own
// errors.
func (e *walkError) Is(target error) bool { return target == proto.Error }
