// Package layout shows the compiled layout of a message type, read-only:
// its fields in the order protolayout (and proto.Marshal) writes them, each
// with what the encoder precomputed for it (wire type, encoded key,
// presence, packing, UTF-8 rule, oneof, map key and value, the layout of
// its message type).
//
// A layout is built once per message descriptor, on first use by any part
// of protolayout, and shared by every goroutine; Of returns a view of it.
// Views are small values that copy nothing and change nothing: every
// method returns a copy or another view, so no code outside protolayout
// can alter what a later call encodes. The zero Layout and the zero Field
// are empty (no fields, number 0, kind 0) rather than invalid to use.
//
// Layouts are cached by descriptor identity: two loads of one schema give
// two descriptors with the same full name, and each has its own layout.
// The cache holds no descriptor: a layout is released once the program
// has dropped its descriptor and every message of its type, with nothing
// to evict by hand, so a process that reloads its schemas keeps only the
// layouts of the schemas it still holds. A lookup costs a lock-free map
// load and a weak-pointer check, about 20 ns.
package layout

import (
	"iter"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/layout"
)

// Layout is a read-only view of the compiled layout of one message type.
type Layout layout.LayoutView

// Field is a read-only view of one field of a layout (or of an
// extension, or of a map field's key or value).
type Field layout.FieldView

// Oneof describes one real (non-synthetic) oneof of a message: its name,
// and the range of its members in the layout's fields, [First, End).
type Oneof struct {
	Name       protoreflect.Name // the oneof's name
	First, End int               // its members' positions in the layout's fields
}

var (
	emptyLayout layout.Layout
	emptyField  = layout.Field{Oneof: -1, Index: -1}
)

// Of returns the layout of the message type md, building it on first use.
func Of(md protoreflect.MessageDescriptor) Layout {
	return Layout(layout.ViewOfLayout(layout.Of(md)))
}

// Extension returns the field of extension xd (a field descriptor or an
// extension type descriptor), building it on first use.
func Extension(xd protoreflect.FieldDescriptor) Field {
	return Field(layout.ViewOfField(layout.Extension(xd)))
}

func (l Layout) rec() *layout.Layout {
	if r := layout.LayoutView(l).Rec(); r != nil {
		return r
	}
	return &emptyLayout
}

func (f Field) rec() *layout.Field {
	if r := layout.FieldView(f).Rec(); r != nil {
		return r
	}
	return &emptyField
}

func view(f *layout.Field) Field {
	if f == nil {
		return Field{}
	}
	return Field(layout.ViewOfField(f))
}

func lview(l *layout.Layout) Layout {
	if l == nil {
		return Layout{}
	}
	return Layout(layout.ViewOfLayout(l))
}

// IsValid reports whether l views a layout (it is not the zero Layout).
func (l Layout) IsValid() bool { return layout.LayoutView(l).Rec() != nil }

// FullName returns the message's full name.
func (l Layout) FullName() protoreflect.FullName { return l.rec().FullName }

// Len returns the number of fields the message declares (extensions not
// included).
func (l Layout) Len() int { return len(l.rec().Fields) }

// Field returns the field at position i of the emission order. It panics
// if i is out of range, as indexing a slice does.
func (l Layout) Field(i int) Field { return view(&l.rec().Fields[i]) }

// Fields yields the message's fields with their positions, in emission
// order: the fields outside real oneofs by ascending number (proto3
// optional fields count as outside), then the members of each real oneof,
// oneofs in declaration order and members by ascending number. This is the
// order proto.Marshal writes them in, after the set extensions (by
// ascending number) and before the unknown fields.
func (l Layout) Fields() iter.Seq2[int, Field] {
	r := l.rec()
	return func(yield func(int, Field) bool) {
		for i := range r.Fields {
			if !yield(i, view(&r.Fields[i])) {
				return
			}
		}
	}
}

// Regular returns how many leading fields of the emission order are
// outside real oneofs.
func (l Layout) Regular() int { return l.rec().Regular }

// Oneofs returns the real oneofs, in declaration order; the slice is the
// caller's.
func (l Layout) Oneofs() []Oneof {
	r := l.rec()
	out := make([]Oneof, len(r.Oneofs))
	for i, o := range r.Oneofs {
		out[i] = Oneof{Name: o.Name, First: o.First, End: o.End}
	}
	return out
}

// ByNumber returns the field numbered n, if the message declares it
// (extensions not included).
func (l Layout) ByNumber(n protowire.Number) (Field, bool) {
	f := l.rec().ByNumber(n)
	return view(f), f != nil
}

