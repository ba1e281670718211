package protobuftest

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// TestGeneratedVariantsCover checks that every twin of the copied schemas
// has a variant set, and that the three types of each set describe one
// message, at the levels they claim.
func TestGeneratedVariantsCover(t *testing.T) {
	sets := GeneratedVariants()
	var want []protoreflect.FullName
	for _, tw := range Twins() {
		if !strings.HasPrefix(string(tw.Name), "protolayout.customoptions.") && tw.Name != "google.protobuf.MessageOptions" {
			want = append(want, tw.Name)
		}
	}
	var got []protoreflect.FullName
	for _, s := range sets {
		got = append(got, s.Name)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("GeneratedVariants names:\n%v\nwant the twins' names but customoptions':\n%v", got, want)
	}
	for _, l := range apiLevels[1:] {
		for _, fd := range variantFiles(l) {
			err := rangeDecls(fd.Messages(), fd.Extensions(),
				func(md protoreflect.MessageDescriptor) error {
					if !slices.Contains(got, openName(md.FullName())) {
						t.Errorf("%s has no variant set", md.FullName())
					}
					return nil
				},
				func(protoreflect.ExtensionDescriptor) error { return nil })
			if err != nil {
				t.Fatal(err)
			}
		}
	}

	for _, s := range sets {
		open := s.Open.Type.Descriptor()
		if s.Open.Type != TwinByName(s.Name).Gen {
			t.Errorf("%s: Open is not the twin's generated type", s.Name)
		}
		for i, v := range s.Levels() {
			if v.Level != apiLevels[i] || s.At(v.Level).Type != v.Type {
				t.Errorf("%s: Levels()[%d] is at level %v", s.Name, i, v.Level)
			}
			md := v.Type.Descriptor()
			if md.FullName() != VariantName(s.Name, v.Level) {
				t.Errorf("%s: the %v type is %s", s.Name, v.Level, md.FullName())
			}
			if g, w := unprefixed(messageSummary(md)), messageSummary(open); g != w {
				t.Errorf("%s: the %v descriptor differs from the open one:\n%s\nopen:\n%s", s.Name, v.Level, g, w)
			}
			if len(v.Exts) != len(s.Open.Exts) {
				t.Errorf("%s: %d %v extensions, %d open ones", s.Name, len(v.Exts), v.Level, len(s.Open.Exts))
				continue
			}
			for j, xt := range v.Exts {
				if g, w := unprefixed(fieldSummary(xt.TypeDescriptor())), fieldSummary(s.Open.Exts[j].TypeDescriptor()); g != w {
					t.Errorf("%s: %v extension differs:\n%s\nopen: %s", s.Name, v.Level, g, w)
				}
				if xt.TypeDescriptor().ContainingMessage() != md {
					t.Errorf("%s: %v extension %s extends another descriptor", s.Name, v.Level, xt.TypeDescriptor().FullName())
				}
			}
			checkAPIShape(t, s.Name, v)
		}
	}
}

// unprefixed strips the hybrid and opaque prefixes from the full names in
// a summary.
func unprefixed(summary string) string {
	for _, l := range apiLevels[1:] {
		summary = strings.ReplaceAll(summary, l.prefix()+"protolayout.", "protolayout.")
	}
	return summary
}

// checkAPIShape checks that v's Go type is generated at its API level: the
// state field is tagged with the level (protogen:"open.v1", "hybrid.v1",
// "opaque.v1"), and the type has exported fields without setters (open),
// exported fields and setters (hybrid), or setters only (opaque).
func checkAPIShape(t *testing.T, name protoreflect.FullName, v Variant) {
	t.Helper()
	typ := reflect.TypeOf(v.Type.Zero().Interface())
	state, ok := typ.Elem().FieldByName("state")
	if tag := state.Tag.Get("protogen"); !ok || tag != v.Level.String()+".v1" {
		t.Errorf("%s: %v type %v has the state tag %q", name, v.Level, typ, tag)
	}
	if v.Type.Descriptor().Fields().Len() == 0 {
		return
	}
	exported := false
	for f := range typ.Elem().Fields() {
		exported = exported || f.IsExported() && !strings.HasPrefix(f.Name, "XXX_")
	}
	setters := false
	for m := range typ.Methods() {
		setters = setters || strings.HasPrefix(m.Name, "Set")
	}
	want := map[APILevel][2]bool{APIOpen: {true, false}, APIHybrid: {true, true}, APIOpaque: {false, true}}[v.Level]
	if exported != want[0] || setters != want[1] {
		t.Errorf("%s: %v type %v has exported fields %v, setters %v; want %v, %v", name, v.Level, typ, exported, setters, want[0], want[1])
	}
}

// TestVariantFilesMatch checks that the generated copies of the schemas are
// the open files renamed: with the level's prefix taken off every name,
// path and go_package, each copy's FileDescriptorProto is the original's.
func TestVariantFilesMatch(t *testing.T) {
	open := generatedFiles()
	for _, l := range apiLevels[1:] {
		for _, fd := range variantFiles(l) {
			path := strings.TrimPrefix(fd.Path(), l.String()+"/")
			i := slices.IndexFunc(open, func(o protoreflect.FileDescriptor) bool { return o.Path() == path })
			if path == fd.Path() || i < 0 {
				t.Errorf("%v copy %s: no original at %s", l, fd.Path(), path)
				continue
			}
			got := protodesc.ToFileDescriptorProto(fd)
			unprefixStrings(got.ProtoReflect(), l)
			want := protodesc.ToFileDescriptorProto(open[i])
			if !proto.Equal(got, want) {
				t.Errorf("%v copy %s is not its original renamed", l, fd.Path())
			}
			if reg, err := protoregistry.GlobalFiles.FindFileByPath(fd.Path()); err != nil || reg != fd {
				t.Errorf("%v copy %s is not registered (%v)", l, fd.Path(), err)
			}
		}
	}
}

