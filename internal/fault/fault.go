// Package fault is the one vocabulary of failures of the encoding core:
// the codes the walk, the size pass and the write pass raise (turned into
// errors by package encoder at its boundary), and the one renderer of the
// paths those errors name, such as
// resource_spans[0].scope_spans[2].spans[7].attributes["k"], shared by the
// walker and the Writer.
package fault

import (
	"strconv"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/layout"
)

// Fault is a failure code. The codes are shared by the passes of this
// module; the encoder turns them into errors at its boundary.
type Fault uint8

const (
	// OK is no fault.
	OK Fault = iota
	// DepthExceeded: nesting deeper than Options.MaxDepth.
	DepthExceeded
	// RequiredNotSet: a required field is not set (Field).
	RequiredNotSet
	// MessageSetUnsupported: the message uses MessageSet wire format.
	MessageSetUnsupported
	// ForeignField: the message reported a field its descriptor lacks.
	ForeignField
	// InvalidUTF8: a string that must be valid UTF-8 is not (Field).
	InvalidUTF8
	// SizeExceeded: the encoding would exceed the size limit.
	SizeExceeded
	// SizeMismatch: bytes written differ from the size computed, because
	// the message changed during the call.
	SizeMismatch
	// Cycle: a message contains itself (Field is the field that leads
	// back to an ancestor).
	Cycle
	// MapRefused: a non-empty map under the Signing profile (Field).
	MapRefused
	// UnknownRefused: unknown fields under the Signing profile.
	UnknownRefused
)

// String describes the fault, for error messages.
func (f Fault) String() string {
	switch f {
	case OK:
		return "no fault"
	case DepthExceeded:
		return "message nesting exceeds the depth limit"
	case RequiredNotSet:
		return "required field not set"
	case MessageSetUnsupported:
		return "MessageSet wire format is not supported"
	case ForeignField:
		return "message holds a field its descriptor does not declare"
	case InvalidUTF8:
		return "string field contains invalid UTF-8"
	case SizeExceeded:
		return "message exceeds the size limit"
	case SizeMismatch:
		return "message changed during encoding"
	case Cycle:
		return "message contains itself"
	case MapRefused:
		return "map field under the Signing profile"
	case UnknownRefused:
		return "unknown fields under the Signing profile"
	}
	return "fault " + strconv.Itoa(int(f))
}

// Paths longer than pathHead+pathTail levels are shown with their middle
// elided.
const (
	pathHead = 8
	pathTail = 8
)

// PathStep describes one level of a path for AppendSteps.
type PathStep struct {
	// Field is the field the level was entered through; nil leaves the
	// level out (a map value, which its entry already names).
	Field *layout.Field
	// Index is the list element index, or -1.
	Index int
	// Key, if not nil, appends the map entry's key; it takes precedence
	// over Index.
	Key func(b []byte) []byte
}

// AppendSteps appends a path of n levels, such as
// `resource_spans[0].scope_spans[2].spans[7].attributes["k"]`, level i
// described by step(i), with the middle of very deep paths elided, then
// field f if it is not nil. It is meant for error messages; the walker and
// the encoder's Writer both render their paths with it.
func AppendSteps(b []byte, n int, step func(i int) PathStep, f *layout.Field) []byte {
	first := true
	sep := func() {
		if !first {
			b = append(b, '.')
		}
		first = false
	}
	for i := 0; i < n; i++ {
		if i == pathHead && n > pathHead+pathTail {
			skip := n - pathTail - i
			sep()
			b = append(b, "…("...)
			b = strconv.AppendInt(b, int64(skip), 10)
			b = append(b, " more)"...)
			i += skip - 1
			continue
		}
		st := step(i)
		if st.Field == nil {
			continue
		}
		sep()
		b = AppendFieldName(b, st.Field)
		switch {
		case st.Key != nil:
			b = append(b, '[')
			b = st.Key(b)
			b = append(b, ']')
		case st.Index >= 0:
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(st.Index), 10)
			b = append(b, ']')
		}
	}
	if f != nil {
		sep()
		b = AppendFieldName(b, f)
	}
	return b
}

// AppendFieldName appends the name of f: its short name, or its full name
// in brackets for an extension.
func AppendFieldName(b []byte, f *layout.Field) []byte {
	if f.Extension {
		b = append(b, '[')
		b = append(b, f.FullName...)
		return append(b, ']')
	}
	return append(b, f.Name...)
}

// AppendKey appends a map key of kind k as a path names it: a string
// quoted, a bool, or a number. w is the key's word (a signed key
// sign-extended, a bool 1 or 0), s a string key.
func AppendKey(b []byte, k protoreflect.Kind, w uint64, s string) []byte {
	switch k {
	case protoreflect.StringKind:
		return strconv.AppendQuote(b, s)
	case protoreflect.BoolKind:
		return strconv.AppendBool(b, w != 0)
	case protoreflect.Uint32Kind, protoreflect.Uint64Kind,
		protoreflect.Fixed32Kind, protoreflect.Fixed64Kind:
		return strconv.AppendUint(b, w, 10)
	}
	return strconv.AppendInt(b, int64(w), 10)
}
