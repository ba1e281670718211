package genstore_test

import (
	"bytes"
	"fmt"
	"math"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/apipb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
	"google.golang.org/protobuf/types/known/sourcecontextpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/typepb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/protolayout/protolayout/internal/genstore"
	"github.com/protolayout/protolayout/protobuftest"
)

// testType is a generated message type under test, with the extension
// types Fill may set on it.
type testType struct {
	mt   protoreflect.MessageType
	exts []protoreflect.ExtensionType
}

// testTypes returns every message type of the test schemas' generated
// code (at every API level: open, hybrid and Opaque), of descriptor.proto
// and of the well-known types, and of extraFiles.
func testTypes(t testing.TB) []testType {
	var out []testType
	for _, tw := range protobuftest.Twins() {
		out = append(out, testType{tw.Gen, tw.GenExts})
	}
	for _, vs := range protobuftest.GeneratedVariants() {
		for _, v := range []protobuftest.Variant{vs.Hybrid, vs.Opaque} {
			out = append(out, testType{v.Type, v.Exts})
		}
	}
	files := []protoreflect.FileDescriptor{
		descriptorpb.File_google_protobuf_descriptor_proto,
		anypb.File_google_protobuf_any_proto,
		apipb.File_google_protobuf_api_proto,
		durationpb.File_google_protobuf_duration_proto,
		emptypb.File_google_protobuf_empty_proto,
		fieldmaskpb.File_google_protobuf_field_mask_proto,
		sourcecontextpb.File_google_protobuf_source_context_proto,
		structpb.File_google_protobuf_struct_proto,
		timestamppb.File_google_protobuf_timestamp_proto,
		typepb.File_google_protobuf_type_proto,
		wrapperspb.File_google_protobuf_wrappers_proto,
	}
	files = append(files, extraFiles...)
	seen := map[protoreflect.FullName]bool{}
	for _, tt := range out {
		seen[tt.mt.Descriptor().FullName()] = true
	}
	var walk func(protoreflect.MessageDescriptors)
	walk = func(mds protoreflect.MessageDescriptors) {
		for i := range mds.Len() {
			md := mds.Get(i)
			walk(md.Messages())
			if md.IsMapEntry() || seen[md.FullName()] {
				continue
			}
			seen[md.FullName()] = true
			mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName())
			if err != nil {
				t.Fatalf("%s: %v", md.FullName(), err)
			}
			out = append(out, testType{mt: mt})
		}
	}
	for _, fd := range files {
		walk(fd.Messages())
	}
	return out
}

// mustOf returns the storage map of mt, failing the test if it is refused.
func mustOf(t testing.TB, mt protoreflect.MessageType) *genstore.Storage {
	t.Helper()
	s, err := genstore.Of(mt)
	if err != nil {
		t.Fatalf("Of(%s): %v", mt.Descriptor().FullName(), err)
	}
	return s
}

// compare checks that every field of m read through s, and of every
// message set in it read through the fields' child maps, equals what
// protoreflect's Get and Has report.
func compare(t testing.TB, s *genstore.Storage, m proto.Message) {
	t.Helper()
	p, ok := s.PointerOf(m)
	if !ok {
		t.Fatalf("PointerOf(%T) refused a message of the map's type %v", m, s.GoType)
	}
	c := comparer{t: t}
	c.message(s, p, m.ProtoReflect(), string(s.Layout.FullName))
}

type comparer struct {
	t testing.TB
}

func (c *comparer) errorf(path, format string, args ...any) {
	c.t.Helper()
	c.t.Errorf("%s: %s", path, fmt.Sprintf(format, args...))
}

func (c *comparer) message(s *genstore.Storage, p genstore.Pointer, m protoreflect.Message, path string) {
	c.t.Helper()
	if got := s.Message(p); got != m.Interface() {
		c.errorf(path, "Message(p) is %p, want %p", got, m.Interface())
	}
	if got, want := s.Unknown(p), m.GetUnknown(); !bytes.Equal(got, want) || (got == nil) != (want == nil) {
		c.errorf(path, "unknown fields %x, want %x", got, want)
	}
	exts := 0
	m.Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
		if fd.IsExtension() {
			exts++
		}
		return true
	})
	if n := s.ExtensionsLen(p); n < exts || (exts > 0 && s.ExtensionsOffset < 0) {
		c.errorf(path, "ExtensionsLen %d, but %d extensions are set", n, exts)
	}
	c.extensions(s, p, m, path)
	fds := m.Descriptor().Fields()
	for pos := range s.Fields {
		f := &s.Fields[pos]
		fd := fds.Get(f.Layout.Index)
		fpath := path + "." + string(fd.Name())
		got, set := s.Get(p, pos)
		want, has := m.Get(fd), m.Has(fd)
		if set != has {
			c.errorf(fpath, "set = %v, Has = %v", set, has)
			continue
		}
		if f.OneofRecord() != nil {
			w, member := f.Member(p)
			if member != has {
				c.errorf(fpath, "Member reports %v, Has %v", member, has)
			}
			if which, _ := f.OneofRecord().Which(p); member != (which == pos) {
				c.errorf(fpath, "Which gives position %d, Member %v", which, member)
			}
			if member && w.IsNil() {
				c.errorf(fpath, "Member gave a nil wrapper")
			}
		}
		if !has && (fd.IsList() || fd.IsMap() || fd.Message() != nil) {
			continue // Get's empty views: nothing to compare
		}
		switch {
		case fd.IsMap():
			c.mapValue(f, got.Map(), want.Map(), fpath)
		case fd.IsList():
			c.list(f, fd, got.List(), want.List(), fpath)
		default:
			c.value(f, fd, got, want, fpath)
		}
	}
}

