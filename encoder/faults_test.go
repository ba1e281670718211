package encoder_test

import (
	"cmp"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/protobuftest"
	"github.com/protolayout/protolayout/protobuftest/gen/test2pb"
	"github.com/protolayout/protolayout/protobuftest/gen/test3pb"
	"github.com/protolayout/protolayout/protobuftest/gen/testeditionspb"
)

// TestFaultsAgreeAcrossStorage plants faults in seeded random messages of
// every test schema message (invalid UTF-8 in up to three string places:
// a singular, oneof or extension value, a list element, a map key or
// value; some with a required field cleared too) and encodes the same
// content in every form: generated at every API level (which the engine
// encodes and, on a fault, names itself), dynamicpb (the checked walk) and
// *dynamic.Message. Every form must fail with the same reason, field and
// path, or succeed with the same bytes: the first fault in emission
// order, wherever it is found; and the direct encoders name invalid UTF-8
// and a required field not set without the walk.
func TestFaultsAgreeAcrossStorage(t *testing.T) {
	n := apiLevelSeeds()
	det := encoder.MarshalOptions{Deterministic: true}
	var total atomic.Int64
	t.Run("all", func(t *testing.T) { faultsAgree(t, n, det, false, &total) })
	// A size limit one byte below the message's size: the walk passes it
	// on the message's last item, after every fault planted, and so
	// names it only where no fault is found; the direct encoders name it
	// too, without the walk.
	t.Run("limited", func(t *testing.T) { faultsAgree(t, n/2+1, det, true, &total) })
	// Under Canonical the order differs (and the engine runs its
	// canonical programs): the first fault in field-number order.
	canon := encoder.MarshalOptions{Canonical: encoder.Canonical}
	t.Run("canonical", func(t *testing.T) { faultsAgree(t, n/2+1, canon, false, &total) })
	// Under Signing, non-empty maps and unknown fields are refused too,
	// and the engine and package dynamic's encoder name them.
	signing := encoder.MarshalOptions{Canonical: encoder.Signing}
	t.Run("signing", func(t *testing.T) { faultsAgree(t, n/4+1, signing, false, &total) })
	if total.Load() < int64(n) {
		t.Errorf("only %d of the messages failed: the faults planted are not reaching the encoders", total.Load())
	}
}

func faultsAgree(t *testing.T, n uint64, det encoder.MarshalOptions, limited bool, total *atomic.Int64) {
	for _, s := range protobuftest.GeneratedVariants() {
		t.Run(string(s.Name), func(t *testing.T) {
			t.Parallel()
			faulted := 0
			for seed := range n {
				opts := protobuftest.RandOptions{MaxDepth: 3, Partial: seed%4 == 1, Unknown: det.Canonical == encoder.Signing && seed%3 == 0}
				g := s.Open.Random(seed, opts)
				r := rand.New(rand.NewPCG(seed, 0x5eed))
				places := faultPlaces(g.ProtoReflect(), nil)
				if len(places) == 0 {
					continue
				}
				for range 1 + r.IntN(3) {
					places[r.IntN(len(places))]()
				}
				det := det
				if limited {
					if det.MaxSize = proto.Size(g) - 1; det.MaxSize < 1 {
						continue
					}
				}
				forms := []proto.Message{g,
					protobuftest.VariantTwin(g, protobuftest.APIHybrid),
					protobuftest.VariantTwin(g, protobuftest.APIOpaque),
					protobuftest.DynamicTwin(g),
					protobuftest.DynamicMessageTwin(g),
				}
				want, wantErr := det.Marshal(g)
				if wantErr != nil {
					faulted++
				}
				for i, m := range forms[1:] {
					enc := encoder.NewEncoder(det)
					got, err := enc.Marshal(m)
					if !protobuftest.SameFault(g, wantErr, m, err) || !slices.Equal(got, want) {
						t.Fatalf("seed %d: %T: %v (%d bytes); the open form: %v (%d bytes)", seed, m, err, len(got), wantErr, len(want))
					}
					// The direct encoders (all forms but dynamicpb) name
					// invalid UTF-8 and a required field not set
					// themselves, in maps and extensions too, extensions
					// merged among the fields by number under Canonical,
					// and the size limit outside the canonical profiles.
					steps := encoder.WalkStats(enc).Steps
					named := errors.Is(err, encoder.ErrInvalidUTF8) || errors.Is(err, encoder.ErrRequiredNotSet) ||
						errors.Is(err, encoder.ErrSizeExceeded) && det.Canonical == 0
					if named && i != 2 && steps != 0 {
						t.Fatalf("seed %d: %T: %v named by the walk (%d steps)", seed, m, err, steps)
					}
				}
			}
			total.Add(int64(faulted))
		})
	}
}

