package dynamic_test

import (
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/dynamic"
	"github.com/protolayout/protolayout/protobuftest"
)

// panics reports whether f panics.
func panics(f func()) (panicked bool) {
	defer func() { panicked = recover() != nil }()
	f()
	return false
}

// message returns the descriptor named name in files.
func message(t *testing.T, files interface {
	FindDescriptorByName(protoreflect.FullName) (protoreflect.Descriptor, error)
}, name protoreflect.FullName) protoreflect.MessageDescriptor {
	t.Helper()
	d, err := files.FindDescriptorByName(name)
	if err != nil {
		t.Fatal(err)
	}
	return d.(protoreflect.MessageDescriptor)
}

// TestPanics checks that a Message panics where protoreflect's contract
// says it must: a field descriptor of another message or of another load
// of the schema, a value of the wrong type, a mutation of a read-only
// value, a mutable reference to a scalar.
func TestPanics(t *testing.T) {
	files := protobuftest.DynamicFiles()
	md := message(t, files, "protolayout.test2.TestAllTypes")
	other := message(t, files, "protolayout.test2.ForeignMessage")
	reloaded, err := protobuftest.LoadFiles()
	if err != nil {
		t.Fatal(err)
	}
	mdAgain := message(t, reloaded, "protolayout.test2.TestAllTypes")
	fields := md.Fields()
	i32 := fields.ByName("optional_int32")
	str := fields.ByName("optional_string")
	flt := fields.ByName("optional_float")
	nested := fields.ByName("optional_nested_message")
	rep := fields.ByName("repeated_int32")
	repStr := fields.ByName("repeated_string")
	mapf := fields.ByName("map_int32_int32")
	ext := message(t, files, "protolayout.test2.TestAllExtensions")
	xd, err := files.FindDescriptorByName("protolayout.test2.optional_int32_extension")
	if err != nil {
		t.Fatal(err)
	}
	xt := dynamic.NewExtensionType(xd.(protoreflect.ExtensionDescriptor))

	m := dynamic.NewMessage(md)
	foreign := []protoreflect.FieldDescriptor{
		other.Fields().Get(0),                     // a field of another message
		mdAgain.Fields().ByName("optional_int32"), // the same field of another load
		xt.TypeDescriptor(),                       // an extension of another message
		xd.(protoreflect.FieldDescriptor),         // an extension descriptor without its type
	}
	for _, fd := range foreign {
		for name, f := range map[string]func(){
			"Has":      func() { m.Has(fd) },
			"Get":      func() { m.Get(fd) },
			"Set":      func() { m.Set(fd, protoreflect.ValueOfInt32(1)) },
			"Clear":    func() { m.Clear(fd) },
			"Mutable":  func() { m.Mutable(fd) },
			"NewField": func() { m.NewField(fd) },
		} {
			if !panics(f) {
				t.Errorf("%s(%v) does not panic", name, fd.FullName())
			}
		}
	}
	if !panics(func() { m.WhichOneof(mdAgain.Oneofs().Get(0)) }) {
		t.Error("WhichOneof of another load's oneof does not panic")
	}
	if !panics(func() { dynamic.NewMessage(ext).Has(xd.(protoreflect.FieldDescriptor)) }) {
		t.Error("Has of an extension descriptor that is not an ExtensionTypeDescriptor does not panic")
	}

	wrong := []struct {
		fd protoreflect.FieldDescriptor
		v  protoreflect.Value
	}{
		{i32, protoreflect.ValueOfString("1")},
		{i32, protoreflect.ValueOfInt64(1)},
		{i32, protoreflect.ValueOfUint32(1)},
		{i32, protoreflect.Value{}},
		{str, protoreflect.ValueOfInt32(1)},
		{str, protoreflect.ValueOfBytes([]byte("x"))},
		{flt, protoreflect.ValueOfFloat64(1)},
		{nested, protoreflect.ValueOfMessage(dynamicpb.NewMessage(nested.Message()))},
		{nested, protoreflect.ValueOfMessage(dynamic.NewMessage(other))},
		{nested, protoreflect.ValueOfMessage(dynamic.NewMessageType(nested.Message()).Zero())},
		{nested, protoreflect.ValueOfInt32(1)},
		{rep, protoreflect.ValueOfInt32(1)},
		{rep, m.NewField(repStr)},
		{rep, m.Get(rep)}, // read-only empty list
		{rep, dynamicpb.NewMessage(md).NewField(rep)},
		{mapf, m.Get(mapf)},
		{mapf, m.NewField(fields.ByName("map_int64_int64"))},
	}
	for _, w := range wrong {
		if !panics(func() { m.Set(w.fd, w.v) }) {
			t.Errorf("Set(%v, %v) does not panic", w.fd.FullName(), w.v)
		}
	}
	l := m.Mutable(rep).List()
	if !panics(func() { l.Append(protoreflect.ValueOfInt64(1)) }) {
		t.Error("Append of an int64 to a list of int32 does not panic")
	}
	mp := m.Mutable(mapf).Map()
	if !panics(func() { mp.Set(protoreflect.ValueOfInt64(1).MapKey(), protoreflect.ValueOfInt32(1)) }) {
		t.Error("Set of an int64 key in a map of int32 keys does not panic")
	}
	if !panics(func() { mp.Set(protoreflect.ValueOfInt32(1).MapKey(), protoreflect.ValueOfString("1")) }) {
		t.Error("Set of a string value in a map of int32 values does not panic")
	}

	for _, fd := range []protoreflect.FieldDescriptor{i32, str, fields.ByName("oneof_uint32")} {
		if !panics(func() { m.Mutable(fd) }) {
			t.Errorf("Mutable(%v), a scalar field, does not panic", fd.FullName())
		}
	}
	xm := dynamic.NewMessage(ext)
	if !panics(func() { xm.Mutable(xt.TypeDescriptor()) }) {
		t.Error("Mutable of a scalar extension does not panic")
	}

	// Read-only values.
	fresh := dynamic.NewMessage(md)
	ro := []struct {
		name string
		f    func()
	}{
		{"Zero().Set", func() { dynamic.NewMessageType(md).Zero().Set(i32, protoreflect.ValueOfInt32(1)) }},
		{"Zero().Mutable", func() { dynamic.NewMessageType(md).Zero().Mutable(nested) }},
		{"Zero().SetUnknown", func() { dynamic.NewMessageType(md).Zero().SetUnknown([]byte{8, 1}) }},
		{"Get(message).Set", func() {
			fresh.Get(nested).Message().Set(nested.Message().Fields().Get(0), protoreflect.ValueOfInt32(1))
		}},
		{"Get(list).Append", func() { fresh.Get(rep).List().Append(protoreflect.ValueOfInt32(1)) }},
		{"Get(list).AppendMutable", func() { fresh.Get(fields.ByName("repeated_nested_message")).List().AppendMutable() }},
		{"Get(list).Truncate", func() { fresh.Get(rep).List().Truncate(0) }},
		{"Get(map).Set", func() {
			fresh.Get(mapf).Map().Set(protoreflect.ValueOfInt32(1).MapKey(), protoreflect.ValueOfInt32(1))
		}},
		{"Get(map).Mutable", func() {
			fresh.Get(fields.ByName("map_string_nested_message")).Map().Mutable(protoreflect.ValueOfString("k").MapKey())
		}},
	}
	for _, r := range ro {
		if !panics(r.f) {
			t.Errorf("%s on a read-only value does not panic", r.name)
		}
	}
	if fresh.Has(nested) || fresh.Get(rep).List().Len() != 0 || fresh.Get(mapf).Map().Len() != 0 {
		t.Error("a read-only value's failed mutation changed its message")
	}
}
