// Package walk is the checked walk, the encoder that reads any
// protoreflect.Message: a size pass over the layout walker (package
// sizing, which checks every limit and records a tape of what to write),
// then a write pass that replays the tape without reading the message
// again and checks every nested length once written. It is the encoder's
// path for dynamicpb messages, for messages of other implementations, and
// for whatever the direct encoders leave to it (limits met, cycles,
// shared subtrees, MessageSet); its errors are the ones every other path
// agrees with.
//
// Package encoder keeps a Walk in each Encoder; package dynamic's
// fast-path methods borrow one with Append and Size.
package walk

import (
	"math"
	"reflect"
	"sync"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/cursor"
	"github.com/protolayout/protolayout/internal/fault"
	"github.com/protolayout/protolayout/internal/layout"
	"github.com/protolayout/protolayout/internal/retain"
	"github.com/protolayout/protolayout/internal/sizing"
	"github.com/protolayout/protolayout/internal/wire"
)

// Options configure one call.
type Options struct {
	// Partial leaves required fields unchecked.
	Partial bool
	// Deterministic sorts map entries by key.
	Deterministic bool
	// MaxDepth is the depth limit; 0 means cursor.DefaultMaxDepth.
	MaxDepth int
	// MaxSize is the size limit; 0, or anything above wire.MaxSize, means
	// wire.MaxSize.
	MaxSize int
	// Canonical writes every message's fields in field-number order
	// (cursor.Options.Canonical), map entries sorted; Signing adds the
	// Signing profile's rules (cursor.Options.Signing).
	Canonical, Signing bool
}

// maxSize is the size limit o sets.
func (o *Options) maxSize() int {
	if o.MaxSize <= 0 || o.MaxSize > wire.MaxSize {
		return wire.MaxSize
	}
	return o.MaxSize
}

// sizing returns the size pass options: for a marshal (which validates and
// records the tape) or for a size alone.
func (o *Options) sizing(marshal bool) sizing.Options {
	return sizing.Options{
		Walk: cursor.Options{
			MaxDepth:      o.MaxDepth,
			CheckRequired: marshal && !o.Partial,
			// Order does not change a size.
			Unsorted:  !marshal || !o.Deterministic && !o.Canonical,
			WholeMaps: true,
			Canonical: o.Canonical,
			Signing:   o.Signing,
		},
		MaxSize:      o.maxSize(),
		ValidateUTF8: marshal,
		Record:       marshal,
	}
}

// A Walk is the scratch space of the checked walk, reused across calls:
// the walker's frames, the size pass's tape and the write pass's stack.
// Between calls it keeps what the recent calls justify (retain.Budget)
// and no reference to anything a caller passed. The zero Walk is ready
// to use; a Walk belongs to one goroutine at a time.
type Walk struct {
	walker cursor.Walker
	sizer  sizing.Sizer
	stack  []open
	// retention decides how much scratch space is kept between calls.
	retention retain.Budget
}

// open is a length-prefixed part being written.
type open struct {
	end     int           // offset in the buffer where the body ends, by the recorded size
	field   *layout.Field // the field it was opened through
	restore int           // tape index to resume after a replayed part, or -1
}

// openBytes is the size of an open part, for the retention budget.
var openBytes = int(reflect.TypeFor[open]().Size())

// Append encodes mr, appending to b: the size pass, then the write pass.
// On error it returns b unchanged and an *fault.Error naming the field
// and its path.
func (w *Walk) Append(b []byte, mr protoreflect.Message, o Options) ([]byte, error) {
	size, code, f := w.sizer.Size(&w.walker, mr, o.sizing(true))
	if code != fault.OK {
		err := w.newError(code, f, mr, &o)
		w.release(0)
		return b, err
	}
	if size == 0 {
		w.release(0)
		return b, nil
	}
	out := wire.Grow(b, size)
	out, code, f = w.write(out)
	if code == fault.OK && len(out)-len(b) != size {
		code, f = fault.SizeMismatch, nil
	}
	if code != fault.OK {
		err := w.newError(code, f, mr, &o)
		w.release(size)
		return b, err
	}
	w.release(size)
	return out, nil
}

// Size returns the size of mr's encoding, or 0 and the error of the
// limit it meets (depth, size, a cycle). Like proto.Size it neither
// validates UTF-8 nor checks required fields.
func (w *Walk) Size(mr protoreflect.Message, o Options) (int, error) {
	n, code, f := w.sizer.Size(&w.walker, mr, o.sizing(false))
	var err error
	if code != fault.OK {
		n, err = 0, w.newError(code, f, mr, &o)
	}
	w.release(n)
	return n, err
}

