package dynamic_test

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/dynamic"
	"github.com/protolayout/protolayout/protobuftest"
)

// TestExtensionsInOrder checks the extensions' list, kept sorted by
// number: set in any order, Range visits them in ascending number; a
// Range that clears each extension it is given visits each once and
// leaves none; and extensions decoded out of order encode in ascending
// number, as dynamicpb's do with Deterministic (and the walk always).
func TestExtensionsInOrder(t *testing.T) {
	tw := protobuftest.TwinByName("protolayout.test2.TestAllExtensions")
	var xts []protoreflect.ExtensionType
	for _, xt := range tw.DynExts {
		xd := xt.TypeDescriptor().Descriptor()
		if !xd.IsList() && xd.Message() == nil && xd.Kind() != protoreflect.StringKind && xd.Kind() != protoreflect.BytesKind {
			xts = append(xts, dynamic.NewExtensionType(xd))
		}
	}
	if len(xts) < 5 {
		t.Fatalf("only %d scalar extensions", len(xts))
	}
	m := dynamic.NewMessage(tw.Dyn.Descriptor())
	for _, i := range rand.New(rand.NewPCG(1, 2)).Perm(len(xts)) {
		xd := xts[i].TypeDescriptor()
		m.Set(xd, xd.Default())
	}
	var seen []protoreflect.FieldNumber
	m.Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
		seen = append(seen, fd.Number())
		return true
	})
	if len(seen) != len(xts) || !slices.IsSorted(seen) {
		t.Fatalf("Range visits %v", seen)
	}

	// Out of order on the wire: the encoding sorts them, as dynamicpb's.
	var in []byte
	for _, i := range []int{4, 0, 2} {
		in = protowire.AppendTag(in, seen[i], protowire.VarintType)
		in = protowire.AppendVarint(in, 1)
	}
	twin := dynamicpb.NewMessage(tw.Dyn.Descriptor())
	if err := (proto.UnmarshalOptions{Resolver: protobuftest.DynamicTypes()}).Unmarshal(in, twin); err != nil {
		t.Fatal(err)
	}
	d := dynamic.NewMessage(tw.Dyn.Descriptor())
	if err := (proto.UnmarshalOptions{Resolver: dynamic.NewTypes(protobuftest.DynamicFiles())}).Unmarshal(in, d); err != nil {
		t.Fatal(err)
	}
	got, _ := proto.Marshal(d)
	want, _ := deterministic.Marshal(twin) // dynamicpb's own order is its map's
	if !bytes.Equal(got, want) || len(d.GetUnknown()) != 0 {
		t.Fatalf("decoded out of order: % x, want % x", got, want)
	}

	visits := 0
	m.Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
		visits++
		m.Clear(fd)
		return true
	})
	if visits != len(xts) {
		t.Fatalf("a clearing Range visits %d extensions, want %d", visits, len(xts))
	}
	m.Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
		t.Fatalf("%v is left after a clearing Range", fd.FullName())
		return false
	})
}
