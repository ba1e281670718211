package encoder

import (
	"errors"
	"strconv"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/cursor"
	"github.com/protolayout/protolayout/internal/fault"
	"github.com/protolayout/protolayout/internal/layout"
)

// The reasons an encoding fails. Every error returned by this package is an
// *Error that wraps one of them, so errors.Is(err, ErrInvalidUTF8) and the
// like work, and errors.Is(err, proto.Error) holds for all of them. The
// one other reason is the error a legacy message's own Marshal returns
// (see MarshalOptions.Unchecked), which an *Error wraps the same way.
var (
	// ErrInvalidUTF8: a string field whose schema requires valid UTF-8
	// (proto3, or editions with utf8_validation = VERIFY) holds invalid
	// UTF-8. proto.Marshal fails on the same input.
	ErrInvalidUTF8 = errors.New("string field contains invalid UTF-8")
	// ErrRequiredNotSet: a required field is not set and AllowPartial is
	// false. proto.Marshal fails on the same input.
	ErrRequiredNotSet = errors.New("required field not set")
	// ErrDepthExceeded: messages nest deeper than MaxDepth, counted as
	// proto.Unmarshal counts its recursion limit (map entries and groups
	// included), so that the decoder would refuse the output.
	ErrDepthExceeded = errors.New("message nesting exceeds the depth limit")
	// ErrCycle: a message contains itself (directly or through other
	// messages), found whatever MaxDepth is. proto.Marshal overflows the
	// goroutine stack on such a message. errors.Is(err, ErrDepthExceeded)
	// holds for it too, since its nesting has no end.
	ErrCycle = errors.New("message contains itself")
	// ErrSizeExceeded: the encoding would be larger than MaxSize (at most
	// 2 GiB - 1, the largest message protobuf can decode).
	ErrSizeExceeded = errors.New("encoded size exceeds the size limit")
	// ErrSizeMismatch: the bytes written differ from the size computed
	// before writing, because the message changed during the call.
	ErrSizeMismatch = errors.New("message changed during encoding (size mismatch)")
	// ErrMethodsDisagree: a message's own fast-path methods (ProtoMethods)
	// wrote a different number of bytes than their Size counted, and the
	// message did not change. proto.Marshal returns such output as it is
	// at the top level and fails on it in a nested field; this package
	// refuses it everywhere, since a length prefix computed from the size
	// would be wrong.
	ErrMethodsDisagree = errors.New("the message's Size and Marshal methods disagree")
	// ErrConcurrentUse: an Encoder was called while another call on it
	// was still running (an Encoder belongs to one goroutine at a time).
	// The call that finds the Encoder busy fails and writes nothing; the
	// call in progress is not disturbed.
	ErrConcurrentUse = errors.New("Encoder used by two goroutines at once")
	// ErrMessageSet: the message uses the legacy MessageSet wire format,
	// which this package refuses in every build, and proto.Marshal refuses
	// for messages it encodes through reflection unless protobuf-go is
	// built with the protolegacy tag.
	ErrMessageSet = errors.New("no support for message_set_wire_format")
	// ErrForeignField: the message reported a set field that its own
	// descriptor does not declare (a broken protoreflect implementation).
	ErrForeignField = errors.New("message reported a field its descriptor does not declare")
)

// Error describes a failed encoding: why, which field, and where.
type Error struct {
	// Err is the reason, one of the Err* values of this package, or for a
	// legacy message (Marshal without Size) the error its own Marshal
	// returned.
	Err error
	// Message is the full name of the message being encoded.
	Message protoreflect.FullName
	// Field is the full name of the field to blame, if there is one.
	Field protoreflect.FullName
	// Path locates the field (or the message, for limits) from the top
	// message, such as `items[3].tags["k"].name`; very deep paths are
	// shortened in the middle.
	Path string
	// Limit is the limit that was exceeded, for ErrDepthExceeded and
	// ErrSizeExceeded.
	Limit int
	// Detail explains the failure further where the reason alone does not,
	// such as the order a Writer expected; it may be empty.
	Detail string
}

// Error returns a one-line description naming the field and its path.
func (e *Error) Error() string {
	b := []byte("protolayout: ")
	switch {
	case e.Err == ErrRequiredNotSet && e.Field != "":
		b = append(b, "required field "...)
		b = append(b, e.Field...)
		b = append(b, " not set"...)
	case e.Err == ErrInvalidUTF8 && e.Field != "":
		b = append(b, "field "...)
		b = append(b, e.Field...)
		b = append(b, " contains invalid UTF-8"...)
	default:
		b = append(b, e.Err.Error()...)
		if e.Limit > 0 {
			b = append(b, " of "...)
			b = strconv.AppendInt(b, int64(e.Limit), 10)
		}
		if e.Field != "" {
			b = append(b, " (field "...)
			b = append(b, e.Field...)
			b = append(b, ')')
		}
	}
	if e.Detail != "" {
		b = append(b, ": "...)
		b = append(b, e.Detail...)
	}
	if e.Message != "" {
		b = append(b, " in "...)
		b = append(b, e.Message...)
	}
	if e.Path != "" {
		b = append(b, " at "...)
		b = append(b, e.Path...)
	}
	return string(b)
}

// Unwrap returns the reason, Err.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is proto.Error (every encoding error of this
// package counts as a protobuf error, as proto.Marshal's do), or
// ErrDepthExceeded for ErrCycle.
func (e *Error) Is(target error) bool {
	return target == proto.Error || target == ErrDepthExceeded && e.Err == ErrCycle
}

// newError builds the error for fault c on field f, reading the path from
// the walker, which must still be positioned where the fault happened.
func newError(c fault.Fault, f *layout.Field, w *cursor.Walker, root protoreflect.Message, o *MarshalOptions) *Error {
	e := faultError(c, f, root, o)
	if c == fault.DepthExceeded {
		e.Limit = w.MaxDepth()
	}
	e.Path = string(w.AppendPath(nil, f))
	return e
}

// faultError builds the error for fault c on field f in the message root,
// without its path (and, for ErrDepthExceeded, its limit).
func faultError(c fault.Fault, f *layout.Field, root protoreflect.Message, o *MarshalOptions) *Error {
	e := &Error{Message: root.Descriptor().FullName()}
	switch c {
	case fault.InvalidUTF8:
		e.Err = ErrInvalidUTF8
	case fault.RequiredNotSet:
		e.Err = ErrRequiredNotSet
	case fault.DepthExceeded:
		e.Err = ErrDepthExceeded
	case fault.SizeExceeded:
		e.Err = ErrSizeExceeded
		e.Limit = o.maxSize()
	case fault.SizeMismatch:
		e.Err = ErrSizeMismatch
	case fault.Cycle:
		e.Err = ErrCycle
	case fault.MessageSetUnsupported:
		e.Err = ErrMessageSet
	default:
		e.Err = ErrForeignField
	}
	if f != nil {
		e.Field = f.FullName
	}
	return e
}
