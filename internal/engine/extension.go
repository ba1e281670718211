package engine

import (
	"google.golang.org/protobuf/reflect/protoreflect"
)

// extensionType is the protoreflect.ExtensionType of an extension
// descriptor whose values are this package's: *Message for message
// extensions, this package's lists for repeated ones.
type extensionType struct {
	desc extensionTypeDescriptor
}

// extensionTypeDescriptor is the ExtensionTypeDescriptor of an
// extensionType.
type extensionTypeDescriptor struct {
	protoreflect.ExtensionDescriptor
}

// NewExtensionType returns the extension type of xd, whose message values
// are *Message values and whose list values are this package's (as
// NewField returns them). Types of the same descriptor are equal:
// NewExtensionType(xd) == NewExtensionType(xd).
//
// ValueOf and InterfaceOf convert as protoreflect.ValueOf and
// Value.Interface do, so that the values proto.GetExtension returns and
// proto.SetExtension takes have the Go types protoreflect.Value holds.
func NewExtensionType(xd protoreflect.ExtensionDescriptor) protoreflect.ExtensionType {
	if xt, ok := xd.(protoreflect.ExtensionTypeDescriptor); ok {
		xd = xt.Descriptor()
	}
	return extensionType{extensionTypeDescriptor{xd}}
}

func (xt extensionType) New() protoreflect.Value {
	fd := xt.desc
	switch {
	case fd.IsList():
		return protoreflect.ValueOfList(newList(fd, fd.Kind()))
	case fd.Message() != nil:
		return protoreflect.ValueOfMessage(NewMessage(fd.Message()))
	default:
		return fd.Default()
	}
}

func (xt extensionType) Zero() protoreflect.Value {
	fd := xt.desc
	switch {
	case fd.IsList():
		return protoreflect.ValueOfList(readOnlyList(fd, fd.Kind()))
	case fd.Message() != nil:
		return protoreflect.ValueOfMessage(zeroMessage(fd.Message(), shapeOf(fd.Message())))
	default:
		return fd.Default()
	}
}

func (xt extensionType) TypeDescriptor() protoreflect.ExtensionTypeDescriptor { return xt.desc }

func (xt extensionType) ValueOf(iv any) protoreflect.Value {
	v := protoreflect.ValueOf(iv)
	if !xt.IsValidValue(v) {
		wrongType(xt.desc, v)
	}
	return v
}

func (xt extensionType) InterfaceOf(v protoreflect.Value) any {
	if !xt.IsValidValue(v) {
		wrongType(xt.desc, v)
	}
	return v.Interface()
}

func (xt extensionType) IsValidInterface(iv any) bool {
	return xt.IsValidValue(protoreflect.ValueOf(iv))
}

// IsValidValue reports whether v can be stored in the extension: a value
// of the extension's scalar type, a valid *Message of its message type,
// or a valid list of this package's made for it.
func (xt extensionType) IsValidValue(v protoreflect.Value) (ok bool) {
	fd := xt.desc
	if !v.IsValid() {
		return false
	}
	if fd.IsList() {
		l, ok := listOf(v)
		return ok && l.fd == protoreflect.FieldDescriptor(fd) && l.valid
	}
	// A value of the wrong category panics in protoreflect's accessors
	// (as in toWord); here it means "not valid".
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	checkSingular(fd, v)
	return true
}

func (xt extensionTypeDescriptor) Type() protoreflect.ExtensionType { return extensionType{xt} }

func (xt extensionTypeDescriptor) Descriptor() protoreflect.ExtensionDescriptor {
	return xt.ExtensionDescriptor
}
