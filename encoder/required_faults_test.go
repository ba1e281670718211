package encoder_test

import (
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/protobuftest"
	"github.com/protolayout/protolayout/protobuftest/gen/test2pb"
)

// TestRequiredNamedWithoutTheWalk checks that the direct encoders name a
// required field not set themselves, without a step of the walk, with
// the walk's reason, field and path, in every place and under every
// option the walk orders its checks by: several fields missing at
// different depths (the walk names the first in emission order, each
// message's own required fields at their positions; under Canonical and
// Signing it checks a message's required fields as it enters it, before
// anything in it), in a map value (under Deterministic, in key order),
// in a oneof, a group and an extension, and after an extension that the
// Signing profile packs (which the direct encoders leave to the walk when
// no fault comes after it; unknown fields after it are named too). Each message is encoded generated at every API
// level and as a *dynamic.Message; dynamicpb's twin, which the walk
// encodes, gives the error they must match, and outside Canonical
// proto.Marshal must name the same field (but for map values, which it
// checks in map order).
func TestRequiredNamedWithoutTheWalk(t *testing.T) {
	det := encoder.MarshalOptions{Deterministic: true}
	modes := []struct {
		name string
		opts encoder.MarshalOptions
	}{
		{"plain", encoder.MarshalOptions{}},
		{"deterministic", det},
		{"canonical", encoder.MarshalOptions{Canonical: encoder.Canonical}},
		{"signing", encoder.MarshalOptions{Canonical: encoder.Signing}},
	}
	cases := []struct {
		name string
		pkg  string // "" for every test package that has the fields
		msg  string
		set  func(b *builder)
		// ordered is set where the answer depends on the order of map
		// entries, which only Deterministic fixes.
		ordered bool
	}{
		{"several at different depths", "", "TestRequired", func(b *builder) {
			// inner.x (first in emission order) and r5 (its position is
			// after inner's); r2 is set. Canonical names r5.
			b.set("r2", 1)
			b.msg("inner")
			b.list("repeated_inner", 2).at(1).set("x", 1)
		}, false},
		{"several in a container", "protolayout.test2", "TestRequiredContainer", func(b *builder) {
			s := b.msg("single")
			s.set("r5", 5)
			s.msg("inner").set("x", 1)
			s.list("repeated_inner", 2).at(0).set("x", 1) // [1] misses x
			m := b.list("many", 2)
			m.at(0).set("r2", 2)
			m.at(0).set("r5", 5)
			// many[1] misses everything.
		}, false},
		{"deep first, own later", "protolayout.test2", "TestRequiredContainer", func(b *builder) {
			s := b.msg("single")
			s.set("r2", 2)
			s.set("r5", 5)
			s.list("repeated_inner", 3).at(0).set("x", 1) // [1] and [2] miss x
			b.list("many", 1)
		}, false},
		{"a map value", "", "TestRequired", func(b *builder) {
			b.set("r2", 2)
			b.set("r5", 5)
			b.entry("map_inner", protoreflect.ValueOfInt32(3).MapKey())
		}, false},
		{"map values in key order", "protolayout.test2", "TestRequiredContainer", func(b *builder) {
			b.entry("by_key", protoreflect.ValueOfString("b").MapKey()).set("r5", 5)
			v := b.entry("by_key", protoreflect.ValueOfString("a").MapKey())
			v.set("r2", 2)
			v.set("r5", 5)
			v.entry("map_inner", protoreflect.ValueOfInt32(9).MapKey())
			v.entry("map_inner", protoreflect.ValueOfInt32(-4).MapKey())
		}, true},
		{"a oneof member", "protolayout.test2", "TestRequiredContainer", func(b *builder) {
			b.msg("single").set("r2", 2)
			b.msg("oneof_required").set("r5", 5)
		}, false},
		{"a group", "protolayout.test2", "TestRequired", func(b *builder) {
			b.set("r2", 2)
			b.set("r5", 5)
			b.msg("requiredgroup")
			b.msg("oneof_inner")
		}, false},
		{"a delimited message", "protolayout.testeditions", "TestRequired", func(b *builder) {
			b.set("r2", 2)
			b.msg("delimited_inner")
			b.msg("oneof_inner")
		}, false},
		{"an extension before the fields", "protolayout.test2", "TestRequired", func(b *builder) {
			// The extension comes first outside Canonical, inner first in it.
			b.set("r2", 2)
			b.set("r5", 5)
			b.msg("inner")
			b.ext("protolayout.test2.TestRequired.inner_extension")
		}, false},
		{"a repeated extension", "protolayout.test2", "TestRequired", func(b *builder) {
			b.set("r2", 2)
			b.extList("protolayout.test2.TestRequired.repeated_inner_extension", 2).at(0).set("x", 1)
		}, false},
		{"an extension after one Signing packs", "", "TestAllExtensions", func(b *builder) {
			b.extInt32s(b.pkg+".repeated_int32_extension", 1, 2, 3)
			r := b.ext(b.pkg + ".required_message_extension")
			r.set("r2", 2)
			r.msg("inner").set("x", 1)
			r.list("repeated_inner", 1)
		}, false},
		{"unknown fields after an extension Signing packs", "", "TestAllExtensions", func(b *builder) {
			// Outside Signing it encodes: the case is skipped there.
			b.extInt32s(b.pkg+".repeated_int32_extension", 1, 2, 3)
			b.m.SetUnknown(protoreflect.RawFields{0xa8, 0x1f, 0x01}) // field 501, varint 1
		}, false},
	}
	for _, pkg := range []string{"protolayout.test2", "protolayout.testeditions"} {
		for _, c := range cases {
			if c.pkg != "" && c.pkg != pkg {
				continue
			}
			mt, err := protoregistry.GlobalTypes.FindMessageByName(protoreflect.FullName(pkg + "." + c.msg))
			if err != nil {
				t.Fatal(err)
			}
			g := mt.New()
			c.set(&builder{t: t, pkg: pkg, m: g})
			open := g.Interface()
			for _, mode := range modes {
				if c.ordered && !mode.opts.Deterministic && mode.opts.Canonical == 0 {
					continue
				}
				name := pkg + "/" + c.name + "/" + mode.name
				ref := encoder.NewEncoder(mode.opts)
				_, want := ref.Marshal(protobuftest.DynamicTwin(open))
				if want == nil && strings.HasPrefix(c.name, "unknown fields") && mode.opts.Canonical != encoder.Signing {
					continue
				}
				if !errors.Is(want, encoder.ErrRequiredNotSet) && !errors.Is(want, encoder.ErrMapField) && !errors.Is(want, encoder.ErrUnknownField) {
					t.Fatalf("%s: the walk gives %v, want a required field not set", name, want)
				}
				if encoder.WalkStats(ref).Steps == 0 {
					t.Fatalf("%s: dynamicpb was not walked", name)
				}
				if mode.opts.Canonical == 0 && !c.ordered {
					// proto.Marshal names the same field (with the bytes;
					// it checks map values in map order).
					_, perr := proto.MarshalOptions{Deterministic: mode.opts.Deterministic}.Marshal(open)
					var e *encoder.Error
					if !errors.As(want, &e) || perr == nil || !strings.Contains(perr.Error(), "required field "+string(e.Field)+" not set") {
						t.Errorf("%s: proto.Marshal: %v; the walk: %v", name, perr, want)
					}
				}
				forms := []proto.Message{open,
					protobuftest.VariantTwin(open, protobuftest.APIHybrid),
					protobuftest.VariantTwin(open, protobuftest.APIOpaque),
					protobuftest.DynamicMessageTwin(open),
				}
				for _, m := range forms {
					enc := encoder.NewEncoder(mode.opts)
					got, err := enc.Marshal(m)
					if got != nil || !protobuftest.SameFault(open, want, m, err) {
						t.Errorf("%s: %T: %v (%d bytes); the walk: %v", name, m, err, len(got), want)
					}
					if steps := encoder.WalkStats(enc).Steps; steps != 0 {
						t.Errorf("%s: %T: %v named by the walk (%d steps)", name, m, err, steps)
					}
				}
			}
		}
	}
}

