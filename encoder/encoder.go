package encoder

import (
	"math"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/runtime/protoiface"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/internal/cursor"
	"github.com/protolayout/protolayout/internal/dynhook"
	"github.com/protolayout/protolayout/internal/engine"
	"github.com/protolayout/protolayout/internal/fault"
	"github.com/protolayout/protolayout/internal/layout"
	"github.com/protolayout/protolayout/internal/retain"
	"github.com/protolayout/protolayout/internal/sizing"
	"github.com/protolayout/protolayout/internal/wire"
)

// DefaultMaxDepth is the nesting limit used when MarshalOptions.MaxDepth is
// 0. It equals proto.Unmarshal's default recursion limit.
const DefaultMaxDepth = cursor.DefaultMaxDepth

// DefaultMaxSize is the size limit used when MarshalOptions.MaxSize is 0:
// 2 GiB - 1, the largest message protobuf can decode.
const DefaultMaxSize = wire.MaxSize

type noUnkeyedLiterals struct{}

// MarshalOptions configures the encoder. The zero value encodes like
// proto.MarshalOptions{} with the default limits. Use keyed literals; the
// struct refuses positional ones so that fields can be added.
type MarshalOptions struct {
	_ noUnkeyedLiterals

	// AllowPartial skips the check that required fields are set, as in
	// proto.MarshalOptions.
	AllowPartial bool

	// Deterministic asks for the same bytes for the same message on every
	// call, as proto.MarshalOptions.Deterministic does: map entries sorted
	// by key. Without it, map entries come in the order the map yields
	// them (Go's map order, different from one call to the next), as
	// proto.Marshal writes them, which saves sorting them; everything
	// else is written in the same fixed order either way.
	Deterministic bool

	// Checked makes generated messages take the checked layout walk too.
	// (A legacy message, one whose methods offer Marshal but not Size,
	// such as a golang/protobuf v1 or gogo type wrapped by protobuf-go, is
	// encoded by its own Marshal either way, as proto.Marshal encodes it:
	// nothing else can read it. Its errors are passed on, and only the
	// size limit applies.)
	//
	// By default a generated message (one whose ProtoMethods offer Marshal
	// and Size) is encoded by its own fast-path methods, the ones
	// proto.Marshal uses, under the size limit: the bytes and the errors
	// are proto.Marshal's (on error the checked walk runs to build this
	// package's detailed error, and nothing is appended), but the fast
	// path has no depth limit and overflows the goroutine stack on a
	// message that contains itself, sizes a shared subtree once per path
	// (a doubling DAG takes exponential time before the size limit is
	// checked), skips UTF-8 validation of repeated string extensions,
	// reads each value twice (a message mutated concurrently is caught
	// only by its final size check), and its size error names no field.
	// Set Checked when generated messages may come from untrusted
	// construction (cycles, extreme depth, shared subtrees). dynamicpb
	// messages always take the walk; this module's dynamic messages
	// (package dynamic) are written from their storage with the walk's
	// bytes and guarantees, and go to the walk for what that does not
	// take (see package dynamic).
	Checked bool

	// UseCachedSize is accepted for drop-in compatibility and ignored: the
	// encoder computes every size itself, once per call.
	UseCachedSize bool

	// MaxDepth is the recursion limit, counted as proto.Unmarshal counts
	// its own: the top message is level 1, and every nested message,
	// group and map entry one level more (so a message in a map value is
	// two levels below the message holding the map, and a map of scalars
	// puts its entries one level below). A message or map entry past
	// level MaxDepth fails with ErrDepthExceeded. 0 means DefaultMaxDepth
	// (10,000, proto.Unmarshal's default), so that whatever encodes with
	// default options decodes with proto.Unmarshal's defaults. A message
	// that contains itself fails with ErrCycle whatever the limit, within
	// three times the depth where its path starts to repeat (or 192
	// levels, whichever is more).
	MaxDepth int

	// MaxSize is the largest encoding allowed, in bytes. 0, or anything
	// above 2 GiB - 1, means DefaultMaxSize (2 GiB - 1). Larger output
	// fails with ErrSizeExceeded before anything is written.
	MaxSize int
}

func (o *MarshalOptions) maxDepth() int {
	if o.MaxDepth <= 0 {
		return DefaultMaxDepth
	}
	return o.MaxDepth
}

func (o *MarshalOptions) maxSize() int {
	if o.MaxSize <= 0 || o.MaxSize > DefaultMaxSize {
		return DefaultMaxSize
	}
	return o.MaxSize
}

