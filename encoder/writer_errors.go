package encoder

import (
	"errors"
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/fault"
	"github.com/protolayout/protolayout/internal/layout"
)

// The reasons a Writer call fails, on top of ErrInvalidUTF8,
// ErrRequiredNotSet, ErrDepthExceeded, ErrSizeExceeded and ErrMessageSet,
// which mean for a Writer what they mean for Marshal. A failing call
// returns an *Error wrapping one of them (read it with Writer.Err or
// Writer.Finish); errors.Is(err, proto.Error) holds for all of them.
var (
	// ErrUnknownField: the message declares no field with that number (and
	// no extension type the Writer was given has it).
	ErrUnknownField = fault.ErrUnknownField
	// ErrKindMismatch: the method does not fit the field's kind, e.g.
	// Bool on an int32 field, Int64 on a uint64 field, Begin on a scalar
	// field, or Message with a message of another type.
	ErrKindMismatch = errors.New("value type does not match the field's kind")
	// ErrOutOfRange: the value does not fit the field, e.g. Int64(1<<40)
	// on an int32 field, or a float64 beyond float32's range on a float
	// field.
	ErrOutOfRange = errors.New("value out of the field's range")
	// ErrUnknownEnumName: EnumName with a name the field's enum does not
	// declare.
	ErrUnknownEnumName = errors.New("enum has no value of that name")
	// ErrOutOfOrder: a field comes after one that proto.Marshal writes
	// later. The message names the order expected.
	ErrOutOfOrder = errors.New("field out of order")
	// ErrDuplicateField: a singular field written a second time.
	ErrDuplicateField = errors.New("singular field written twice")
	// ErrNotConsecutive: an element of a repeated field (or an entry of a
	// map) after another field came in between.
	ErrNotConsecutive = errors.New("elements of a repeated field not consecutive")
	// ErrOneofConflict: a second member of one oneof.
	ErrOneofConflict = errors.New("second member of a oneof")
	// ErrMapKeyOrder: a map entry whose key is not greater than the
	// previous entry's key of the same map (keys must be ascending and
	// unique, the order proto.Marshal writes with Deterministic).
	ErrMapKeyOrder = errors.New("map keys not ascending and unique")
	// ErrEndWithoutBegin: End with no open message.
	ErrEndWithoutBegin = errors.New("no open message to end")
	// ErrNotEnded: Finish while messages opened by Begin are still open.
	ErrNotEnded = errors.New("messages still open at finish")
	// ErrNotStarted: a zero Writer, not made by NewWriter.
	ErrNotStarted = errors.New("zero writer used (make one with NewWriter)")
	// ErrFinished: a call after Finish, before Reset.
	ErrFinished = errors.New("writer used after finish")
)

// fail records the Writer's first error: reason err, blaming field f (nil
// for none) of the innermost open message, with an optional detail.
func (w *Writer) fail(err error, f *layout.Field, detail string) {
	w.failAt(err, f, f, detail)
}

// failOpen records the Writer's first error, blaming the innermost open
// message itself (the field that opened it), located by the path of the
// open levels, which already ends with that field.
func (w *Writer) failOpen(err error, detail string) {
	w.failAt(err, w.via(len(w.frames)-1), nil, detail)
}

// failAt records the Writer's first error: reason err, blaming field f
// (nil for none), the path ending with field at (nil: the innermost open
// message).
func (w *Writer) failAt(err error, f, at *layout.Field, detail string) {
	if w.err != nil {
		return
	}
	e := &Error{Err: err, Detail: detail}
	if len(w.frames) > 0 {
		e.Message = w.frames[0].tab.Layout.FullName
	} else if w.root != nil {
		e.Message = w.root.Layout.FullName
	}
	if f != nil {
		e.Field = f.FullName
	}
	switch err {
	case ErrDepthExceeded:
		e.Limit = w.maxDepth + 1 // as WriterOptions.MaxDepth counts
	case ErrSizeExceeded:
		e.Limit = w.maxSize
	}
	e.Path = string(w.appendPath(nil, at))
	w.err = e
	w.setFast(nil)
}

// appendPath appends the path of field f from the top message, such as
// `resource_spans[0].scope_spans[2].spans[7].name`.
func (w *Writer) appendPath(b []byte, f *layout.Field) []byte {
	n := len(w.frames)
	if n > 0 && w.frames[n-1].entry {
		f = nil // the entry's key already locates the failure
	}
	return fault.AppendSteps(b, n-1, func(i int) fault.PathStep {
		fr, prev := &w.frames[i+1], &w.frames[i]
		switch {
		case !fr.entry && prev.entry:
			return fault.PathStep{} // a map value: its entry already named it
		case fr.entry && fr.isWritten(0) && prev.keyValid:
			kind := fr.tab.Layout.Fields[0].Kind
			return fault.PathStep{Field: w.via(i + 1), Index: -1, Key: func(b []byte) []byte { return prev.appendKey(b, kind) }}
		}
		return fault.PathStep{Field: w.via(i + 1), Index: w.index(i + 1)}
	}, f)
}