// TestRequiredInAbsentMessages checks that the engine names the first
// required field of an absent generated message (a typed nil at the top,
// a nil list element, oneof value or map value, which protoreflect reads
// as empty messages) without the walk, in every mode, as the walk does.
func TestRequiredInAbsentMessages(t *testing.T) {
	r := func() *test2pb.TestRequired { return &test2pb.TestRequired{R2: proto.Int32(2), R5: proto.Int32(5)} }
	cases := []struct {
		m          proto.Message
		field, at  string
		signingMap bool // a map: refused first under Signing
	}{
		{(*test2pb.TestRequired)(nil), "TestRequired.r2", "r2", false},
		{&test2pb.TestRequiredContainer{Single: r(), Many: []*test2pb.TestRequired{r(), nil}}, "TestRequired.r2", "many[1].r2", false},
		{&test2pb.TestRequiredContainer{Choice: &test2pb.TestRequiredContainer_OneofRequired{}}, "TestRequired.r2", "oneof_required.r2", false},
		{&test2pb.TestRequiredContainer{ByKey: map[string]*test2pb.TestRequired{"a": nil}}, "TestRequired.r2", `by_key["a"].r2`, true},
		{&test2pb.TestRequired{R2: proto.Int32(2), R5: proto.Int32(5), RepeatedInner: []*test2pb.TestRequired_Inner{{X: proto.Int32(1)}, nil}}, "TestRequired.Inner.x", "repeated_inner[1].x", false},
	}
	for _, o := range []encoder.MarshalOptions{{}, {Deterministic: true}, {Canonical: encoder.Canonical}, {Canonical: encoder.Signing}} {
		for _, c := range cases {
			enc := encoder.NewEncoder(o)
			got, err := enc.Marshal(c.m)
			if c.signingMap && o.Canonical == encoder.Signing {
				if !errors.Is(err, encoder.ErrMapField) {
					t.Errorf("%v: %T: %v, want ErrMapField", o.Canonical, c.m, err)
				}
				continue
			}
			var e *encoder.Error
			if got != nil || !errors.As(err, &e) || !errors.Is(err, encoder.ErrRequiredNotSet) ||
				e.Field != protoreflect.FullName("protolayout.test2."+c.field) || e.Path != c.at {
				t.Errorf("%v: %T: %v (%d bytes), want %s not set at %s", o.Canonical, c.m, err, len(got), c.field, c.at)
			}
			if steps := encoder.WalkStats(enc).Steps; steps != 0 {
				t.Errorf("%v: %T: %v named by the walk (%d steps)", o.Canonical, c.m, err, steps)
			}
		}
	}
}