// faultPlaces appends to out a function per place of m (and of the
// messages it holds) where a fault can be planted: each string value
// (replaced with invalid UTF-8), each map key of string kind (replaced
// with an invalid one), each set required field (cleared). The places
// come in a fixed order: fields by number, extensions by number, map
// keys sorted.
func faultPlaces(m protoreflect.Message, out []func()) []func() {
	var fds []protoreflect.FieldDescriptor
	m.Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
		fds = append(fds, fd)
		return true
	})
	slices.SortFunc(fds, func(a, b protoreflect.FieldDescriptor) int { return cmp.Compare(a.Number(), b.Number()) })
	for _, fd := range fds {
		v := m.Get(fd)
		if fd.Cardinality() == protoreflect.Required {
			out = append(out, func() { m.Clear(fd) })
		}
		switch {
		case fd.IsMap():
			mp := v.Map()
			var keys []protoreflect.MapKey
			mp.Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool {
				keys = append(keys, k)
				return true
			})
			slices.SortFunc(keys, func(a, b protoreflect.MapKey) int { return cmp.Compare(a.String(), b.String()) })
			for _, k := range keys {
				if fd.MapKey().Kind() == protoreflect.StringKind {
					out = append(out, func() {
						if v := mp.Get(k); v.IsValid() {
							mp.Clear(k)
							mp.Set(protoreflect.ValueOfString("\xff"+k.String()).MapKey(), v)
						}
					})
				}
				switch fd.MapValue().Kind() {
				case protoreflect.StringKind:
					out = append(out, func() {
						if mp.Has(k) {
							mp.Set(k, protoreflect.ValueOfString("\xfe"))
						}
					})
				case protoreflect.MessageKind, protoreflect.GroupKind:
					out = faultPlaces(mp.Get(k).Message(), out)
				}
			}
		case fd.IsList():
			l := v.List()
			for j := range l.Len() {
				switch fd.Kind() {
				case protoreflect.StringKind:
					out = append(out, func() { l.Set(j, protoreflect.ValueOfString("a\xffz")) })
				case protoreflect.MessageKind, protoreflect.GroupKind:
					out = faultPlaces(l.Get(j).Message(), out)
				}
			}
		case fd.Kind() == protoreflect.StringKind:
			out = append(out, func() { m.Set(fd, protoreflect.ValueOfString("\xc0\x80")) })
		case fd.Message() != nil:
			out = faultPlaces(v.Message(), out)
		}
	}
	return out
}

// TestFaultAfterTheSizeLimit holds the engine to the walk where a fault
// comes after the point where the size limit was passed: the walk, which
// checks its running sums item by item, fails on the size first, so the
// engine, which finds the invalid string before it totals the message,
// must not report the string. Before the limit, the string is reported.
func TestFaultAfterTheSizeLimit(t *testing.T) {
	for _, c := range []struct {
		bytes int
		want  error
		path  string
	}{
		{40, encoder.ErrSizeExceeded, "singular_bytes"},
		{4, encoder.ErrInvalidUTF8, "repeated_string"},
	} {
		g := &test3pb.TestAllTypes{
			SingularBytes:  make([]byte, c.bytes),
			RepeatedString: []string{"ok", "a\xffz"},
		}
		o := encoder.MarshalOptions{MaxSize: 32}
		for _, m := range []proto.Message{g, protobuftest.VariantTwin(g, protobuftest.APIOpaque), protobuftest.DynamicTwin(g), protobuftest.DynamicMessageTwin(g)} {
			_, err := o.Marshal(m)
			var e *encoder.Error
			if !errors.As(err, &e) || e.Err != c.want || e.Path != c.path {
				t.Errorf("%T, %d bytes first: %v; want %v at %s", m, c.bytes, err, c.want, c.path)
			}
		}
	}
}

