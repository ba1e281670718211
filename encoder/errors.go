package encoder

import "github.com/protolayout/protolayout/internal/fault"

// The reasons an encoding fails. Every error returned by this package is an
// *Error that wraps one of them, so errors.Is(err, ErrInvalidUTF8) and the
// like work, and errors.Is(err, proto.Error) holds for all of them. The
// one other reason is the error a legacy message's own Marshal returns
// (see MarshalOptions.Unchecked), which an *Error wraps the same way.
var (
	// ErrInvalidUTF8: a string field whose schema requires valid UTF-8
	// (proto3, or editions with utf8_validation = VERIFY) holds invalid
	// UTF-8. proto.Marshal fails on the same input.
	ErrInvalidUTF8 = fault.ErrInvalidUTF8
	// ErrRequiredNotSet: a required field is not set and AllowPartial is
	// false. proto.Marshal fails on the same input.
	ErrRequiredNotSet = fault.ErrRequiredNotSet
	// ErrDepthExceeded: messages nest deeper than MaxDepth, counted as
	// proto.Unmarshal counts its recursion limit (map entries and groups
	// included), so that the decoder would refuse the output.
	ErrDepthExceeded = fault.ErrDepthExceeded
	// ErrCycle: a message contains itself (directly or through other
	// messages), found whatever MaxDepth is. proto.Marshal overflows the
	// goroutine stack on such a message. errors.Is(err, ErrDepthExceeded)
	// holds for it too, since its nesting has no end.
	ErrCycle = fault.ErrCycle
	// ErrSizeExceeded: the encoding would be larger than MaxSize (at most
	// 2 GiB - 1, the largest message protobuf can decode).
	ErrSizeExceeded = fault.ErrSizeExceeded
	// ErrSizeMismatch: the bytes written differ from the size computed
	// before writing, because the message changed during the call.
	ErrSizeMismatch = fault.ErrSizeMismatch
	// ErrMethodsDisagree: a message's own fast-path methods (ProtoMethods)
	// wrote a different number of bytes than their Size counted, and the
	// message did not change. proto.Marshal returns such output as it is
	// at the top level and fails on it in a nested field; this package
	// refuses it everywhere, since a length prefix computed from the size
	// would be wrong.
	ErrMethodsDisagree = fault.ErrMethodsDisagree
	// ErrConcurrentUse: an Encoder was called while another call on it
	// was still running (an Encoder belongs to one goroutine at a time).
	// The call that finds the Encoder busy fails and writes nothing; the
	// call in progress is not disturbed.
	ErrConcurrentUse = fault.ErrConcurrentUse
	// ErrMessageSet: the message uses the legacy MessageSet wire format,
	// which this package refuses in every build, and proto.Marshal refuses
	// for messages it encodes through reflection unless protobuf-go is
	// built with the protolegacy tag.
	ErrMessageSet = fault.ErrMessageSet
	// ErrForeignField: the message reported a set field that its own
	// descriptor does not declare (a broken protoreflect implementation).
	ErrForeignField = fault.ErrForeignField
)

// Error describes a failed encoding: why, which field, and where. Every
// error of this package, and of package dynamic's encoding methods, is an
// *Error. Its fields:
//
//   - Err error: the reason, one of the Err* values of this package, or
//     for a legacy message (Marshal without Size) the error its own
//     Marshal returned.
//   - Message protoreflect.FullName: the full name of the message being
//     encoded.
//   - Field protoreflect.FullName: the full name of the field to blame, if
//     there is one.
//   - Path string: where the field (or the message, for limits) is from
//     the top message, such as `items[3].tags["k"].name`; very deep paths
//     are shortened in the middle.
//   - Limit int: the limit that was exceeded, for ErrDepthExceeded and
//     ErrSizeExceeded.
//   - Detail string: what explains the failure further where the reason
//     alone does not, such as the order a Writer expected; it may be
//     empty.
//
// Its Error method gives a one-line description naming the field and its
// path; Unwrap returns Err; errors.Is(err, proto.Error) holds for every
// *Error, and errors.Is(err, ErrDepthExceeded) for one of ErrCycle.
//
// The type is defined in an internal package, so that the encoder and
// package dynamic return the same type.
type Error = fault.Error