// sizing returns the size pass options: for a marshal (which validates and
// records the tape) or for Size alone.
func (o *MarshalOptions) sizing(marshal bool) sizing.Options {
	return sizing.Options{
		Walk: cursor.Options{
			MaxDepth:      o.MaxDepth,
			CheckRequired: marshal && !o.AllowPartial,
			// Order does not change a size.
			Unsorted:  !marshal || !o.Deterministic,
			WholeMaps: true,
		},
		MaxSize:      o.maxSize(),
		ValidateUTF8: marshal,
		Record:       marshal,
	}
}

// Marshal returns the wire encoding of m in proto.Marshal's order, with
// map entries in the order the maps yield them (as proto.Marshal writes
// them; MarshalOptions{Deterministic: true} gives byte for byte what
// proto.MarshalOptions{Deterministic: true}.Marshal returns), and fails
// where proto.Marshal fails (invalid UTF-8, missing required fields) plus
// on the limits proto.Marshal lacks. It is safe for concurrent use.
func Marshal(m proto.Message) ([]byte, error) {
	return MarshalOptions{}.Marshal(m)
}

// Size returns the size in bytes of the wire encoding of m, or 0 if m
// cannot be encoded within the default limits.
func Size(m proto.Message) int {
	return MarshalOptions{}.Size(m)
}

// Marshal returns the wire encoding of m.
//
// A nil m, or a nil *dynamicpb.Message (which has no descriptor), gives
// (nil, nil), as does an invalid message (a typed nil of a generated type)
// without required fields; a valid message with nothing set gives an
// empty, non-nil slice. On error the result is nil.
func (o MarshalOptions) Marshal(m proto.Message) ([]byte, error) {
	if absent(m) {
		return nil, nil
	}
	mr := m.ProtoReflect()
	pm := mr.ProtoMethods()
	if o.fastFor(pm) {
		return o.fastAppend(nil, m, mr, pm, true, nil)
	}
	e := getEncoder(o)
	b, err := e.encode(nil, m, mr, pm, true)
	putEncoder(e)
	return b, err
}

// MarshalAppend appends the wire encoding of m to b and returns the
// extended buffer. It never changes b[:len(b)]. On error it returns b
// unchanged, with nothing appended.
func (o MarshalOptions) MarshalAppend(b []byte, m proto.Message) ([]byte, error) {
	if absent(m) {
		return b, nil
	}
	mr := m.ProtoReflect()
	pm := mr.ProtoMethods()
	if o.fastFor(pm) {
		return o.fastAppend(b, m, mr, pm, false, nil)
	}
	e := getEncoder(o)
	b, err := e.encode(b, m, mr, pm, false)
	putEncoder(e)
	return b, err
}

// Size returns the size in bytes of the wire encoding of m, or 0 if m
// cannot be encoded within the limits of o. Like proto.Size it neither
// validates UTF-8 nor checks required fields. It returns an int, as
// proto.MarshalOptions.Size does, so that it replaces it as it is; a 0
// from a message that is not empty means a limit was met (depth, size,
// a cycle), and Encoder.Size, which returns (int, error), says which.
func (o MarshalOptions) Size(m proto.Message) int {
	if !absent(m) {
		if mr := m.ProtoReflect(); o.fast(mr) != nil {
			n := proto.MarshalOptions{Deterministic: o.Deterministic}.Size(m)
			if n > o.maxSize() {
				return 0
			}
			return n
		}
	}
	e := getEncoder(o)
	n, _ := e.Size(m)
	putEncoder(e)
	return n
}

var encoders = sync.Pool{New: func() any { return new(Encoder) }}

func init() {
	dynhook.Walk = walkOnly
}

// walkOnly implements dynhook.Walk: the checked walk of m, with the
// default limits, and none of the fast paths (m is a *dynamic.Message
// whose direct encoding gave up).
func walkOnly(b []byte, mr protoreflect.Message, o dynhook.Options) ([]byte, int, error) {
	e := getEncoder(MarshalOptions{AllowPartial: o.Partial, Deterministic: o.Deterministic})
	defer putEncoder(e)
	if o.SizeOnly {
		n, err := e.walkSize(mr)
		return b, n, err
	}
	out, err := e.walkAppend(b, mr, false)
	return out, len(out) - len(b), err
}

func getEncoder(o MarshalOptions) *Encoder {
	e := encoders.Get().(*Encoder)
	e.opts = o
	return e
}