// Stats returns the statistics of the last size pass.
func (w *Walk) Stats() sizing.Stats { return w.sizer.Stats }

// Kept returns the bytes of tape and stack w keeps between calls, the
// part of its scratch that grows with the output.
func (w *Walk) Kept() int {
	return cap(w.sizer.Tape)*opBytes + cap(w.stack)*openBytes
}

var opBytes = int(reflect.TypeFor[sizing.Op]().Size())

// newError builds the error for fault c on field f, reading the path from
// the walker, which must still be positioned where the fault happened.
func (w *Walk) newError(c fault.Fault, f *layout.Field, root protoreflect.Message, o *Options) *fault.Error {
	e := fault.NewError(c, f, root, o.maxSize())
	if c == fault.DepthExceeded {
		e.Limit = w.walker.MaxDepth()
	}
	e.Path = string(w.walker.AppendPath(nil, f))
	return e
}

// write is the write pass: it replays the tape recorded by the size pass,
// appending to b, without reading the message again. It takes every length
// from the tape and checks each part's length once it is written.
func (w *Walk) write(b []byte) ([]byte, fault.Fault, *layout.Field) {
	tape := w.sizer.Tape
	end := math.MaxInt // where the innermost open part ends
	for i := 0; i < len(tape); i++ {
		op := &tape[i]
		f := op.Field
		switch op.Kind {
		case sizing.OpValue:
			b = wire.AppendKey(b, f.Tag)
			b = wire.AppendScalar(b, f.Kind, op.Value)

		case sizing.OpPacked:
			b = append(b, f.PackedTag...)
			b = wire.AppendVarint(b, uint64(op.Size))
			start := len(b)
			b = wire.AppendPacked(b, f.Kind, op.Value.List())
			if len(b)-start != int(op.Size) {
				return b, fault.SizeMismatch, f
			}

		case sizing.OpUnknown:
			b = append(b, op.Value.Bytes()...)

		case sizing.OpEnter, sizing.OpRef:
			b = wire.AppendKey(b, f.Tag)
			if !f.Group {
				b = wire.AppendVarint(b, uint64(op.Size))
			}
			p := open{end: len(b) + int(op.Size), field: f, restore: -1}
			if op.Kind == sizing.OpRef {
				// A shared message recorded once: replay the body ops
				// of its first occurrence, then come back.
				p.restore = i
				i = int(op.Value.Int())
			}
			w.stack = append(w.stack, p)
			end = p.end
		}
		// Close the parts whose bodies are complete (an empty one at
		// once, and its parents with it when it was their last part).
		for len(b) >= end {
			p := &w.stack[len(w.stack)-1]
			if len(b) > end {
				return b, fault.SizeMismatch, p.field
			}
			if p.field.Group {
				b = append(b, p.field.EndTag...)
			}
			if p.restore >= 0 {
				i = p.restore
			}
			w.stack = w.stack[:len(w.stack)-1]
			end = math.MaxInt
			if n := len(w.stack); n > 0 {
				end = w.stack[n-1].end
			}
		}
	}
	if len(w.stack) != 0 {
		return b, fault.SizeMismatch, nil
	}
	return b, fault.OK, nil
}

// release ends a call whose output was (or would have been) n bytes: it
// drops every reference to the caller's message and keeps the scratch
// space the recent calls justify (see retain).
func (w *Walk) release(n int) {
	budget := w.retention.Observe(n)
	w.sizer.ReleaseKeeping(&budget)
	w.walker.ReleaseKeeping(&budget)
	w.stack = w.stack[:0]
	if !retain.Keep(&budget, cap(w.stack)*openBytes) {
		w.stack = nil
	}
}

var pool = sync.Pool{New: func() any { return new(Walk) }}

// Append borrows a pooled Walk to encode mr, as Walk.Append does.
func Append(b []byte, mr protoreflect.Message, o Options) ([]byte, error) {
	w := pool.Get().(*Walk)
	b, err := w.Append(b, mr, o)
	pool.Put(w)
	return b, err
}

// Size borrows a pooled Walk to size mr, as Walk.Size does.
func Size(mr protoreflect.Message, o Options) (int, error) {
	w := pool.Get().(*Walk)
	n, err := w.Size(mr, o)
	pool.Put(w)
	return n, err
}