// TestMapFaultAfterTheSizeLimit is TestFaultAfterTheSizeLimit in a map
// under Deterministic, where the walk visits the entries by key: the
// bytes before the fault are those of the entries that sort before it,
// whatever order an encoder finds it in, and with the child before the
// map they pass the limit (the walk fails on the size first). Within the
// limit, the invalid string is reported.
func TestMapFaultAfterTheSizeLimit(t *testing.T) {
	g := &test3pb.TestRecursive{
		Child: &test3pb.TestRecursive{Node: &test3pb.TestRecursive_Leaf{Leaf: strings.Repeat("c", 18)}},
		ByName: map[string]*test3pb.TestRecursive{
			"a": {Node: &test3pb.TestRecursive_Leaf{Leaf: strings.Repeat("a", 16)}},
			"b": {Node: &test3pb.TestRecursive_Leaf{Leaf: "b\xff"}},
		},
	}
	for _, c := range []struct {
		limit int
		want  error
	}{{32, encoder.ErrSizeExceeded}, {64, encoder.ErrInvalidUTF8}} {
		o := encoder.MarshalOptions{Deterministic: true, MaxSize: c.limit}
		for _, m := range []proto.Message{g, protobuftest.VariantTwin(g, protobuftest.APIOpaque), protobuftest.DynamicTwin(g), protobuftest.DynamicMessageTwin(g)} {
			for range 8 { // map order differs from call to call
				_, err := o.Marshal(m)
				var e *encoder.Error
				if !errors.As(err, &e) || e.Err != c.want || c.want == encoder.ErrInvalidUTF8 && e.Path != `by_name["b"].leaf` {
					t.Fatalf("%T, limit %d: %v; want %v", m, c.limit, err, c.want)
				}
			}
		}
	}
}

// TestCanonicalFaultInInterleavedExtension holds every storage to the
// walk under the canonical profiles where a set extension is numbered
// between the fields of its message (InterleavedExtensions: low 1,
// extensions 100 to 199, high 300), faults in both: the first fault in
// field-number order is the extension's when high faults too, low's when
// low does. Both direct encoders merge the extensions in at their numbers
// and name the fault themselves, without the walk.
func TestCanonicalFaultInInterleavedExtension(t *testing.T) {
	const bad = "b\xff"
	// faulty returns a message with high set to h and low to l (unless
	// empty), whose extension interleaved_message holds a message with an
	// invalid low.
	faulty := func(l, h string) *testeditionspb.InterleavedExtensions {
		m := &testeditionspb.InterleavedExtensions{High: proto.String(h)}
		if l != "" {
			m.Low = proto.String(l)
		}
		proto.SetExtension(m, testeditionspb.E_InterleavedString, "x")
		proto.SetExtension(m, testeditionspb.E_InterleavedMessage, &testeditionspb.InterleavedExtensions{Low: proto.String(bad)})
		return m
	}
	cases := []struct {
		name string
		m    *testeditionspb.InterleavedExtensions
		path string
	}{
		{"an extension before high", faulty("", bad), "[protolayout.testeditions.interleaved_message].low"},
		{"low before an extension", faulty(bad, bad), "low"},
		{"nested", &testeditionspb.InterleavedExtensions{
			Children: []*testeditionspb.InterleavedExtensions{{Low: proto.String("ok")}, faulty("ok", bad)},
		}, "children[1].[protolayout.testeditions.interleaved_message].low"},
	}
	for _, c := range cases {
		for _, profile := range []encoder.Profile{encoder.Canonical, encoder.Signing} {
			opts := encoder.MarshalOptions{Canonical: profile}
			walked := protobuftest.DynamicTwin(c.m)
			_, want := opts.Marshal(walked)
			var e *encoder.Error
			if !errors.As(want, &e) || e.Err != encoder.ErrInvalidUTF8 || e.Path != c.path {
				t.Fatalf("%s, %v: the walk gives %v; want invalid UTF-8 at %s", c.name, profile, want, c.path)
			}
			dyn := protobuftest.DynamicMessageTwin(c.m)
			for _, m := range []proto.Message{c.m, protobuftest.VariantTwin(c.m, protobuftest.APIHybrid),
				protobuftest.VariantTwin(c.m, protobuftest.APIOpaque), dyn} {
				enc := encoder.NewEncoder(opts)
				_, err := enc.Marshal(m)
				if !protobuftest.SameFault(walked, want, m, err) {
					t.Errorf("%s, %v, %T: %v; the walk: %v", c.name, profile, m, err, want)
				}
				if steps := encoder.WalkStats(enc).Steps; steps != 0 {
					t.Errorf("%s, %v, %T: the direct encoder left the fault to the walk (%d steps)", c.name, profile, m, steps)
				}
			}
		}
	}
}