func putEncoder(e *Encoder) {
	encoders.Put(e)
}

// Encoder encodes messages with fixed options, reusing its scratch space
// (traversal frames, recorded sizes) across calls. Appending into a buffer
// with room, it allocates nothing per call in the steady state for
// messages read without allocation (dynamicpb messages and those of this
// module's package dynamic; generated messages allocate inside their own
// reflection accessors for lists and maps),
// whatever their shape: flat, wide, deep (to the depth limit) or made of
// many small messages, up to outputs of 16 MiB and beyond.
//
// During a call the scratch space is about 40 bytes per value and per
// nested message written, and a frame per open level. Between calls an
// Encoder keeps scratch of up to 48 bytes per byte of the largest output
// of its recent calls (it is remembered for the 16 calls after it), with
// an allowance of 4 MiB whatever the outputs and never more than 1 GiB:
// an Encoder that encoded one huge message and then only small ones gives
// the huge scratch back 17 calls later. (Messages of package dynamic,
// which that package's direct encoder writes, add at most 4,096 map
// entries kept for sorting, 192 KiB.) The pooled
// Encoders of Marshal and MarshalOptions keep the same, so that once warm
// Marshal allocates its output and nothing else.
//
// An Encoder belongs to one
// goroutine at a time: a call made while another is running on the same
// Encoder fails with ErrConcurrentUse (one atomic operation per call tells
// it), never with wrong bytes. Between calls it holds no reference to
// anything a caller passed.
type Encoder struct {
	opts   MarshalOptions
	walker cursor.Walker
	sizer  sizing.Sizer
	stack  []open
	// busy is set while a call runs: a second call meanwhile (the
	// Encoder shared by two goroutines) fails with ErrConcurrentUse
	// instead of corrupting the first one's scratch space.
	busy atomic.Bool
	// retention decides how much scratch space is kept between calls.
	retention retain.Budget
	// dyn is the scratch space of package dynamic's direct encoder
	// (dynhook.Append).
	dyn any
	// gen is the engine's scratch space, for generated messages.
	gen engine.State
}

// open is a length-prefixed part being written.
type open struct {
	end     int           // offset in the buffer where the body ends, by the recorded size
	field   *layout.Field // the field it was opened through
	restore int           // tape index to resume after a replayed part, or -1
}

// NewEncoder returns an Encoder using options o.
func NewEncoder(o MarshalOptions) *Encoder {
	return &Encoder{opts: o}
}

// Marshal returns the wire encoding of m, as MarshalOptions.Marshal does.
func (e *Encoder) Marshal(m proto.Message) ([]byte, error) {
	if !e.busy.CompareAndSwap(false, true) {
		return nil, e.concurrent(m)
	}
	defer e.busy.Store(false)
	return e.marshalAppend(nil, m, true)
}

// MarshalAppend appends the wire encoding of m to b, as
// MarshalOptions.MarshalAppend does.
func (e *Encoder) MarshalAppend(b []byte, m proto.Message) ([]byte, error) {
	if !e.busy.CompareAndSwap(false, true) {
		return b, e.concurrent(m)
	}
	defer e.busy.Store(false)
	return e.marshalAppend(b, m, false)
}

// concurrent is the error of a call that found e busy.
func (e *Encoder) concurrent(m proto.Message) error {
	err := &Error{Err: ErrConcurrentUse}
	if !absent(m) {
		err.Message = m.ProtoReflect().Descriptor().FullName()
	}
	return err
}

// Size returns the size of the wire encoding of m, or 0 and the error
// that encoding it would meet on the limits (ErrDepthExceeded,
// ErrCycle, ErrSizeExceeded), or ErrConcurrentUse. Like proto.Size it
// neither validates UTF-8 nor checks required fields. Unlike
// MarshalOptions.Size, which returns an int as proto.MarshalOptions.Size
// does, it reports the error, so that an empty message (0, nil) and one
// that cannot be encoded (0 and the error) are told apart.
func (e *Encoder) Size(m proto.Message) (int, error) {
	if absent(m) {
		return 0, nil
	}
	if !e.busy.CompareAndSwap(false, true) {
		return 0, e.concurrent(m)
	}
	defer e.busy.Store(false)
	mr := m.ProtoReflect()
	switch pm := mr.ProtoMethods(); {
	case e.opts.fastFor(pm):
		n := proto.MarshalOptions{Deterministic: e.opts.Deterministic}.Size(m)
		if max := e.opts.maxSize(); n > max {
			return 0, &Error{Err: ErrSizeExceeded, Message: mr.Descriptor().FullName(), Limit: max}
		}
		return n, nil
	case pm == nil:
	case pm == dynhook.Methods:
		if _, n, ok := e.direct(nil, mr, true); ok {
			return n, nil
		}
	default:
		if _, n, ok := e.generated(nil, m, mr, true); ok {
			return n, nil
		}
	}
	return e.walkSize(mr)
}

