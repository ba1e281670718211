package encoder_test

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/dynamic"
	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/internal/wire"
	"github.com/protolayout/protolayout/protobuftest"
	"github.com/protolayout/protolayout/protobuftest/gen/test2pb"
	"github.com/protolayout/protolayout/protobuftest/gen/test3pb"
)

// sizeForms returns the forms of g that the direct encoders encode: g,
// its hybrid and opaque twins and its *dynamic.Message twin.
func sizeForms(g proto.Message) []proto.Message {
	return []proto.Message{g,
		protobuftest.VariantTwin(g, protobuftest.APIHybrid),
		protobuftest.VariantTwin(g, protobuftest.APIOpaque),
		protobuftest.DynamicMessageTwin(g),
	}
}

// sizeCall is one way to encode: Marshal, MarshalAppend or Size.
type sizeCall struct {
	name string
	run  func(enc *encoder.Encoder, m proto.Message) error
}

var sizeCalls = []sizeCall{
	{"Marshal", func(enc *encoder.Encoder, m proto.Message) error { _, err := enc.Marshal(m); return err }},
	{"MarshalAppend", func(enc *encoder.Encoder, m proto.Message) error {
		_, err := enc.MarshalAppend([]byte("prefix"), m)
		return err
	}},
	{"Size", func(enc *encoder.Encoder, m proto.Message) error { _, err := enc.Size(m); return err }},
}

// sizeAgrees encodes every direct form of g under o, each call of
// sizeCalls (Size only with sized: the walk's Size visits map entries in
// map order, whatever the options), and holds it to the walk's error on
// g's dynamicpb twin; with named, it requires the error named without
// the walk. It returns the walk's error of Marshal.
func sizeAgrees(t *testing.T, g proto.Message, o encoder.MarshalOptions, named, sized bool) error {
	t.Helper()
	walked := protobuftest.DynamicTwin(g)
	var first error
	for _, c := range sizeCalls {
		if c.name == "Size" && !sized {
			continue
		}
		want := c.run(encoder.NewEncoder(o), walked)
		if first == nil {
			first = want
		}
		for _, m := range sizeForms(g) {
			enc := encoder.NewEncoder(o)
			err := c.run(enc, m)
			if !protobuftest.SameFault(walked, want, m, err) {
				t.Fatalf("%+v, %s, %T: %v; the walk: %v", o, c.name, m, err, want)
			}
			// The message named: the root's (the forms of other API
			// levels are of types of other names).
			var ew, eg *encoder.Error
			if errors.As(want, &ew) && errors.As(err, &eg) && eg.Message != m.ProtoReflect().Descriptor().FullName() {
				t.Fatalf("%+v, %s, %T: %v names message %s; the walk names %s", o, c.name, m, err, eg.Message, ew.Message)
			}
			if steps := encoder.WalkStats(enc).Steps; named && errors.Is(err, encoder.ErrSizeExceeded) && steps != 0 {
				t.Fatalf("%+v, %s, %T: %v named by the walk (%d steps)", o, c.name, m, err, steps)
			}
		}
	}
	return first
}

