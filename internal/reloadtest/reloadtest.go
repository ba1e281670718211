// Package reloadtest loads schemas anew, as a proxy loads a
// FileDescriptorSet, for the module's tests: the set of a file and its
// imports, a dynamic type of a fresh descriptor, the dynamic twin of a
// generated message in it, as a dynamicpb message or a *dynamic.Message. It
// is imported by tests only (package settest
// holds the descriptor-set equivalence test two test binaries run).
package reloadtest

import (
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/dynamic"
	"github.com/protolayout/protolayout/internal/fileset"
)

// Seeds is how many random messages each test schema message gets in the
// equivalence tests: 300, or 30 with -short.
func Seeds() uint64 {
	if testing.Short() {
		return 30
	}
	return 300
}

// FileSet returns the files fds and everything they import, each once,
// imports before the files that import them.
func FileSet(fds ...protoreflect.FileDescriptor) *descriptorpb.FileDescriptorSet {
	set := &descriptorpb.FileDescriptorSet{}
	for _, fd := range fileset.Closure(fds...) {
		set.File = append(set.File, protodesc.ToFileDescriptorProto(fd))
	}
	return set
}

// Type loads md's file and its imports anew and returns a dynamic type of
// the fresh descriptor, with the dynamic types of every message and
// extension of the load.
func Type(tb testing.TB, md protoreflect.MessageDescriptor) (protoreflect.MessageType, *protoregistry.Types) {
	tb.Helper()
	files, err := protodesc.NewFiles(FileSet(md.ParentFile()))
	if err != nil {
		tb.Fatal(err)
	}
	d, err := files.FindDescriptorByName(md.FullName())
	if err != nil {
		tb.Fatal(err)
	}
	types := new(protoregistry.Types)
	files.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		registerAll(types, fd.Messages(), fd.Extensions())
		return true
	})
	return dynamicpb.NewMessageType(d.(protoreflect.MessageDescriptor)), types
}

func registerAll(types *protoregistry.Types, msgs protoreflect.MessageDescriptors, exts protoreflect.ExtensionDescriptors) {
	for i := range exts.Len() {
		_ = types.RegisterExtension(dynamicpb.NewExtensionType(exts.Get(i)))
	}
	for i := range msgs.Len() {
		md := msgs.Get(i)
		_ = types.RegisterMessage(dynamicpb.NewMessageType(md))
		registerAll(types, md.Messages(), md.Extensions())
	}
}

// Twin returns the dynamic twin of g, a message of type mt (from Type),
// with extensions resolved through types.
func Twin(tb testing.TB, g proto.Message, mt protoreflect.MessageType, types *protoregistry.Types) proto.Message {
	tb.Helper()
	b, err := proto.MarshalOptions{Deterministic: true, AllowPartial: true}.Marshal(g)
	if err != nil {
		tb.Fatal(err)
	}
	d := mt.New().Interface()
	if err := (proto.UnmarshalOptions{AllowPartial: true, Resolver: types}).Unmarshal(b, d); err != nil {
		tb.Fatal(err)
	}
	return d
}

// MessageTwin returns the twin of g as a *dynamic.Message over the
// descriptor of mt (from Type), decoded through package dynamic's own
// decoder, with extensions resolved to dynamic's types of the files of that
// load.
func MessageTwin(tb testing.TB, g proto.Message, mt protoreflect.MessageType) proto.Message {
	tb.Helper()
	b, err := proto.MarshalOptions{Deterministic: true, AllowPartial: true}.Marshal(g)
	if err != nil {
		tb.Fatal(err)
	}
	md := mt.Descriptor()
	dm := dynamic.NewMessage(md)
	o := proto.UnmarshalOptions{AllowPartial: true, Resolver: dynamic.NewTypes(filesOf(md.ParentFile()))}
	if err := o.Unmarshal(b, dm); err != nil {
		tb.Fatal(err)
	}
	return dm
}

// filesOf returns a registry of fd and everything it imports.
func filesOf(fd protoreflect.FileDescriptor) *protoregistry.Files {
	files := new(protoregistry.Files)
	var add func(fd protoreflect.FileDescriptor)
	add = func(fd protoreflect.FileDescriptor) {
		if _, err := files.FindFileByPath(fd.Path()); err == nil {
			return
		}
		for i := range fd.Imports().Len() {
			add(fd.Imports().Get(i).FileDescriptor)
		}
		_ = files.RegisterFile(fd)
	}
	add(fd)
	return files
}