// extensions checks that the set entries of s.Extensions (a type, and a
// value that is not an empty list) are the extensions Range reports, with
// their types and values.
func (c *comparer) extensions(s *genstore.Storage, p genstore.Pointer, m protoreflect.Message, path string) {
	c.t.Helper()
	xs := s.Extensions(p)
	set := 0
	for num, x := range xs {
		if !x.IsSet() {
			c.errorf(path, "extension %d: an entry without a type", num)
			continue
		}
		if v := x.Value(); !x.Type().TypeDescriptor().IsList() || v.List().Len() > 0 {
			set++
		}
	}
	want := 0
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if !fd.IsExtension() {
			return true
		}
		want++
		xpath := path + ".(" + string(fd.FullName()) + ")"
		x, ok := xs[int32(fd.Number())]
		if !ok {
			c.errorf(xpath, "not in Extensions")
			return true
		}
		if x.Type().TypeDescriptor() != fd {
			c.errorf(xpath, "of type %v, want %v", x.Type().TypeDescriptor().FullName(), fd.FullName())
		}
		got := x.Value()
		switch {
		case fd.IsList():
			if got.List().Len() != v.List().Len() {
				c.errorf(xpath, "%d elements, want %d", got.List().Len(), v.List().Len())
			}
		case fd.Message() != nil:
			if got.Message().Interface() != v.Message().Interface() {
				c.errorf(xpath, "another message")
			}
		case !equalScalar(got, v):
			c.errorf(xpath, "%v, want %v", got, v)
		}
		return true
	})
	if set != want {
		c.errorf(path, "Extensions holds %d set extensions, Range reports %d", set, want)
	}
}

func (c *comparer) list(f *genstore.Field, fd protoreflect.FieldDescriptor, got, want protoreflect.List, path string) {
	c.t.Helper()
	if got.Len() != want.Len() {
		c.errorf(path, "list length %d, want %d", got.Len(), want.Len())
		return
	}
	for i := range want.Len() {
		c.value(f, fd, got.Get(i), want.Get(i), fmt.Sprintf("%s[%d]", path, i))
	}
	if !protoreflect.ValueOfList(got).Equal(protoreflect.ValueOfList(want)) {
		c.errorf(path, "Value.Equal reports the lists differ")
	}
}

func (c *comparer) mapValue(f *genstore.Field, got, want protoreflect.Map, path string) {
	c.t.Helper()
	if got.Len() != want.Len() {
		c.errorf(path, "map length %d, want %d", got.Len(), want.Len())
		return
	}
	vfd := f.Layout.MapValue
	want.Range(func(k protoreflect.MapKey, wv protoreflect.Value) bool {
		kpath := fmt.Sprintf("%s[%v]", path, k.Interface())
		if !got.Has(k) {
			c.errorf(kpath, "key missing")
			return true
		}
		gv := got.Get(k)
		if vfd.IsMessage() {
			c.sameMessage(f, gv.Message(), wv.Message(), kpath)
		} else if !equalScalar(gv, wv) {
			c.errorf(kpath, "value %v, want %v", gv, wv)
		}
		return true
	})
	n := 0
	got.Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
		n++
		if !want.Has(k) {
			c.errorf(path, "extra key %v", k.Interface())
		}
		return true
	})
	if n != want.Len() {
		c.errorf(path, "Range gave %d entries, want %d", n, want.Len())
	}
	if !protoreflect.ValueOfMap(got).Equal(protoreflect.ValueOfMap(want)) {
		c.errorf(path, "Value.Equal reports the maps differ")
	}
}

func (c *comparer) value(f *genstore.Field, fd protoreflect.FieldDescriptor, got, want protoreflect.Value, path string) {
	c.t.Helper()
	if fd.Message() != nil {
		c.sameMessage(f, got.Message(), want.Message(), path)
		return
	}
	if !equalScalar(got, want) {
		c.errorf(path, "value %v (%T), want %v (%T)", got, got.Interface(), want, want.Interface())
	}
}

// sameMessage checks that a message read through the map is the very
// message protoreflect reports, and compares its fields through the
// field's child map.
func (c *comparer) sameMessage(f *genstore.Field, got, want protoreflect.Message, path string) {
	c.t.Helper()
	if got.Interface() != want.Interface() {
		c.errorf(path, "message %p, want %p", got.Interface(), want.Interface())
		return
	}
	if !want.IsValid() {
		return
	}
	child, err := f.Child()
	if err != nil {
		c.errorf(path, "Child: %v", err)
		return
	}
	q, ok := child.PointerOf(want.Interface())
	if !ok {
		c.errorf(path, "the child map's PointerOf refused %T", want.Interface())
		return
	}
	c.message(child, q, want, path)
}

// equalScalar compares two scalar values exactly: floats by their bits,
// enums by number, bytes by content.
func equalScalar(a, b protoreflect.Value) bool {
	switch x := a.Interface().(type) {
	case float32:
		y, ok := b.Interface().(float32)
		return ok && math.Float32bits(x) == math.Float32bits(y)
	case float64:
		y, ok := b.Interface().(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case []byte:
		y, ok := b.Interface().([]byte)
		return ok && bytes.Equal(x, y)
	}
	return a.Interface() == b.Interface()
}
