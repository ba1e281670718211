package dynamic_test

import (
	"bytes"
	"sync"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/dynamic"
	"github.com/protolayout/protolayout/protobuftest"
)

// The messages a decode finds empty (list elements, fields, map values
// empty or absent) share a block that stays zero until one is written
// to: every way of writing to them (Set, Clear, Reset,
// Mutable, SetUnknown, proto.Merge, a merging Unmarshal) changes that
// message alone, as on dynamicpb, and leaves every other empty message
// of the type, of this decode, of an earlier one and of a later one,
// empty; through a Decoder, whose calls release the messages of the call
// before, too; and on several goroutines at once (which the race
// detector watches).
func TestEmptyMessagesWrittenAlone(t *testing.T) {
	md := protobuftest.TwinByName("protolayout.test3.TestRecursive").Dyn.Descriptor()
	fields := md.Fields()
	child, value, children, byName, oneofChild := fields.ByName("child"), fields.ByName("value"),
		fields.ByName("children"), fields.ByName("by_name"), fields.ByName("oneof_child")
	empty := func(b []byte, num protowire.Number) []byte {
		return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), nil)
	}
	var in []byte
	for range 6 { // a run of empty list elements
		in = empty(in, children.Number())
	}
	in = empty(in, child.Number())
	in = protowire.AppendVarint(protowire.AppendTag(in, value.Number(), protowire.VarintType), 1)
	in = empty(in, children.Number()) // one more, apart from the run
	in = empty(in, oneofChild.Number())
	// Entries of a map of messages: a value absent, empty, and set.
	entry := func(b []byte, key string, value []byte) []byte {
		e := protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), key)
		if value != nil {
			e = protowire.AppendBytes(protowire.AppendTag(e, 2, protowire.BytesType), value)
		}
		return protowire.AppendBytes(protowire.AppendTag(b, byName.Number(), protowire.BytesType), e)
	}
	in = entry(in, "absent", nil)
	in = entry(in, "empty", []byte{})
	in = entry(in, "set", protowire.AppendVarint(protowire.AppendTag(nil, value.Number(), protowire.VarintType), 6))

	nine := dynamic.NewMessage(md)
	nine.Set(value, protoreflect.ValueOfInt32(9))
	five, err := proto.Marshal(nine)
	if err != nil {
		t.Fatal(err)
	}

	// write changes the decoded message m as every way of writing does.
	write := func(t *testing.T, m protoreflect.Message) {
		list := m.Get(children).List()
		el := func(i int) protoreflect.Message { return list.Get(i).Message() }
		el(0).Set(value, protoreflect.ValueOfInt32(7))
		el(1).Clear(value)
		proto.Reset(el(1).Interface())
		l := el(2).Mutable(children).List()
		e := l.NewElement()
		e.Message().Set(value, protoreflect.ValueOfInt32(3))
		l.Append(e)
		proto.Merge(el(3).Interface(), proto.Clone(nine))
		if err := (proto.UnmarshalOptions{Merge: true}).Unmarshal(five, el(4).Interface()); err != nil {
			t.Fatal(err)
		}
		el(5).SetUnknown(protowire.AppendVarint(protowire.AppendTag(nil, 99, protowire.VarintType), 4))
		el(5).Mutable(byName).Map().Set(protoreflect.ValueOfString("k").MapKey(), protoreflect.ValueOfMessage(el(5).NewField(byName).Map().NewValue().Message()))
		m.Get(child).Message().Set(value, protoreflect.ValueOfInt32(2))
		mp := m.Mutable(byName).Map()
		mp.Mutable(protoreflect.ValueOfString("absent").MapKey()).Message().Set(value, protoreflect.ValueOfInt32(8))
		if err := (proto.UnmarshalOptions{Merge: true}).Unmarshal(five, mp.Mutable(protoreflect.ValueOfString("empty").MapKey()).Message().Interface()); err != nil {
			t.Fatal(err)
		}
		m.Get(oneofChild).Message().Mutable(child)
	}
	det := proto.MarshalOptions{Deterministic: true}

	ref := dynamicpb.NewMessage(md)
	if err := proto.Unmarshal(in, ref); err != nil {
		t.Fatal(err)
	}
	refb, err := det.Marshal(ref)
	if err != nil {
		t.Fatal(err)
	}
	earlier := dynamic.NewMessage(md)
	if err := proto.Unmarshal(in, earlier); err != nil {
		t.Fatal(err)
	}
	got, want := dynamic.NewMessage(md), dynamicpb.NewMessage(md)
	for _, m := range []proto.Message{got, want} {
		if err := proto.Unmarshal(in, m); err != nil {
			t.Fatal(err)
		}
		write(t, m.ProtoReflect())
	}
	gb, err := det.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	wb, err := det.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(gb, wb) {
		t.Fatalf("written to, dynamic encodes\n%x\nwant (dynamicpb)\n%x", gb, wb)
	}
	// Each is one message written to; the rest of the list is still
	// empty, and so are the earlier decode's and a later one's.
	later := dynamic.NewMessage(md)
	if err := proto.Unmarshal(in, later); err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string]*dynamic.Message{"earlier": earlier, "later": later} {
		b, err := det.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, refb) {
			t.Errorf("%s decode re-encodes as\n%x\nwant\n%x", name, b, refb)
		}
		list := m.Get(children).List()
		for i := range list.Len() {
			list.Get(i).Message().Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
				t.Errorf("%s decode: element %d has %v set", name, i, fd.Name())
				return true
			})
		}
		for _, k := range []string{"absent", "empty"} {
			m.Get(byName).Map().Get(protoreflect.ValueOfString(k).MapKey()).Message().Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
				t.Errorf("%s decode: map value %q has %v set", name, k, fd.Name())
				return true
			})
		}
	}

	// A Decoder's messages too, each call releasing the one before.
	var d dynamic.Decoder
	for i := range 3 {
		m := dynamic.NewMessage(md)
		if err := d.Unmarshal(in, m); err != nil {
			t.Fatal(err)
		}
		if b, err := det.Marshal(m); err != nil || !bytes.Equal(b, refb) {
			t.Fatalf("Decoder, call %d: decoded %x, %v; want %x", i, b, err, refb)
		}
		write(t, m)
		if b, err := det.Marshal(m); err != nil || !bytes.Equal(b, wb) {
			t.Fatalf("Decoder, call %d: written to, %x, %v; want %x", i, b, err, wb)
		}
	}

	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			var d dynamic.Decoder
			for i := range 50 {
				m := dynamic.NewMessage(md)
				unmarshal := proto.Unmarshal
				if i%2 == 1 {
					unmarshal = func(b []byte, m proto.Message) error { return d.Unmarshal(b, m.(*dynamic.Message)) }
				}
				if err := unmarshal(in, m); err != nil {
					t.Error(err)
					return
				}
				write(t, m)
				b, err := det.Marshal(m)
				if err != nil || !bytes.Equal(b, wb) {
					t.Errorf("on a goroutine: %x, %v; want %x", b, err, wb)
					return
				}
			}
		})
	}
	wg.Wait()
}