// ByName returns the field of short name name, if the message declares it.
func (l Layout) ByName(name protoreflect.Name) (Field, bool) {
	f := l.rec().ByName(name)
	return view(f), f != nil
}

// Extendable reports whether the message declares extension ranges.
func (l Layout) Extendable() bool { return l.rec().Extendable }

// MessageSet reports whether the message uses the legacy MessageSet wire
// format, which protolayout refuses to encode.
func (l Layout) MessageSet() bool { return l.rec().MessageSet }

// MapEntry reports whether the message is a map field's entry.
func (l Layout) MapEntry() bool { return l.rec().MapEntry }

// IsValid reports whether f views a field (it is not the zero Field).
func (f Field) IsValid() bool { return layout.FieldView(f).Rec() != nil }

// Number returns the field number.
func (f Field) Number() protowire.Number { return f.rec().Number }

// Name returns the field's short name.
func (f Field) Name() protoreflect.Name { return f.rec().Name }

// FullName returns the field's full name.
func (f Field) FullName() protoreflect.FullName { return f.rec().FullName }

// Kind returns the field's kind; for a map field, protoreflect.MessageKind
// (the kind of its entries).
func (f Field) Kind() protoreflect.Kind { return f.rec().Kind }

// WireType returns the wire type of one value of the field (StartGroupType
// for a group; a packed list is one BytesType record, see PackedTag).
func (f Field) WireType() protowire.Type { return f.rec().WireType }

// Tag returns the encoded key of one value of the field (for a group, its
// start key). The slice is a copy, the caller's to keep or change.
func (f Field) Tag() []byte { return clone(f.rec().Tag) }

// PackedTag returns the encoded key of the field's packed record, or nil
// if the field is not packed. The slice is a copy.
func (f Field) PackedTag() []byte {
	if r := f.rec(); r.Packed {
		return clone(r.PackedTag)
	}
	return nil
}

// EndTag returns the encoded end-group key of a group field, or nil. The
// slice is a copy.
func (f Field) EndTag() []byte { return clone(f.rec().EndTag) }

func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte(nil), b...)
}

// FixedWidth returns the encoded width of every value of the field when
// it does not depend on the value (fixed32, double, bool...), else 0.
func (f Field) FixedWidth() int { return f.rec().FixedWidth }

// IsList reports whether the field is repeated (maps excluded).
func (f Field) IsList() bool { return f.rec().List }

// IsMap reports whether the field is a map.
func (f Field) IsMap() bool { return f.rec().Map }

// IsPacked reports whether the field is a repeated scalar written as one
// packed record.
func (f Field) IsPacked() bool { return f.rec().Packed }

// HasPresence reports whether the field tracks presence (proto2 optional,
// proto3 optional, editions EXPLICIT, messages, oneof members,
// extensions); an implicit-presence field skips its zero value.
func (f Field) HasPresence() bool { return f.rec().Explicit }

// IsRequired reports whether the field is proto2 required or editions
// LEGACY_REQUIRED.
func (f Field) IsRequired() bool { return f.rec().Required }

// ValidatesUTF8 reports whether the field's string values must be valid
// UTF-8 (proto3, or editions with utf8_validation = VERIFY; never for
// extensions of editions files, as in proto.Marshal).
func (f Field) ValidatesUTF8() bool { return f.rec().ValidateUTF8 }

// IsGroup reports whether the field is group-encoded (proto2 group,
// editions DELIMITED).
func (f Field) IsGroup() bool { return f.rec().Group }

// IsExtension reports whether the field is an extension.
func (f Field) IsExtension() bool { return f.rec().Extension }

// Oneof returns the index in Layout.Oneofs of the real oneof holding the
// field, or -1.
func (f Field) Oneof() int { return f.rec().Oneof }

// Message returns the layout of the field's message type (for groups
// too), or the zero Layout for fields that do not hold messages and for
// map fields (see MapValue and Entry).
func (f Field) Message() Layout { return lview(f.rec().Message()) }

// Entry returns the layout of a map field's entry message, or the zero
// Layout.
func (f Field) Entry() Layout { return lview(f.rec().Entry()) }

// MapKey returns a map field's key field, or the zero Field.
func (f Field) MapKey() Field { return view(f.rec().MapKey) }

// MapValue returns a map field's value field, or the zero Field.
func (f Field) MapValue() Field { return view(f.rec().MapValue) }