// walkSize is the size pass of the checked walk alone, as Size reports
// it.
func (e *Encoder) walkSize(mr protoreflect.Message) (int, error) {
	n, code, f := e.sizer.Size(&e.walker, mr, e.opts.sizing(false))
	var err error
	if code != fault.OK {
		n, err = 0, newError(code, f, &e.walker, mr, &e.opts)
	}
	e.release(n)
	return n, err
}

var emptyBytes [0]byte

// absent reports whether m holds no message at all: nil, or a nil
// *dynamicpb.Message or *dynamic.Message, which (unlike a typed nil of a
// generated type) carries no descriptor, so that every protoreflect method on it panics,
// proto.Marshal included. Both encode as nothing.
func absent(m proto.Message) bool {
	if m == nil {
		return true
	}
	if dm, ok := m.(*dynamicpb.Message); ok {
		return dm == nil
	}
	// A nil *dynamic.Message has no descriptor either; its type is
	// recognised by one comparison of the interface's type word, and its
	// address is 0.
	return reflect.TypeOf(m) == dynhook.MessageType && dynhook.Addr(m.ProtoReflect()) == 0
}

// marshalAppend is the one path every encoding takes.
func (e *Encoder) marshalAppend(b []byte, m proto.Message, fresh bool) ([]byte, error) {
	if absent(m) {
		return b, nil
	}
	mr := m.ProtoReflect()
	return e.encode(b, m, mr, mr.ProtoMethods(), fresh)
}

// encode is marshalAppend for a present message m, of reflection mr and
// fast-path methods pm.
func (e *Encoder) encode(b []byte, m proto.Message, mr protoreflect.Message, pm *protoiface.Methods, fresh bool) ([]byte, error) {
	switch {
	case e.opts.fastFor(pm):
		return e.opts.fastAppend(b, m, mr, pm, fresh, e)
	case pm == nil: // dynamicpb, and other reflection-only messages
	case pm == dynhook.Methods:
		if out, _, ok := e.direct(b, mr, false); ok {
			return result(b, out, fresh, mr), nil
		}
	default:
		if out, _, ok := e.generated(b, m, mr, false); ok {
			return result(b, out, fresh, mr), nil
		}
	}
	return e.walkAppend(b, mr, fresh)
}

// direct encodes (or with sizeOnly, sizes) a message of package dynamic
// straight from its storage (dynhook.Append), and reports whether it did;
// any other message, and one it leaves to the walk, gives false. Its
// output, or size, is the walk's.
func (e *Encoder) direct(b []byte, mr protoreflect.Message, sizeOnly bool) (out []byte, n int, handled bool) {
	if dynhook.Append == nil {
		return b, 0, false
	}
	o := dynhook.Options{
		Deterministic: e.opts.Deterministic,
		Partial:       e.opts.AllowPartial,
		SizeOnly:      sizeOnly,
		MaxDepth:      e.opts.maxDepth(),
		MaxSize:       e.opts.maxSize(),
	}
	return dynhook.Append(&e.dyn, b, mr, o)
}

// generated encodes (or with sizeOnly, sizes) a generated message (one
// with fast-path methods other than package dynamic's) with the engine,
// which reads its struct through the type's storage map, and reports
// whether it did; a type it does not read, and a message it leaves to the
// walk, gives false. Its output, or size, is the walk's.
func (e *Encoder) generated(b []byte, m proto.Message, mr protoreflect.Message, sizeOnly bool) (out []byte, n int, handled bool) {
	o := engine.Options{
		Deterministic: e.opts.Deterministic,
		Partial:       e.opts.AllowPartial,
		SizeOnly:      sizeOnly,
		MaxDepth:      e.opts.maxDepth(),
		MaxSize:       e.opts.maxSize(),
	}
	return e.gen.Encode(b, m, mr, o)
}

