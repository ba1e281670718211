package sizing

import (
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/appendx"
	"github.com/protolayout/protolayout/internal/layout"
)

// OpKind says what an Op of the tape does.
//
// The tape is what a size pass with Options.Record leaves in Sizer.Tape for
// the write pass: the parts of the message in the order they are written,
// one op each, with the size of every length-prefixed part on the op that
// opens it. Its grammar:
//
//	tape = { part }    the root message's parts (no op opens the root)
//	part = OpValue | OpPacked | OpUnknown | OpRef | OpEnter body
//	body = { part }    written, exactly the Size of the OpEnter before it
//
// Each op, with what its fields mean (a field not named is unset: Size 0,
// Field nil, Value invalid) and what the write pass writes for it:
//
//   - OpValue: Field is a singular or unpacked repeated scalar, string or
//     bytes field, or a map entry's key or value field (Field.MapKey,
//     Field.MapValue of the map field); Value is one value of it. Written:
//     Field.Tag, then the value.
//   - OpPacked: Field is a packed repeated field, Value its non-empty list
//     and Size the size of the elements. Written: Field.PackedTag, Size as
//     a varint, then the elements.
//   - OpUnknown: Value is the current message's unknown bytes, non-empty
//     (Value.Bytes). Written verbatim.
//   - OpEnter: opens a nested message, group or map entry through Field,
//     the message, group or map field; Size is the size of its body. Written:
//     Field.Tag, then Size as a varint unless Field.Group; then the body's
//     parts, which follow the OpEnter on the tape; then, for a group,
//     Field.EndTag. A map entry's body is an OpValue of the key, then the
//     value's part: an OpValue or, for a message value, an OpEnter (through
//     Field.MapValue) and its body, or an OpRef.
//   - OpRef: a message whose body was recorded earlier (the same message
//     object, met again): Field and Size as for an OpEnter, and Value.Int()
//     is the index in the tape of the OpEnter of its first occurrence, which
//     lies before the OpRef and whose body is complete there. Written: as an
//     OpEnter, but the body is the ops that follow that OpEnter, replayed
//     until Size bytes are written; the write then goes on with the op after
//     the OpRef. A replayed body may hold OpRefs itself.
//
// No op closes a body: it ends once Size bytes of it are written. Every op
// writes at least one byte, so the ops of a body are exactly those written
// before its end is reached, and a body of Size 0 has none; when the last
// op of a body completes it, it may complete the enclosing bodies too. The
// write pass can check every Size: a body or packed record that comes out
// longer or shorter than recorded is a mismatch.
type OpKind uint8

const (
	// OpValue writes Field's key and Value.
	OpValue OpKind = iota + 1
	// OpPacked writes the packed record of Field: key, Size, then the
	// elements of the list in Value.
	OpPacked
	// OpEnter opens a nested message, group or map entry through Field:
	// its key and (except for groups) the body size, Size. The ops of the
	// body follow; the part ends once Size bytes of body are written
	// (then a group's end key follows), so no op marks its end.
	OpEnter
	// OpUnknown writes the unknown bytes in Value verbatim.
	OpUnknown
	// OpRef opens a message through Field whose body was recorded
	// earlier: Size is its body size and Value (an Int) the index of the
	// OpEnter of the first occurrence, whose body ops are replayed until
	// Size bytes are written.
	OpRef
)

// Op is one step of the tape, 40 bytes: a tape holds one per value, so its
// size is most of the memory traffic between the two passes.
type Op struct {
	Kind OpKind
	// Size is the body size of an OpPacked, OpEnter or OpRef part; every
	// size is within the size limit, at most 2 GiB - 1.
	Size  int32
	Field *layout.Field
	Value protoreflect.Value
}

// The recording methods below append the ops to Sizer.Tape. They take the
// pass's Options.Record as rec and record nothing without it, and they
// inline (see internal/inlinetest), so that recording costs no call and a
// pass that does not record pays one test per op. Each writes its op in
// place, field by field: appending an Op literal builds it in a temporary
// with narrow stores and copies it with wide loads, which wait for those
// stores (see internal/appendx).

// recordValue records an OpValue: value v of field f.
func (s *Sizer) recordValue(rec bool, f *layout.Field, v protoreflect.Value) {
	if rec {
		op := appendx.One(&s.Tape)
		op.Kind, op.Size, op.Field, op.Value = OpValue, 0, f, v
	}
}

// recordPacked records an OpPacked: list (a Value holding the list) of the
// packed field f, whose elements take size bytes.
func (s *Sizer) recordPacked(rec bool, f *layout.Field, size int, list protoreflect.Value) {
	if rec {
		op := appendx.One(&s.Tape)
		op.Kind, op.Size, op.Field, op.Value = OpPacked, int32(size), f, list
	}
}

// recordUnknown records an OpUnknown: the unknown bytes in raw.
func (s *Sizer) recordUnknown(rec bool, raw protoreflect.Value) {
	if rec {
		op := appendx.One(&s.Tape)
		op.Kind, op.Size, op.Field, op.Value = OpUnknown, 0, nil, raw
	}
}

// open records the OpEnter of a part entered through f, with its body size
// left for setSize, and returns its index, or -1 when not recording.
func (s *Sizer) open(rec bool, f *layout.Field) int {
	if !rec {
		return -1
	}
	op := appendx.One(&s.Tape)
	op.Kind, op.Size, op.Field, op.Value = OpEnter, 0, f, protoreflect.Value{}
	return len(s.Tape) - 1
}

// setSize sets the body size of the OpEnter at index op, which open
// returned, once the body is recorded.
func (s *Sizer) setSize(rec bool, op, size int) {
	if rec {
		s.Tape[op].Size = int32(size)
	}
}

// recordEnter records the OpEnter of a part entered through f whose body
// size, size, is known: an entry of a whole map.
func (s *Sizer) recordEnter(rec bool, f *layout.Field, size int) {
	if rec {
		op := appendx.One(&s.Tape)
		op.Kind, op.Size, op.Field, op.Value = OpEnter, int32(size), f, protoreflect.Value{}
	}
}

// recordRef records an OpRef: a message entered through f whose body, of
// size bytes, follows the OpEnter at index first.
func (s *Sizer) recordRef(rec bool, f *layout.Field, size, first int) {
	if rec {
		op := appendx.One(&s.Tape)
		op.Kind, op.Size, op.Field, op.Value = OpRef, int32(size), f, protoreflect.ValueOfInt64(int64(first))
	}
}