// TestNilMessagesWithRequiredFields: a nil list element or map value is
// an empty message, which proto.Marshal refuses when its type has
// required fields; so does the encoder, with and without Unchecked, and
// with AllowPartial both write the empty message.
func TestNilMessagesWithRequiredFields(t *testing.T) {
	for _, c := range []struct {
		m    *test2pb.TestRequired
		path string
	}{
		{&test2pb.TestRequired{R2: proto.Int32(1), R5: proto.Int32(1), RepeatedInner: []*test2pb.TestRequired_Inner{{X: proto.Int32(1)}, nil}}, "repeated_inner[1].x"},
		{&test2pb.TestRequired{R2: proto.Int32(1), R5: proto.Int32(1), MapInner: map[int32]*test2pb.TestRequired_Inner{3: nil}}, "map_inner[3].x"},
	} {
		if _, err := proto.Marshal(c.m); err == nil {
			t.Fatalf("proto.Marshal accepted %v", c.m)
		}
		want, _ := proto.MarshalOptions{AllowPartial: true}.Marshal(c.m)
		for _, o := range []encoder.MarshalOptions{{}, {Unchecked: true}} {
			_, err := o.Marshal(c.m)
			var e *encoder.Error
			if !errors.As(err, &e) || e.Err != encoder.ErrRequiredNotSet || e.Path != c.path {
				t.Errorf("Unchecked %v: %v; want the required field at %s", o.Unchecked, err, c.path)
			}
			o.AllowPartial = true
			if got, err := o.Marshal(c.m); err != nil || !slices.Equal(got, want) {
				t.Errorf("Unchecked %v, AllowPartial: % x, %v; want % x", o.Unchecked, got, err, want)
			}
		}
	}
}

// BenchmarkFault encodes a message of 200 list elements whose last one
// holds invalid UTF-8, with a reused Encoder: the cost of an error, in
// each storage.
func BenchmarkFault(b *testing.B) {
	g := &test3pb.TestAllTypes{}
	for i := range 200 {
		s := "valid string value"
		if i == 199 {
			s = "a\xffz"
		}
		g.RepeatedNestedMessage = append(g.RepeatedNestedMessage, &test3pb.TestAllTypes_NestedMessage{
			A: int32(i), Corecursive: &test3pb.TestAllTypes{SingularString: s, SingularInt64: int64(i)},
		})
	}
	for _, c := range []struct {
		name string
		m    proto.Message
	}{{"generated", g}, {"dynamic", protobuftest.DynamicMessageTwin(g)}, {"dynamicpb", protobuftest.DynamicTwin(g)}} {
		b.Run(c.name, func(b *testing.B) {
			e := encoder.NewEncoder(encoder.MarshalOptions{})
			buf := make([]byte, 0, 1<<16)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.MarshalAppend(buf[:0], c.m); !errors.Is(err, encoder.ErrInvalidUTF8) {
					b.Fatal(err)
				}
			}
		})
	}
}