// orderDetail explains an order violation in frame fr by field f: what
// was written last, and what may come next.
func (w *Writer) orderDetail(fr *wframe, f *layout.Field, num protowire.Number) string {
	b := []byte("field ")
	b = appendNumName(b, num, f)
	if fr.phase == phaseUnknown {
		b = append(b, " after unknown fields, which come last"...)
		return string(b)
	}
	cur := fr.current()
	if cur != nil {
		b = append(b, " after field "...)
		b = appendNumName(b, cur.Number, cur)
	}
	if profileOf(fr.tab) != 0 {
		return string(w.canonicalNext(b, fr, cur))
	}
	b = append(b, "; proto.Marshal's order is extensions by ascending number, then fields outside oneofs by ascending number, then one member per oneof, oneofs in declaration order, then unknown fields"...)
	lay := fr.tab.Layout
	if len(lay.Oneofs) > 0 {
		b = append(b, " (oneofs: "...)
		for i, o := range lay.Oneofs {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(b, o.Name...)
		}
		b = append(b, ')')
	}
	// What may still come.
	next := fr.pos + 1 // 0 when no regular field was started

	b = append(b, "; expected next: "...)
	shown := 0
	for i := next; i < len(lay.Fields) && shown < 8; i++ {
		g := &lay.Fields[i]
		if g.Oneof >= 0 && w.oneofTaken(fr, g.Oneof) {
			continue
		}
		b = appendNext(b, g, shown)
		shown++
	}
	return string(appendNextEnd(b, shown))
}

// canonicalNext appends to b the canonical order, and what may come
// after cur (nil: nothing yet) in frame fr: the fields numbered above it
// whose oneof is free, by number, the extensions numbered above it.
func (w *Writer) canonicalNext(b []byte, fr *wframe, cur *layout.Field) []byte {
	b = append(b, "; canonical order is strictly ascending field number, extensions and oneof members among the other fields, then unknown fields"...)
	b = append(b, "; expected next: "...)
	lay := fr.tab.Layout
	above := protowire.Number(0)
	if cur != nil {
		above = cur.Number
	}
	from := above
	shown := 0
	for shown < 8 {
		// The field with the smallest number above from.
		var g *layout.Field
		for i := range lay.Fields {
			h := &lay.Fields[i]
			if h.Number > from && (g == nil || h.Number < g.Number) {
				g = h
			}
		}
		if g == nil {
			break
		}
		from = g.Number
		if g.Oneof >= 0 && w.oneofTaken(fr, g.Oneof) {
			continue
		}
		b = appendNext(b, g, shown)
		shown++
	}
	if lay.Extendable && shown < 8 {
		if shown > 0 {
			b = append(b, ", "...)
		}
		b = append(b, "extensions numbered above "...)
		b = strconv.AppendInt(b, int64(above), 10)
		shown++
	}
	return appendNextEnd(b, shown)
}

// appendNext appends field g to a list of what may come next, of shown
// items so far.
func appendNext(b []byte, g *layout.Field, shown int) []byte {
	if shown > 0 {
		b = append(b, ", "...)
	}
	return appendNumName(b, g.Number, g)
}

// appendNextEnd ends a list of what may come next, of shown items.
func appendNextEnd(b []byte, shown int) []byte {
	if shown == 8 {
		b = append(b, ", …"...)
	}
	if shown > 0 {
		b = append(b, ", "...)
	}
	return append(b, "unknown fields, End or Finish"...)
}

func appendNumName(b []byte, num protowire.Number, f *layout.Field) []byte {
	b = strconv.AppendInt(b, int64(num), 10)
	if f != nil {
		b = append(b, " ("...)
		b = fault.AppendFieldName(b, f)
		b = append(b, ')')
	}
	return b
}

// appendKey appends the last map key recorded in fr, of kind k.
func (fr *wframe) appendKey(b []byte, k protoreflect.Kind) []byte {
	switch k {
	case protoreflect.StringKind:
		return fault.AppendKey(b, k, 0, string(fr.keyS))
	case protoreflect.BoolKind, protoreflect.Uint32Kind, protoreflect.Uint64Kind,
		protoreflect.Fixed32Kind, protoreflect.Fixed64Kind:
		return fault.AppendKey(b, k, fr.keyU, "")
	}
	return fault.AppendKey(b, k, fr.keyU^(1<<63), "") // signed keys are kept with the sign bit flipped
}

// failKind records that a method taking the kinds in mask was called on
// field f.
func (w *Writer) failKind(f *layout.Field, mask uint32) {
	b := []byte("field is ")
	switch {
	case f.Map:
		b = append(b, "a map"...)
	case f.List:
		b = append(b, "repeated "...)
		b = append(b, f.Kind.String()...)
	default:
		b = append(b, f.Kind.String()...)
	}
	b = append(b, "; the call takes "...)
	first := true
	for k := protoreflect.Kind(1); k <= protoreflect.Sint64Kind; k++ {
		if mask&kindBit(k) == 0 {
			continue
		}
		if !first {
			b = append(b, '/')
		}
		first = false
		b = append(b, k.String()...)
	}
	if f.Kind == protoreflect.EnumKind && mask&kindBit(protoreflect.EnumKind) == 0 && mask&(maskSigned|maskUnsigned) != 0 {
		// An integer for an enum: say which method takes it.
		b = append(b, "; for enum field "...)
		b = fault.AppendFieldName(b, f)
		b = append(b, " use Enum(num, protoreflect.EnumNumber(v)), Enums for a slice, or EnumName"...)
	}
	w.fail(ErrKindMismatch, f, string(b))
}

func itoa(v int64) string   { return strconv.FormatInt(v, 10) }
func utoa(v uint64) string  { return strconv.FormatUint(v, 10) }
func quote(s string) string { return strconv.Quote(s) }