// Empty groups, singular and repeated, share their type's zero block as
// empty messages do: written to, one changes alone, as on dynamicpb.
func TestEmptyGroupsWrittenAlone(t *testing.T) {
	md := protobuftest.TwinByName("protolayout.test2.TestAllTypes").Dyn.Descriptor()
	fields := md.Fields()
	single, repeated := fields.ByName("optionalgroup"), fields.ByName("repeatedgroup")
	group := func(b []byte, num protowire.Number) []byte {
		b = protowire.AppendTag(b, num, protowire.StartGroupType)
		return protowire.AppendTag(b, num, protowire.EndGroupType)
	}
	in := group(group(group(nil, single.Number()), repeated.Number()), repeated.Number())
	write := func(m protoreflect.Message) {
		a := single.Message().Fields().ByName("a")
		m.Get(single).Message().Set(a, protoreflect.ValueOfInt32(1))
		ra := repeated.Message().Fields().ByName("a")
		m.Get(repeated).List().Get(0).Message().Set(ra, protoreflect.ValueOfInt32(2))
	}
	det := proto.MarshalOptions{Deterministic: true}
	got, want := dynamic.NewMessage(md), dynamicpb.NewMessage(md)
	for _, m := range []proto.Message{got, want} {
		if err := proto.Unmarshal(in, m); err != nil {
			t.Fatal(err)
		}
		write(m.ProtoReflect())
	}
	gb, err := det.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	wb, err := det.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(gb, wb) {
		t.Fatalf("written to, dynamic encodes %x, want (dynamicpb) %x", gb, wb)
	}
	later := dynamic.NewMessage(md)
	if err := proto.Unmarshal(in, later); err != nil {
		t.Fatal(err)
	}
	if b, err := det.Marshal(later); err != nil || !bytes.Equal(b, in) {
		t.Errorf("a later decode re-encodes as %x, %v; want %x", b, err, in)
	}
}
