package dynamic

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
)

// Types resolves the message and extension types of a set of files to
// this package's types, as dynamicpb.Types resolves them to dynamicpb's.
// Its methods are safe for concurrent use.
//
// Types implements [protoregistry.MessageTypeResolver] and
// [protoregistry.ExtensionTypeResolver], so that it can serve as the
// Resolver of proto.UnmarshalOptions, protojson.UnmarshalOptions and
// prototext.UnmarshalOptions.
type Types struct {
	files *protoregistry.Files

	// index indexes the extensions of files, built on first use and
	// rebuilt (under mu) when files have been added; a published index
	// is never modified.
	mu    sync.Mutex
	index atomic.Pointer[extensionIndex]
}

// extensionIndex indexes the extensions of a file set by the full name
// of the message they extend.
type extensionIndex struct {
	numFiles  int
	byNumber  map[extensionKey]protoreflect.ExtensionDescriptor
	byMessage map[protoreflect.FullName][]protoreflect.ExtensionDescriptor
}

type extensionKey struct {
	message protoreflect.FullName
	number  protoreflect.FieldNumber
}

var (
	_ protoregistry.MessageTypeResolver   = (*Types)(nil)
	_ protoregistry.ExtensionTypeResolver = (*Types)(nil)
)

// NewTypes returns a resolver of the types of the files in files. Types
// keeps files and sees what is later added to it; adding files must not
// run concurrently with the methods of Types.
func NewTypes(files *protoregistry.Files) *Types {
	return &Types{files: files}
}

// FindEnumByName returns the enum type of that full name, or
// protoregistry.NotFound. Enums have no storage of their own: the type
// is dynamicpb's.
func (t *Types) FindEnumByName(name protoreflect.FullName) (protoreflect.EnumType, error) {
	d, err := t.files.FindDescriptorByName(name)
	if err != nil {
		return nil, err
	}
	ed, ok := d.(protoreflect.EnumDescriptor)
	if !ok {
		return nil, wrongKind(d, "enum")
	}
	return dynamicpb.NewEnumType(ed), nil
}

// FindMessageByName returns the message type of that full name, or
// protoregistry.NotFound.
func (t *Types) FindMessageByName(name protoreflect.FullName) (protoreflect.MessageType, error) {
	d, err := t.files.FindDescriptorByName(name)
	if err != nil {
		return nil, err
	}
	md, ok := d.(protoreflect.MessageDescriptor)
	if !ok {
		return nil, wrongKind(d, "message")
	}
	return NewMessageType(md), nil
}

// FindMessageByURL returns the message type named by the last path
// segment of url (a google.protobuf.Any type URL), or
// protoregistry.NotFound.
func (t *Types) FindMessageByURL(url string) (protoreflect.MessageType, error) {
	name := url
	if i := strings.LastIndexByte(url, '/'); i >= 0 {
		name = url[i+1:]
	}
	return t.FindMessageByName(protoreflect.FullName(name))
}

// FindExtensionByName returns the extension type of that full name (the
// extension's own name, not the extended message's), or
// protoregistry.NotFound.
func (t *Types) FindExtensionByName(name protoreflect.FullName) (protoreflect.ExtensionType, error) {
	d, err := t.files.FindDescriptorByName(name)
	if err != nil {
		return nil, err
	}
	xd, ok := d.(protoreflect.ExtensionDescriptor)
	if !ok {
		return nil, wrongKind(d, "extension")
	}
	return NewExtensionType(xd), nil
}

// FindExtensionByNumber returns the type of the extension numbered field
// of the message named message, or protoregistry.NotFound.
func (t *Types) FindExtensionByNumber(message protoreflect.FullName, field protoreflect.FieldNumber) (protoreflect.ExtensionType, error) {
	xd := t.extensions().byNumber[extensionKey{message, field}]
	if xd == nil {
		return nil, protoregistry.NotFound
	}
	return NewExtensionType(xd), nil
}

// RangeExtensionsByMessage calls f for the type of each extension of the
// message named message, in no particular order, until f returns false.
func (t *Types) RangeExtensionsByMessage(message protoreflect.FullName, f func(protoreflect.ExtensionType) bool) {
	for _, xd := range t.extensions().byMessage[message] {
		if !f(NewExtensionType(xd)) {
			return
		}
	}
}

// extensions returns the index of the files' extensions, rebuilding it
// when files have been added since it was built.
func (t *Types) extensions() *extensionIndex {
	n := t.files.NumFiles()
	if x := t.index.Load(); x != nil && x.numFiles == n {
		return x
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if x := t.index.Load(); x != nil && x.numFiles == n {
		return x
	}
	x := &extensionIndex{
		numFiles:  n,
		byNumber:  make(map[extensionKey]protoreflect.ExtensionDescriptor),
		byMessage: make(map[protoreflect.FullName][]protoreflect.ExtensionDescriptor),
	}
	t.files.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		x.add(fd.Extensions())
		x.addNested(fd.Messages())
		return true
	})
	t.index.Store(x)
	return x
}

func (x *extensionIndex) addNested(mds protoreflect.MessageDescriptors) {
	for i := range mds.Len() {
		md := mds.Get(i)
		x.add(md.Extensions())
		x.addNested(md.Messages())
	}
}

func (x *extensionIndex) add(xds protoreflect.ExtensionDescriptors) {
	for i := range xds.Len() {
		xd := xds.Get(i)
		name := xd.ContainingMessage().FullName()
		x.byNumber[extensionKey{name, xd.Number()}] = xd
		x.byMessage[name] = append(x.byMessage[name], xd)
	}
}

// wrongKind is the error of a name that names a descriptor of another
// kind than the one looked for.
func wrongKind(d protoreflect.Descriptor, want string) error {
	var got string
	switch d.(type) {
	case protoreflect.EnumDescriptor:
		got = "enum"
	case protoreflect.EnumValueDescriptor:
		got = "enum value"
	case protoreflect.MessageDescriptor:
		got = "message"
	case protoreflect.ExtensionDescriptor:
		got = "extension"
	case protoreflect.ServiceDescriptor:
		got = "service"
	default:
		got = fmt.Sprintf("%T", d)
	}
	return fmt.Errorf("dynamic: found wrong type: got %v, want %s", got, want)
}
