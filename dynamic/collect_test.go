package dynamic_test

import (
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/dynamic"
	"github.com/protolayout/protolayout/internal/dynhook"
	"github.com/protolayout/protolayout/internal/layout"
	"github.com/protolayout/protolayout/protobuftest"
)

// TestCollect checks what the encoder's walker reads of a Message's
// storage (dynhook.Collect) against protoreflect: for messages of every
// test type filled at random, the set fields are those Has reports, in
// emission order, with Get's values, and the extensions those Range
// visits; a read-only message, another implementation and a layout the
// shape was not built from are left to protoreflect. It is an external
// test because protobuftest, which it uses, imports this package.
func TestCollect(t *testing.T) {
	if dynhook.Collect == nil || dynhook.Methods != dynamic.NewMessage(protobuftest.Twins()[0].Dyn.Descriptor()).ProtoMethods() || dynhook.Addr == nil {
		t.Fatal("the hooks are not registered")
	}
	for _, tw := range protobuftest.Twins() {
		md := tw.Dyn.Descriptor()
		lay := layout.Of(md)
		var xts []protoreflect.ExtensionType
		for _, xt := range tw.DynExts {
			xts = append(xts, dynamic.NewExtensionType(xt.TypeDescriptor().Descriptor()))
		}
		for seed := range uint64(4) {
			m := dynamic.NewMessage(md)
			protobuftest.Fill(m, seed, protobuftest.RandOptions{Extensions: xts, Unknown: true})
			set, exts, ok := dynhook.Collect(m, lay, nil, nil)
			if !ok {
				t.Fatalf("%v: Collect refused a valid message", md.FullName())
			}
			var want []dynhook.Field
			for pos := range lay.Fields {
				fd := md.Fields().Get(lay.Fields[pos].Index)
				if m.Has(fd) {
					want = append(want, dynhook.Field{Pos: int32(pos), V: m.Get(fd)})
				}
			}
			if len(set) != len(want) {
				t.Fatalf("%v seed %d: Collect found %d set fields, Has %d", md.FullName(), seed, len(set), len(want))
			}
			for i := range set {
				if set[i].Pos != want[i].Pos || !set[i].V.Equal(want[i].V) {
					t.Fatalf("%v seed %d: set field %d is %v = %v, want %v = %v", md.FullName(), seed, i, set[i].Pos, set[i].V, want[i].Pos, want[i].V)
				}
			}
			nx := 0
			m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
				if fd.IsExtension() {
					nx++
					found := false
					for _, x := range exts {
						found = found || x.FD == fd && x.V.Equal(v)
					}
					if !found {
						t.Fatalf("%v seed %d: Collect lacks extension %v", md.FullName(), seed, fd.FullName())
					}
				}
				return true
			})
			if nx != len(exts) {
				t.Fatalf("%v seed %d: Collect found %d extensions, Range %d", md.FullName(), seed, len(exts), nx)
			}
			if dynhook.Addr(m) == 0 {
				t.Fatalf("%v: Addr of a Message is 0", md.FullName())
			}
		}
		for name, mr := range map[string]protoreflect.Message{
			"read-only": dynamic.NewMessageType(md).Zero(),
			"dynamicpb": dynamicpb.NewMessage(md),
		} {
			if _, _, ok := dynhook.Collect(mr, lay, nil, nil); ok {
				t.Fatalf("%v: Collect read a %s message", md.FullName(), name)
			}
		}
		if dynhook.Addr(dynamicpb.NewMessage(md)) != 0 {
			t.Fatalf("%v: Addr of a dynamicpb message is not 0", md.FullName())
		}
		other := &layout.Layout{}
		if _, _, ok := dynhook.Collect(dynamic.NewMessage(md), other, nil, nil); ok {
			t.Fatalf("%v: Collect read a message with a layout not its shape's", md.FullName())
		}
	}
}