// TestSizeLimitNamedWithoutTheWalk holds both direct encoders (generated
// at every API level, and package dynamic's) to the walk's error where a
// message passes the size limit, at every limit from 1 to its size: the
// same field, path and limit, by Marshal, MarshalAppend and Size. They
// must name it without the walk, outside the canonical profiles, where no
// field of the message passes the limit by itself (just below the whole
// message, and so inside a long string, a packed list, a map, an
// extension) and below a nested message, or a map's message value,
// reached within the limit. Where the walk's error depends on the order
// it finds a map's entries in (its Size, and Marshal without
// Deterministic), only limits at which it does not are tried.
func TestSizeLimitNamedWithoutTheWalk(t *testing.T) {
	long := strings.Repeat("x", 300)
	nested := &test3pb.TestAllTypes{
		SingularInt32:         7,
		SingularString:        "head",
		SingularNestedMessage: &test3pb.TestAllTypes_NestedMessage{A: 1, Corecursive: &test3pb.TestAllTypes{SingularBytes: []byte(long), RepeatedInt32: []int32{1, 2, 3}}},
		RepeatedInt32:         []int32{1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000, 10000},
		RepeatedString:        []string{"a", "b", long},
		MapStringString:       map[string]string{"k": "v", "l": "w"},
		OneofField:            &test3pb.TestAllTypes_OneofString{OneofString: long},
	}
	ext := &test2pb.TestAllExtensions{}
	proto.SetExtension(ext, test2pb.E_OptionalInt32Extension, int32(5))
	proto.SetExtension(ext, test2pb.E_OptionalStringExtension, long)
	proto.SetExtension(ext, test2pb.E_PackedInt32Extension, []int32{100000, 200000, 300000, 400000})
	proto.SetExtension(ext, test2pb.E_OptionalNestedMessageExtension, &test2pb.TestAllTypes_NestedMessage{A: proto.Int32(3)})
	big := &test3pb.TestAllTypes_NestedMessage{A: 5, Corecursive: &test3pb.TestAllTypes{SingularString: long[:100], RepeatedInt32: []int32{1, 2, 3}}}
	cases := []struct {
		name string
		m    proto.Message
		// below is a limit below the whole message's largest field
		// that the direct encoders name too (0 for none), and at which
		// the walk's error does not depend on its map order.
		below int
	}{
		{"nested", nested, proto.Size(nested.SingularNestedMessage) - 1},
		{"extensions", ext, 0},
		{"map value", &test3pb.TestAllTypes{MapStringNestedMessage: map[string]*test3pb.TestAllTypes_NestedMessage{"a": {A: 1}, "b": big, "c": {A: 3}}}, proto.Size(big) - 1},
		{"map", &test3pb.TestAllTypes{SingularInt64: 9, MapStringString: map[string]string{"a": "1", "b": "2", "c": "3", "d": "4"}, SingularString: "tail"}, 0},
		{"packed", &test3pb.TestAllTypes{SingularInt32: 1, RepeatedInt64: []int64{1 << 40, 1 << 41, 1 << 42, 1 << 43, 1 << 44}}, 0},
		{"list of messages", &test3pb.TestAllTypes{RepeatedNestedMessage: []*test3pb.TestAllTypes_NestedMessage{{A: 1}, {A: 2, Corecursive: &test3pb.TestAllTypes{SingularString: long}}, {A: 3}}}, 0},
	}
	profiles := []encoder.MarshalOptions{{}, {Deterministic: true}, {AllowPartial: true}, {Canonical: encoder.Canonical}, {Canonical: encoder.Signing}}
	for _, c := range cases {
		size := proto.Size(c.m)
		floor := largestField(c.m)
		exceeded := 0
		for limit := 1; limit <= size; limit++ {
			for _, o := range profiles {
				if !o.Deterministic && o.Canonical == 0 && limit < floor && limit != c.below {
					continue // the walk's error depends on its map order
				}
				o.MaxSize = limit
				named := o.Canonical == 0 && (limit >= floor || limit == c.below)
				err := sizeAgrees(t, c.m, o, named, limit >= floor || limit == c.below)
				if errors.Is(err, encoder.ErrSizeExceeded) {
					exceeded++
				} else if limit < size && o.Canonical != encoder.Signing {
					t.Fatalf("%s, limit %d of %d: %v; want the size limit", c.name, limit, size, err)
				}
			}
		}
		if exceeded == 0 {
			t.Errorf("%s: no limit was exceeded", c.name)
		}
	}
}

// largestField returns the size of the largest field set in m, key
// included: with a limit at least that, only m's own running sum passes
// the limit.
func largestField(m proto.Message) int {
	largest := 0
	mr := m.ProtoReflect()
	mr.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		one := mr.New()
		one.Set(fd, v)
		largest = max(largest, proto.Size(one.Interface()))
		return true
	})
	return largest
}