// unprefixStrings takes the renaming of the copy at level l off every
// string of m, recursively: file paths, packages, type references and
// go_package.
func unprefixStrings(m protoreflect.Message, l APILevel) {
	const gen = "github.com/protolayout/protolayout/protobuftest/gen/"
	fix := func(s string) string {
		switch {
		case strings.HasPrefix(s, l.String()+"/"):
			return strings.TrimPrefix(s, l.String()+"/")
		case strings.HasPrefix(s, "."+l.prefix()):
			return "." + strings.TrimPrefix(s, "."+l.prefix())
		case strings.HasPrefix(s, l.prefix()):
			return strings.TrimPrefix(s, l.prefix())
		case strings.HasPrefix(s, gen+l.String()+"/"):
			return gen + strings.TrimPrefix(s, gen+l.String()+"/")
		}
		return s
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Kind() == protoreflect.StringKind && fd.IsList():
			for i := range v.List().Len() {
				v.List().Set(i, protoreflect.ValueOfString(fix(v.List().Get(i).String())))
			}
		case fd.Kind() == protoreflect.StringKind:
			m.Set(fd, protoreflect.ValueOfString(fix(v.String())))
		case fd.Message() != nil && fd.IsList():
			for i := range v.List().Len() {
				unprefixStrings(v.List().Get(i).Message(), l)
			}
		case fd.Message() != nil && !fd.IsMap():
			unprefixStrings(v.Message(), l)
		}
		return true
	})
}

// variantSeeds is how many random messages of each variant set
// TestVariantsMarshalIdentically builds.
const variantSeeds = 12

// TestVariantsMarshalIdentically fills the three generated forms of every
// message from one seed, and copies the open form into the other two with
// VariantTwin, and checks that proto.Marshal gives the same deterministic
// bytes for all five, that filling and copying agree, and that the bytes
// decode into each form to the same content, extensions and unknown fields
// included.
func TestVariantsMarshalIdentically(t *testing.T) {
	det := proto.MarshalOptions{Deterministic: true, AllowPartial: true}
	for _, s := range GeneratedVariants() {
		for seed := range uint64(variantSeeds) {
			opts := RandOptions{MaxDepth: 3, Unknown: seed%3 == 0}
			var filled []proto.Message
			for _, v := range s.Levels() {
				filled = append(filled, v.Random(seed, opts))
			}
			open := filled[0]
			want, err := det.Marshal(open)
			if err != nil {
				t.Fatalf("%s seed %d: %v", s.Name, seed, err)
			}
			check := func(what string, m proto.Message) {
				t.Helper()
				got, err := det.Marshal(m)
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("%s seed %d: %s (%T) marshals differently from the open form (%v):\n%s",
						s.Name, seed, what, m, err, FirstDiff(got, want, s.Open.Type.Descriptor()))
				}
				if n := proto.Size(m); n != len(want) {
					t.Errorf("%s seed %d: %s: Size %d, want %d", s.Name, seed, what, n, len(want))
				}
			}
			for i, v := range s.Levels() {
				check("the filled "+v.Level.String()+" form", filled[i])
				copied := VariantTwin(open, v.Level)
				check("VariantTwin(open, "+v.Level.String()+")", copied)
				if copied.ProtoReflect().Type() != v.Type {
					t.Fatalf("%s: VariantTwin(open, %v) is a %v", s.Name, v.Level, copied.ProtoReflect().Descriptor().FullName())
				}
				if !proto.Equal(copied, filled[i]) {
					t.Fatalf("%s seed %d: VariantTwin(open, %v) differs from the filled form", s.Name, seed, v.Level)
				}
				if back := VariantTwin(filled[i], APIOpen); !proto.Equal(back, open) {
					t.Fatalf("%s seed %d: VariantTwin(%v form, open) differs from the open form", s.Name, seed, v.Level)
				}
				dec := v.Type.New().Interface()
				if err := (proto.UnmarshalOptions{AllowPartial: true}).Unmarshal(want, dec); err != nil || !proto.Equal(dec, filled[i]) {
					t.Fatalf("%s seed %d: the bytes decode into the %v form to other content (%v)", s.Name, seed, v.Level, err)
				}
			}
		}
	}
}

// TestVariantTwinFromDynamic checks that VariantTwin takes the dynamic
// twins too.
func TestVariantTwinFromDynamic(t *testing.T) {
	det := proto.MarshalOptions{Deterministic: true, AllowPartial: true}
	for _, s := range GeneratedVariants() {
		tw := TwinByName(s.Name)
		g, d := NewPair(tw.Gen, tw.Dyn, tw.GenExts, tw.DynExts, 7, RandOptions{Unknown: true})
		want, err := det.Marshal(g)
		if err != nil {
			t.Fatal(err)
		}
		for _, src := range []proto.Message{d, DynamicMessageTwin(g)} {
			for _, l := range apiLevels {
				if got, err := det.Marshal(VariantTwin(src, l)); err != nil || !bytes.Equal(got, want) {
					t.Fatalf("%s: VariantTwin(%T, %v) marshals differently (%v):\n%s", s.Name, src, l, err, FirstDiff(got, want, tw.Gen.Descriptor()))
				}
			}
		}
	}
}
