package layout_test

import (
	"bytes"
	"encoding/binary"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/layout"
	"github.com/protolayout/protolayout/internal/wire"
	"github.com/protolayout/protolayout/protobuftest"
)

// TestFieldProgram checks the field program compiled into every field of
// every test message against the field's descriptor: its op and element
// op, key order, presence kind and tag word.
func TestFieldProgram(t *testing.T) {
	for _, tw := range protobuftest.Twins() {
		md := tw.Dyn.Descriptor()
		l := layout.Of(md)
		for i := range l.Fields {
			f := &l.Fields[i]
			fd := md.Fields().Get(f.Index)
			var op, elem wire.Op
			var presence layout.Presence
			order := wire.OrderUnsigned
			switch {
			case fd.IsMap():
				op, elem, presence = wire.OpMap, wire.ValueOp(fd.MapValue().Kind()), layout.PresenceNonEmpty
				order = wire.KeyOrderOf(fd.MapKey().Kind())
			case fd.IsList() && fd.IsPacked():
				op, elem, presence = wire.OpPacked, wire.ValueOp(fd.Kind()), layout.PresenceNonEmpty
			case fd.IsList():
				op, elem, presence = wire.OpList, wire.ValueOp(fd.Kind()), layout.PresenceNonEmpty
			default:
				op = wire.ValueOp(fd.Kind())
				elem = op
				switch od := fd.ContainingOneof(); {
				case fd.Message() != nil:
					presence = layout.PresenceMessage
				case od != nil && !od.IsSynthetic():
					presence = layout.PresenceOneof
				case fd.HasPresence():
					presence = layout.PresenceFlag
				default:
					presence = layout.PresenceImplicit
				}
			}
			if f.Op != op || f.Elem != elem || f.KeyOrder != order || f.Presence != presence {
				t.Errorf("%s: op %d elem %d order %d presence %d, want %d %d %d %d",
					fd.FullName(), f.Op, f.Elem, f.KeyOrder, f.Presence, op, elem, order, presence)
			}
			var word [8]byte
			binary.LittleEndian.PutUint64(word[:], f.TagWord)
			if !bytes.Equal(word[:len(f.Tag)], f.Tag) || f.TagWord>>(8*len(f.Tag)) != 0 {
				t.Errorf("%s: tag word %#x, tag % x", fd.FullName(), f.TagWord, f.Tag)
			}
		}
	}
}

// TestIsSetAgreesWithHas holds the presence rule (Field.IsSet over the
// program's presence kind) to protoreflect's Has on random messages of
// every test type, generated and dynamic: on every value of a field
// without a presence flag, on the set values of the others.
func TestIsSetAgreesWithHas(t *testing.T) {
	checked := map[bool]int{}
	for _, tw := range protobuftest.Twins() {
		for seed := range uint64(20) {
			for _, mt := range []protoreflect.MessageType{tw.Gen, tw.Dyn} {
				m := mt.New()
				protobuftest.Fill(m, seed, protobuftest.RandOptions{MaxDepth: 1})
				// Zero values of implicit fields, set through Set, count
				// as unset; set them on every other seed.
				if seed%2 == 1 {
					fds := m.Descriptor().Fields()
					for i := range fds.Len() {
						fd := fds.Get(i)
						if !fd.HasPresence() && !fd.IsList() && !fd.IsMap() {
							m.Set(fd, fd.Default())
						}
					}
				}
				l := layout.Of(m.Descriptor())
				for i := range l.Fields {
					f := &l.Fields[i]
					fd := m.Descriptor().Fields().Get(f.Index)
					// For a field whose storage flags its presence,
					// IsSet is asked of set values only (Range's).
					has := m.Has(fd)
					if !has && f.Presence != layout.PresenceImplicit && f.Presence != layout.PresenceNonEmpty {
						continue
					}
					if got := f.IsSet(m.Get(fd)); got != has {
						t.Errorf("%s (seed %d): IsSet %v, Has %v", fd.FullName(), seed, got, has)
					}
					checked[has]++
				}
			}
		}
	}
	if checked[true] < 1000 || checked[false] < 1000 {
		t.Errorf("too few outcomes of each kind: %v", checked)
	}
}

