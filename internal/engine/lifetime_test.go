package engine

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/protolayout/protolayout/protobuftest/gen/test2pb"
)

// collectUntil runs the collector until count reports at most want, or
// for collections collections, and returns the last count. Cleanups run
// on their own goroutine after a collection, which the pause lets run.
func collectUntil(count func() int, want int) int {
	for i := 0; ; i++ {
		runtime.GC()
		if n := count(); n <= want || i == collections {
			return n
		}
		time.Sleep(time.Millisecond)
	}
}

// collections bounds the collections collectUntil waits for: a count, not
// a time, which a loaded machine would stretch.
const collections = 200

// collect does so for the shape cache.
func collect(want int) int { return collectUntil(cached, want) }

// collectExtensions does so for the direct encoder's cache of extension
// records.
func collectExtensions(want int) int { return collectUntil(extFields.Len, want) }

// TestExtensionRecordsReleased checks that the direct encoder's records
// of the extensions of a dropped schema leave their cache.
func TestExtensionRecordsReleased(t *testing.T) {
	base := collectExtensions(0)
	for range 4 {
		fd, err := protodesc.NewFile(protodesc.ToFileDescriptorProto(test2pb.File_protobuftest_proto_test2_proto), protoregistry.GlobalFiles)
		if err != nil {
			t.Fatal(err)
		}
		xd := fd.Extensions().ByName("optional_int32_extension")
		m := NewMessage(xd.ContainingMessage())
		m.Set(NewExtensionType(xd).TypeDescriptor(), protoreflect.ValueOfInt32(1))
		if b, err := proto.Marshal(m); err != nil || len(b) == 0 {
			t.Fatalf("% x, %v", b, err)
		}
	}
	if extFields.Len() <= base {
		t.Fatal("the direct encoder cached no extension record")
	}
	if n := collectExtensions(base); n > base {
		t.Fatalf("%d extension records cached after dropping their schemas, want at most %d", n, base)
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
	keptShape := m.t.shape
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
		if x.t.shape == keptShape {
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

// heapAfterGC returns the bytes of the live heap after a complete
// collection.
func heapAfterGC() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// retained decodes in, a message of md about 1 MB long, once to build
// the type's tables and set its hints, then again, keeps what keep
// returns of the second message, drops the rest, and returns the bytes
// of heap then held.
func retained(t *testing.T, md protoreflect.MessageDescriptor, in []byte, keep func(*Message) any) uint64 {
	t.Helper()
	decode := func() *Message {
		m := NewMessage(md)
		if err := proto.Unmarshal(in, m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	decode()
	before := heapAfterGC()
	held := keep(decode())
	after := heapAfterGC()
	runtime.KeepAlive(held)
	runtime.KeepAlive(in)
	if after < before {
		return 0
	}
	return after - before
}

// A value kept from a decoded message keeps its chunks alive, and no more:
// one string of a megabyte of them keeps its data chunk (chunkBytes at
// most), one message of ten thousand keeps its chunk of headers and
// blocks and that of its string, and neither keeps the input or the rest.
func TestRetainedValueKeepsItsChunks(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory is on the heap's side")
	}
	md := loadAllTypes(t)
	str, nested := md.Fields().ByName("repeated_string"), md.Fields().ByName("repeated_nested_message")
	val := nested.Message().Fields().ByName("a")
	var strs, msgs []byte
	defer runtime.KeepAlive(&strs)
	for i := range 10_000 {
		strs = protowire.AppendTag(strs, str.Number(), protowire.BytesType)
		strs = protowire.AppendString(strs, strings.Repeat(string(rune('a'+i%26)), 100))
		var sub []byte
		sub = protowire.AppendTag(sub, val.Number(), protowire.VarintType)
		sub = protowire.AppendVarint(sub, uint64(i))
		msgs = protowire.AppendTag(msgs, nested.Number(), protowire.BytesType)
		msgs = protowire.AppendBytes(msgs, sub)
	}
	const slack = 16 << 10
	s := retained(t, md, strs, func(m *Message) any { return m.Get(str).List().Get(5000).String() })
	if s > chunkBytes+slack {
		t.Errorf("one string of %d bytes keeps %d bytes alive, want at most %d", len(strs), s, chunkBytes+slack)
	}
	n := retained(t, md, msgs, func(m *Message) any { return m.Get(nested).List().Get(5000).Message() })
	if n > chunkBytes+slack {
		t.Errorf("one message of %d bytes of them keeps %d bytes alive, want at most %d", len(msgs), n, chunkBytes+slack)
	}
	t.Logf("one string of 10,000 (%d bytes of input) keeps %d bytes alive; one message of 10,000 (%d bytes) keeps %d", len(strs), s, len(msgs), n)
}