// builder sets fields of a message by name, through protoreflect.
type builder struct {
	t   *testing.T
	pkg string
	m   protoreflect.Message
}

// fd returns the field of b's message called name.
func (b *builder) fd(name protoreflect.Name) protoreflect.FieldDescriptor {
	fd := b.m.Descriptor().Fields().ByName(name)
	if fd == nil {
		b.t.Fatalf("%v has no field %s", b.m.Descriptor().FullName(), name)
	}
	return fd
}

// set sets the int32 field name.
func (b *builder) set(name protoreflect.Name, v int32) {
	b.m.Set(b.fd(name), protoreflect.ValueOfInt32(v))
}

// msg sets the message field name to an empty message and returns it.
func (b *builder) msg(name protoreflect.Name) *builder {
	return &builder{b.t, b.pkg, b.m.Mutable(b.fd(name)).Message()}
}

// entry sets the entry k of the map field name to an empty message and
// returns it.
func (b *builder) entry(name protoreflect.Name, k protoreflect.MapKey) *builder {
	mp := b.m.Mutable(b.fd(name)).Map()
	v := mp.NewValue()
	mp.Set(k, v)
	return &builder{b.t, b.pkg, v.Message()}
}

// list appends n empty messages to the list field name.
func (b *builder) list(name protoreflect.Name, n int) listBuilder {
	l := b.m.Mutable(b.fd(name)).List()
	for range n {
		l.AppendMutable()
	}
	return listBuilder{b, l}
}

// extType returns the extension called name.
func (b *builder) extType(name string) protoreflect.ExtensionType {
	xt, err := protoregistry.GlobalTypes.FindExtensionByName(protoreflect.FullName(name))
	if err != nil {
		b.t.Fatal(err)
	}
	return xt
}

// ext sets the message extension called name to an empty message and
// returns it.
func (b *builder) ext(name string) *builder {
	return &builder{b.t, b.pkg, b.m.Mutable(b.extType(name).TypeDescriptor()).Message()}
}

// extList appends n empty messages to the repeated extension called name.
func (b *builder) extList(name string, n int) listBuilder {
	l := b.m.Mutable(b.extType(name).TypeDescriptor()).List()
	for range n {
		l.AppendMutable()
	}
	return listBuilder{b, l}
}

// extInt32s sets the repeated int32 extension called name to vs.
func (b *builder) extInt32s(name string, vs ...int32) {
	l := b.m.Mutable(b.extType(name).TypeDescriptor()).List()
	for _, v := range vs {
		l.Append(protoreflect.ValueOfInt32(v))
	}
}

// listBuilder is a list of messages being built.
type listBuilder struct {
	b *builder
	l protoreflect.List
}

// at returns the element i.
func (l listBuilder) at(i int) *builder {
	return &builder{l.b.t, l.b.pkg, l.l.Get(i).Message()}
}
