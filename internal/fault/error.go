package fault

import (
	"errors"
	"strconv"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/layout"
)

// The reasons an encoding fails, which package encoder exports under the
// same names (and documents there): every error of the encoding core is
// an *Error wrapping one of them, whichever package returns it (encoder,
// or package dynamic's fast-path methods).
var (
	ErrInvalidUTF8     = errors.New("string field contains invalid UTF-8")
	ErrRequiredNotSet  = errors.New("required field not set")
	ErrDepthExceeded   = errors.New("message nesting exceeds the depth limit")
	ErrCycle           = errors.New("message contains itself")
	ErrSizeExceeded    = errors.New("encoded size exceeds the size limit")
	ErrSizeMismatch    = errors.New("message changed during encoding (size mismatch)")
	ErrMethodsDisagree = errors.New("the message's Size and Marshal methods disagree")
	//lint:ignore ST1005 the text starts with the name of the type encoder.Encoder
	ErrConcurrentUse = errors.New("Encoder used by two goroutines at once")
	ErrMessageSet    = errors.New("no support for message_set_wire_format")
	ErrForeignField  = errors.New("message reported a field its descriptor does not declare")
	ErrUnknownField  = errors.New("no such field")
	ErrMapField      = errors.New("map entry (the profile refuses maps)")
)

// Error describes a failed encoding: why, which field, and where. Package
// encoder exports it as encoder.Error.
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

// Is reports whether target is proto.Error (every encoding error counts
// as a protobuf error, as proto.Marshal's do), or ErrDepthExceeded for
// ErrCycle.
func (e *Error) Is(target error) bool {
	return target == proto.Error || target == ErrDepthExceeded && e.Err == ErrCycle
}

// NewError builds the error for fault c on field f (nil for none) in the
// message root, without its path (and, for DepthExceeded, its limit);
// maxSize is the size limit in force, which SizeExceeded names.
func NewError(c Fault, f *layout.Field, root protoreflect.Message, maxSize int) *Error {
	e := &Error{Message: root.Descriptor().FullName()}
	e.Detail, e.Err = Reason(c)
	if c == SizeExceeded {
		e.Limit = maxSize
	}
	if f != nil {
		e.Field = f.FullName
	}
	return e
}

// Reason returns the detail (empty for most faults) and the reason of the
// *Error for fault c, as NewError sets them: for an encoder that builds
// its errors itself (the Writer).
func Reason(c Fault) (detail string, reason error) {
	switch c {
	case InvalidUTF8:
		return "", ErrInvalidUTF8
	case RequiredNotSet:
		return "", ErrRequiredNotSet
	case DepthExceeded:
		return "", ErrDepthExceeded
	case SizeExceeded:
		return "", ErrSizeExceeded
	case SizeMismatch:
		return "", ErrSizeMismatch
	case Cycle:
		return "", ErrCycle
	case MessageSetUnsupported:
		return "", ErrMessageSet
	case MapRefused:
		return "", ErrMapField
	case UnknownRefused:
		return "the Signing profile refuses unknown fields", ErrUnknownField
	}
	return "", ErrForeignField
}
