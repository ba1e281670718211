package dynamic_test

import (
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/testing/prototest"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/protolayout/protolayout/dynamic"
	"github.com/protolayout/protolayout/protobuftest"
)

// allMessages returns every message descriptor of the test schemas,
// nested ones and map entries included.
func allMessages() []protoreflect.MessageDescriptor {
	var all []protoreflect.MessageDescriptor
	var walk func(protoreflect.MessageDescriptors)
	walk = func(mds protoreflect.MessageDescriptors) {
		for i := range mds.Len() {
			md := mds.Get(i)
			all = append(all, md)
			walk(md.Messages())
		}
	}
	protobuftest.DynamicFiles().RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		walk(fd.Messages())
		return true
	})
	return all
}

// reachesMessageSet reports whether md, or a message type reachable from
// its fields, uses the MessageSet wire format.
func reachesMessageSet(md protoreflect.MessageDescriptor, seen map[protoreflect.FullName]bool) bool {
	if seen == nil {
		seen = make(map[protoreflect.FullName]bool)
	}
	if seen[md.FullName()] {
		return false
	}
	seen[md.FullName()] = true
	if opts, ok := md.Options().(*descriptorpb.MessageOptions); ok && opts.GetMessageSetWireFormat() {
		return true
	}
	fds := md.Fields()
	for i := range fds.Len() {
		if sub := fds.Get(i).Message(); sub != nil && reachesMessageSet(sub, seen) {
			return true
		}
	}
	return false
}

// TestPrototest runs protobuf-go's conformance test of message
// implementations on every message type of the test schemas (map entries
// included, which pass as well), with their extensions through
// NewExtensionType.
func TestPrototest(t *testing.T) {
	types := dynamic.NewTypes(protobuftest.DynamicFiles())
	for _, md := range allMessages() {
		t.Run(string(md.FullName()), func(t *testing.T) {
			if reachesMessageSet(md, nil) && !legacyBuild {
				// prototest marshals and unmarshals through reflection,
				// which supports message_set_wire_format only in a
				// protolegacy build, for dynamicpb's messages too.
				t.Skip("reaches a MessageSet: run with -tags protolegacy")
			}
			prototest.Message{Resolver: types}.Test(t, dynamic.NewMessageType(md))
		})
	}
}