// TestSizeLimitAgreesAcrossStorage encodes seeded random messages of every
// test schema under limits around their sizes and holds every direct
// form to the walk's error. Under Deterministic, where the walk's order
// is fixed, at any limit; in map order (the walk's is random) only where
// no field passes the limit by itself, the one case in which the walk's
// error does not depend on the order of a map's entries. The direct
// encoders must name the limit without the walk wherever no field of the
// message passes it by itself, outside the canonical profiles.
func TestSizeLimitAgreesAcrossStorage(t *testing.T) {
	n := apiLevelSeeds()/4 + 1
	named, total := 0, 0
	for _, s := range protobuftest.GeneratedVariants() {
		t.Run(string(s.Name), func(t *testing.T) {
			for seed := range n {
				g := s.Open.Random(seed, protobuftest.RandOptions{MaxDepth: 3})
				size := proto.Size(g)
				if size < 2 {
					continue
				}
				floor := largestField(g)
				r := rand.New(rand.NewPCG(seed, 0x512e))
				limits := []int{size - 1, floor, floor - 1, 1 + r.IntN(size-1)}
				for _, limit := range limits {
					if limit < 1 || limit >= size {
						continue
					}
					any := limit >= floor
					for _, o := range []encoder.MarshalOptions{
						{Deterministic: true}, {Deterministic: true, AllowPartial: true},
						{Canonical: encoder.Canonical}, {Canonical: encoder.Signing},
						{}, {AllowPartial: true},
					} {
						if !o.Deterministic && o.Canonical == 0 && !any {
							continue
						}
						o.MaxSize = limit
						err := sizeAgrees(t, g, o, any && o.Canonical == 0, any)
						if errors.Is(err, encoder.ErrSizeExceeded) {
							total++
							if any && o.Canonical == 0 {
								named++
							}
						}
					}
				}
			}
		})
	}
	// Both kinds must be tried: limits the direct encoders must name,
	// and limits only compared with the walk.
	if named == 0 || named == total {
		t.Errorf("%d of the %d limits exceeded were to be named without the walk", named, total)
	}
}

// TestSizeLimitLeftToTheWalk holds the direct encoders to the walk's
// error in the cases of the size limit they leave to it, and checks that
// they do: the canonical profiles; a map larger than the limit that
// passes it, one of whose entries may pass it by itself; a nested message
// that passes the limit after the message holding it had counted past
// the limit before it, and any other fault found there; a generated
// message's packed list of more elements than the limit (package
// dynamic's encoder names it). Where int has 32 bits the direct encoders
// name some of them (named32): they check each running sum as they count
// it, and count again the first message whose sum passes the limit.
func TestSizeLimitLeftToTheWalk(t *testing.T) {
	long := strings.Repeat("x", 40)
	for _, c := range []struct {
		name string
		m    proto.Message
		o    encoder.MarshalOptions
		path string
		// generated is set where only generated messages are left to
		// the walk; named32 where none is, where int has 32 bits.
		generated, named32 bool
	}{
		{"canonical", &test3pb.TestAllTypes{SingularString: long}, encoder.MarshalOptions{Canonical: encoder.Canonical, MaxSize: 30}, "singular_string", false, false},
		{"map", &test3pb.TestAllTypes{MapStringString: map[string]string{long: "v"}}, encoder.MarshalOptions{MaxSize: 30}, `map_string_string["` + long + `"]`, false, false},
		{"nested after the limit", &test3pb.TestAllTypes{SingularString: long, SingularNestedMessage: &test3pb.TestAllTypes_NestedMessage{Corecursive: &test3pb.TestAllTypes{SingularString: long}}},
			encoder.MarshalOptions{MaxSize: 30}, "singular_string", false, true},
		{"invalid UTF-8 after the limit", &test3pb.TestAllTypes{SingularString: long, SingularNestedMessage: &test3pb.TestAllTypes_NestedMessage{Corecursive: &test3pb.TestAllTypes{SingularString: "a\xffz"}}},
			encoder.MarshalOptions{MaxSize: 30}, "singular_string", false, true},
		{"packed", &test3pb.TestAllTypes{RepeatedInt32: make([]int32, 40)}, encoder.MarshalOptions{MaxSize: 30}, "repeated_int32", true, true},
	} {
		walked := protobuftest.DynamicTwin(c.m)
		_, want := c.o.Marshal(walked)
		var e *encoder.Error
		if !errors.As(want, &e) || e.Err != encoder.ErrSizeExceeded || e.Path != c.path {
			t.Fatalf("%s: the walk gives %v; want the size limit at %s", c.name, want, c.path)
		}
		for _, m := range sizeForms(c.m) {
			enc := encoder.NewEncoder(c.o)
			_, err := enc.Marshal(m)
			if !protobuftest.SameFault(walked, want, m, err) {
				t.Errorf("%s, %T: %v; the walk: %v", c.name, m, err, want)
			}
			_, dynamic := m.(*dynamic.Message)
			named := c.generated && dynamic || wire.Is32 && c.named32
			if steps := encoder.WalkStats(enc).Steps; (steps == 0) != named {
				t.Errorf("%s, %T: %d walk steps", c.name, m, steps)
			}
		}
	}
}
