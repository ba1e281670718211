package dynamic

import (
	"runtime"
	"testing"
	"time"

	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/protolayout/protolayout/protobuftest/gen/test2pb"
)

// collect runs the collector until the shape cache holds at most want
// shapes or a few seconds have passed, and returns the count.
func collect(want int) int {
	deadline := time.Now().Add(5 * time.Second)
	for {
		runtime.GC()
		if n := cached(); n <= want || time.Now().After(deadline) {
			return n
		}
		time.Sleep(time.Millisecond)
	}
}

// loadAllTypes builds the proto2 test schema anew, from the descriptor
// proto of its generated code (not through package protobuftest, which
// imports this package), and returns the descriptor of
// protolayout.test2.TestAllTypes.
func loadAllTypes(t *testing.T) protoreflect.MessageDescriptor {
	t.Helper()
	fdp := protodesc.ToFileDescriptorProto(test2pb.File_protobuftest_proto_test2_proto)
	fd, err := protodesc.NewFile(fdp, protoregistry.GlobalFiles)
	if err != nil {
		t.Fatal(err)
	}
	md := fd.Messages().ByName("TestAllTypes")
	if md == nil {
		t.Fatal("no TestAllTypes in the proto2 test schema")
	}
	return md
}

// TestReleasedWithSchema checks that the shapes of a dropped schema leave
// the cache, with its messages, and that those of a schema still held
// stay and are reused.
func TestReleasedWithSchema(t *testing.T) {
	base := collect(0)
	kept := loadAllTypes(t)
	m := NewMessage(kept)
	m.Mutable(kept.Fields().ByName("optional_nested_message"))
	keptShape := m.shape
	held := cached() - base
	if held < 2 {
		t.Fatalf("%d shapes cached for a message and its child, want 2 or more", held)
	}
	loads := 10
	if testing.Short() {
		loads = 4
	}
	for range loads {
		md := loadAllTypes(t)
		x := NewMessage(md)
		x.Mutable(md.Fields().ByName("optional_nested_message")).Message().
			Mutable(md.Fields().ByName("optional_nested_message").Message().Fields().ByName("corecursive"))
		if x.shape == keptShape {
			t.Fatal("a new load got the shape of another")
		}
	}
	if n := collect(base + held); n > base+held {
		t.Fatalf("%d shapes cached after dropping %d loads, want at most %d", n, loads, base+held)
	}
	if shapeOf(kept) != keptShape {
		t.Fatal("the shape of a schema still held was rebuilt")
	}
	runtime.KeepAlive(m)
}
