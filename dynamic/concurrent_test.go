package dynamic_test

import (
	"bytes"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/dynamic"
	"github.com/protolayout/protolayout/protobuftest"
)

// TestConcurrentReads reads one message from several goroutines (Get,
// Has, Range, Marshal, which links child shapes on first use) while
// others build messages of a schema loaded for the test (whose shapes
// are built concurrently). Run under -race.
func TestConcurrentReads(t *testing.T) {
	files, err := protobuftest.LoadFiles()
	if err != nil {
		t.Fatal(err)
	}
	d, err := files.FindDescriptorByName("protolayout.test2.TestAllTypes")
	if err != nil {
		t.Fatal(err)
	}
	md := d.(protoreflect.MessageDescriptor)
	m := dynamic.NewMessage(md)
	protobuftest.Fill(m, 7, protobuftest.RandOptions{Unknown: true})
	want, err := deterministic.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 20 {
				fds := md.Fields()
				for i := range fds.Len() {
					m.Get(fds.Get(i))
					m.Has(fds.Get(i))
				}
				m.Range(func(protoreflect.FieldDescriptor, protoreflect.Value) bool { return true })
				if got, err := deterministic.Marshal(m); err != nil || !bytes.Equal(got, want) {
					t.Error("a concurrent Marshal differs")
					return
				}
			}
		})
		wg.Go(func() {
			for seed := range uint64(5) {
				x := dynamic.NewMessage(md)
				protobuftest.Fill(x, seed, protobuftest.RandOptions{})
				if _, err := proto.Marshal(x); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}