// fast returns the fast-path methods of m when m goes through them, else
// nil.
func (o *MarshalOptions) fast(m protoreflect.Message) *protoiface.Methods {
	if pm := m.ProtoMethods(); o.fastFor(pm) {
		return pm
	}
	return nil
}

// fastFor reports whether a message of fast-path methods pm goes through
// them.
func (o *MarshalOptions) fastFor(pm *protoiface.Methods) bool {
	// A *dynamic.Message's methods are this package's walk: walk it
	// rather than call them, which would come back here.
	if pm == nil || pm == dynhook.Methods || pm.Marshal == nil ||
		o.Deterministic && pm.Flags&protoiface.SupportMarshalDeterministic == 0 {
		return false
	}
	// A legacy message (golang/protobuf v1 or gogo types wrapped by
	// protobuf-go) has no Size: its own Marshal is the only way to
	// encode it, as in proto.Marshal, whatever Checked says; the walk
	// would see no fields.
	return pm.Size == nil || !o.Checked
}

// fastAppend encodes a generated message with its own fast-path methods
// pm, called as proto.Marshal calls them: a size pass (which fills the
// message's size cache) checked against the limit, then the marshal, which
// reuses the cached sizes, into a buffer grown once, then the required
// fields check. It needs no Encoder unless the fast path fails; e may be
// nil, and one is borrowed from the pool then.
func (o *MarshalOptions) fastAppend(b []byte, m proto.Message, mr protoreflect.Message, pm *protoiface.Methods, fresh bool, e *Encoder) ([]byte, error) {
	var flags protoiface.MarshalInputFlags
	if o.Deterministic {
		flags |= protoiface.MarshalDeterministic
	}
	if pm.Size == nil {
		return o.legacyAppend(b, m, mr, pm, fresh, flags)
	}
	size := pm.Size(protoiface.SizeInput{Message: mr, Flags: flags}).Size
	if max := o.maxSize(); size > max {
		return b, &Error{Err: ErrSizeExceeded, Message: mr.Descriptor().FullName(), Limit: max}
	}
	mo, err := pm.Marshal(protoiface.MarshalInput{Message: mr, Buf: grow(b, size), Flags: flags | protoiface.MarshalUseCachedSize})
	out := mo.Buf
	if err == nil && !o.AllowPartial {
		err = checkInitialized(m, mr, pm)
	}
	if err != nil {
		// Rebuild the error with the field and its path; the walk fails
		// on everything the fast path fails on.
		if e == nil {
			e = getEncoder(*o)
			defer putEncoder(e)
		}
		if _, werr := e.walkAppend(b, mr, false); werr != nil {
			return b, werr
		}
		return b, err
	}
	if n := len(out) - len(b); n != size {
		return b, o.mismatch(b, mr, pm, flags, size, n, e)
	}
	return result(b, out, fresh, mr), nil
}

// mismatch explains why a message's fast-path Marshal wrote n bytes where
// its Size counted size. The walk names what this package refuses
// (ErrMessageSet: protobuf-go built without protolegacy sizes a
// MessageSet's unknown fields but does not write them); otherwise, if Size
// still counts size, the message did not change and its own methods
// disagree (ErrMethodsDisagree); else it changed during the call
// (ErrSizeMismatch).
func (o *MarshalOptions) mismatch(b []byte, mr protoreflect.Message, pm *protoiface.Methods, flags protoiface.MarshalInputFlags, size, n int, e *Encoder) error {
	if e == nil {
		e = getEncoder(*o)
		defer putEncoder(e)
	}
	if _, err := e.walkAppend(b, mr, false); err != nil {
		return err
	}
	name := mr.Descriptor().FullName()
	if again := pm.Size(protoiface.SizeInput{Message: mr, Flags: flags}).Size; again == size {
		return &Error{Err: ErrMethodsDisagree, Message: name,
			Detail: "Size counted " + strconv.Itoa(size) + " bytes, Marshal wrote " + strconv.Itoa(n)}
	}
	return &Error{Err: ErrSizeMismatch, Message: name}
}

// checkInitialized is proto.CheckInitialized, without finding m's methods
// pm again.
func checkInitialized(m proto.Message, mr protoreflect.Message, pm *protoiface.Methods) error {
	if pm.CheckInitialized != nil {
		_, err := pm.CheckInitialized(protoiface.CheckInitializedInput{Message: mr})
		return err
	}
	return proto.CheckInitialized(m)
}