// TestRec holds each field's compact record (Field.Rec) to the field's
// program, on every field of every test message: the direct encoders
// read nothing else of it.
func TestRec(t *testing.T) {
	for _, tw := range protobuftest.Twins() {
		l := layout.Of(tw.Dyn.Descriptor())
		for i := range l.Fields {
			f := &l.Fields[i]
			r, m := f.Rec()
			utf8 := f.ValidateUTF8
			if f.Map {
				utf8 = f.MapValue.ValidateUTF8
			}
			if r.Op != f.Op || r.Elem != f.Elem || r.UTF8 != utf8 || !bytes.Equal(r.Key(), f.Tag) {
				t.Errorf("%s: record %+v, field op %d elem %d utf8 %v tag % x", f.FullName, r, f.Op, f.Elem, utf8, f.Tag)
			}
			var want *layout.RecMore
			switch {
			case f.Elem == wire.OpGroup:
				want = &layout.RecMore{EndTag: f.EndTag}
			case f.Op == wire.OpMap:
				want = &layout.RecMore{Key: f.MapKey.Op, KeyOrder: f.KeyOrder, KeyUTF8: f.MapKey.ValidateUTF8,
					KeyTag: f.MapKey.Tag[0], ValueTag: f.MapValue.Tag[0]}
			case f.Op == wire.OpPacked:
				want = &layout.RecMore{PackedTag: f.PackedTag}
			}
			switch {
			case (m == nil) != (want == nil):
				t.Errorf("%s: more %+v, want %+v", f.FullName, m, want)
			case m != nil && (m.Key != want.Key || m.KeyOrder != want.KeyOrder || m.KeyUTF8 != want.KeyUTF8 ||
				m.KeyTag != want.KeyTag || m.ValueTag != want.ValueTag ||
				!bytes.Equal(m.EndTag, want.EndTag) || !bytes.Equal(m.PackedTag, want.PackedTag)):
				t.Errorf("%s: more %+v, want %+v", f.FullName, m, want)
			}
		}
	}
}

// TestNumberOrder checks every test message's canonical order of fields:
// NumberOrder holds each position once, by ascending field number, and
// is the identity exactly when InNumberOrder is set; OneofOrder, whose
// fields and oneofs are declared out of number order, is not.
func TestNumberOrder(t *testing.T) {
	reordered := map[protoreflect.FullName]bool{}
	for _, tw := range protobuftest.Twins() {
		l := layout.Of(tw.Dyn.Descriptor())
		if len(l.NumberOrder) != len(l.Fields) {
			t.Fatalf("%s: %d positions in NumberOrder, %d fields", tw.Name, len(l.NumberOrder), len(l.Fields))
		}
		seen := make([]bool, len(l.Fields))
		identity := true
		for i, pos := range l.NumberOrder {
			if seen[pos] {
				t.Fatalf("%s: position %d twice in NumberOrder", tw.Name, pos)
			}
			seen[pos] = true
			if i > 0 && l.Fields[pos].Number <= l.Fields[l.NumberOrder[i-1]].Number {
				t.Fatalf("%s: NumberOrder not ascending at %d", tw.Name, i)
			}
			identity = identity && int(pos) == i
		}
		if identity != l.InNumberOrder {
			t.Errorf("%s: InNumberOrder %v, NumberOrder the identity: %v", tw.Name, l.InNumberOrder, identity)
		}
		if !identity {
			reordered[tw.Name] = true
		}
	}
	if !reordered["protolayout.test2.OneofOrder"] {
		t.Error("OneofOrder in number order")
	}
}
