package dynstore

import (
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// Fields sees exactly what Range sees, set or not, extensions included.
func TestFieldsMatchRange(t *testing.T) {
	if !Enabled {
		t.Skip("direct reads are disabled in this build")
	}
	md := (&descriptorpb.FileDescriptorProto{}).ProtoReflect().Descriptor()
	m := dynamicpb.NewMessage(md)
	m.Set(md.Fields().ByName("name"), protoreflect.ValueOfString("x"))
	m.Mutable(md.Fields().ByName("dependency")).List().Append(protoreflect.ValueOfString("d"))
	m.Mutable(md.Fields().ByName("message_type")) // an empty list: stored, not set
	known, ext, ok := Fields(m)
	if !ok {
		t.Fatal("not ok")
	}
	seen := 0
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		seen++
		if _, ok := known[fd.Number()]; !ok {
			t.Errorf("%s missing from the storage", fd.Name())
		}
		return true
	})
	if seen != 2 || len(known) != 3 || len(ext) != 0 {
		t.Errorf("Range saw %d, storage holds %d values and %d extensions", seen, len(known), len(ext))
	}
}