// result is what an encoding that extended b into out returns: out, or
// when nothing was appended, b, or an empty non-nil slice for a call that
// returns a fresh slice (Marshal) on a valid message.
func result(b, out []byte, fresh bool, mr protoreflect.Message) []byte {
	if len(out) == len(b) {
		if fresh && mr.IsValid() {
			return emptyBytes[:]
		}
		return b
	}
	return out
}

// legacyAppend encodes a message whose methods offer Marshal but not Size
// (a legacy message) as proto.Marshal does: through its own Marshal, whose
// error is passed on, then the required fields check; the size limit is
// checked on the output, which is dropped when it is over.
func (o *MarshalOptions) legacyAppend(b []byte, m proto.Message, mr protoreflect.Message, pm *protoiface.Methods, fresh bool, flags protoiface.MarshalInputFlags) ([]byte, error) {
	mo, err := pm.Marshal(protoiface.MarshalInput{Message: mr, Buf: b, Flags: flags})
	if err == nil && !o.AllowPartial {
		err = checkInitialized(m, mr, pm)
	}
	if err != nil {
		return b, err
	}
	out := mo.Buf
	size := len(out) - len(b)
	if max := o.maxSize(); size > max {
		return b, &Error{Err: ErrSizeExceeded, Message: mr.Descriptor().FullName(), Limit: max}
	}
	return result(b, out, fresh, mr), nil
}

// walkAppend encodes m with the checked layout walk: the size pass, then
// the write pass.
func (e *Encoder) walkAppend(b []byte, mr protoreflect.Message, fresh bool) ([]byte, error) {
	size, code, f := e.sizer.Size(&e.walker, mr, e.opts.sizing(true))
	if code != fault.OK {
		err := newError(code, f, &e.walker, mr, &e.opts)
		e.release(0)
		return b, err
	}
	if size == 0 {
		e.release(0)
		return result(b, b, fresh, mr), nil
	}
	out := grow(b, size)
	out, code, f = e.write(out)
	if code == fault.OK && len(out)-len(b) != size {
		code, f = fault.SizeMismatch, nil
	}
	if code != fault.OK {
		err := newError(code, f, &e.walker, mr, &e.opts)
		e.release(size)
		return b, err
	}
	e.release(size)
	return out, nil
}

// write is the write pass: it replays the tape recorded by the size pass,
// appending to b, without reading the message again. It takes every length
// from the tape and checks each part's length once it is written.
func (e *Encoder) write(b []byte) ([]byte, fault.Fault, *layout.Field) {
	tape := e.sizer.Tape
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
			e.stack = append(e.stack, p)
			end = p.end
		}
		// Close the parts whose bodies are complete (an empty one at
		// once, and its parents with it when it was their last part).
		for len(b) >= end {
			p := &e.stack[len(e.stack)-1]
			if len(b) > end {
				return b, fault.SizeMismatch, p.field
			}
			if p.field.Group {
				b = append(b, p.field.EndTag...)
			}
			if p.restore >= 0 {
				i = p.restore
			}
			e.stack = e.stack[:len(e.stack)-1]
			end = math.MaxInt
			if n := len(e.stack); n > 0 {
				end = e.stack[n-1].end
			}
		}
	}
	if len(e.stack) != 0 {
		return b, fault.SizeMismatch, nil
	}
	return b, fault.OK, nil
}

// release ends a call whose output was (or would have been) n bytes: it
// drops every reference to the caller's message and keeps the scratch
// space the recent calls justify (see retention).
func (e *Encoder) release(n int) {
	budget := e.retention.Observe(n)
	e.sizer.ReleaseKeeping(&budget)
	e.walker.ReleaseKeeping(&budget)
	e.stack = e.stack[:0]
	if !retain.Keep(&budget, cap(e.stack)*openBytes) {
		e.stack = nil
	}
}

// openBytes is the size of an open part, for the retention budget.
var openBytes = int(reflect.TypeFor[open]().Size())

// grow returns b with room for n more bytes. A new array is sized like
// proto.Marshal sizes its output: exactly when that more than doubles the
// capacity, else by doubling (small buffers) or by a quarter (large ones).
func grow(b []byte, n int) []byte {
	need := len(b) + n
	if need <= cap(b) {
		return b
	}
	c := cap(b)
	switch {
	case need > 2*c:
		c = need
	case c < 1024:
		c *= 2
	default:
		for c < need {
			c += c / 4
		}
	}
	nb := make([]byte, len(b), c)
	copy(nb, b)
	return nb
}
