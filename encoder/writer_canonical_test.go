package encoder_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/internal/reloadtest"
	"github.com/protolayout/protolayout/protobuftest"
	"github.com/protolayout/protolayout/protobuftest/gen/test2pb"
)

// checkCanonicalReplay writes the calls describing m in field-number
// order to a Writer under profile p, twice (the second time reused), and
// holds the bytes to MarshalOptions{Canonical: p} and to the checker.
func checkCanonicalReplay(t *testing.T, m proto.Message, res protoregistry.ExtensionTypeResolver, p encoder.Profile, seed uint64, lengths encoder.LengthStrategy) {
	t.Helper()
	want, err := encoder.MarshalOptions{Canonical: p, AllowPartial: true}.Marshal(m)
	if err != nil {
		t.Fatalf("%T seed %d %v: Marshal: %v", m, seed, p, err)
	}
	md := m.ProtoReflect().Descriptor()
	calls := protobuftest.Calls(m, protobuftest.ReplayOptions{Seed: seed, NoEmbeds: seed%7 == 6, Canonical: p})
	w := encoder.NewWriter(md, encoder.WriterOptions{Canonical: p, AllowPartial: true, Extensions: res, Lengths: lengths})
	for round := range 2 {
		w.Reset()
		got, err := protobuftest.Replay(w, calls)
		if err != nil {
			t.Fatalf("%T seed %d %v round %d: %v\ncalls:\n%s", m, seed, p, round, err, callList(calls))
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%T seed %d %v round %d: bytes differ at %s\ncalls:\n%s", m, seed, p, round,
				protobuftest.FirstDiff(got, want, md), callList(calls))
		}
		if err := (encoder.CanonicalOptions{Profile: p, Resolver: res}).Check(got, md); err != nil {
			t.Fatalf("%T seed %d %v round %d: %v", m, seed, p, round, err)
		}
	}
}

// TestWriterCanonicalRandom writes seeded random messages of every test
// schema under both profiles (map-free and without unknown fields for
// Signing), generated and dynamicpb, as Writer calls in field-number
// order: the bytes are MarshalOptions{Canonical}'s, and the checker
// accepts them.
func TestWriterCanonicalRandom(t *testing.T) {
	n := reloadtest.Seeds() / 5
	for _, tw := range protobuftest.Twins() {
		t.Run(string(tw.Name), func(t *testing.T) {
			t.Parallel()
			for seed := range n {
				for _, p := range profiles {
					m := testMessage(tw, seed, p)
					lengths := strategies[seed%2]
					checkCanonicalReplay(t, m.Interface(), protobuftest.DynamicTypes(), p, seed, lengths)
					checkCanonicalReplay(t, storages(t, tw, m)["generated"], protoregistry.GlobalTypes, p, seed, lengths)
				}
			}
		})
	}
}

// wantWriterErr fails unless err is an *Error for reason want on field
// (a full name, "" for none) at path.
func wantWriterErr(t *testing.T, err, want error, field protoreflect.FullName, path, ctx string) *encoder.Error {
	t.Helper()
	var e *encoder.Error
	if !errors.As(err, &e) || !errors.Is(err, want) || !errors.Is(err, proto.Error) || e.Field != field || e.Path != path {
		t.Fatalf("%s: got %v, want %v on %q at %q", ctx, err, want, field, path)
	}
	return e
}

// TestWriterCanonicalOrder writes test2.OneofOrder, whose emission order
// (extensions 101 150, then 10 20 30 200, then the oneofs' 9 and 3) is not
// its number order, where the extensions come between fields 30 and 200: under a canonical profile the number order is accepted,
// and proto.Marshal's order fails at the first field out of number order,
// with ErrOutOfOrder naming the order.
func TestWriterCanonicalOrder(t *testing.T) {
	md := (&test2pb.OneofOrder{}).ProtoReflect().Descriptor()
	m := oneofOrderAll()
	call := func(n protowire.Number) protobuftest.Call {
		return protobuftest.Call{Op: protobuftest.OpInt32, Num: n, Int: int64(n)}
	}
	feed := func(p encoder.Profile, nums ...protowire.Number) error {
		w := encoder.NewWriter(md, encoder.WriterOptions{Canonical: p, Extensions: protoregistry.GlobalTypes})
		var calls []protobuftest.Call
		for _, n := range nums {
			calls = append(calls, call(n))
		}
		got, err := protobuftest.Replay(w, calls)
		if err == nil && len(nums) == 8 { // all of m
			if want, _ := (encoder.MarshalOptions{Canonical: p}).Marshal(m); !bytes.Equal(got, want) {
				t.Fatalf("%v %v: % x, want % x", p, nums, got, want)
			}
		}
		return err
	}
	for _, p := range profiles {
		if err := feed(p, 3, 9, 10, 20, 30, 101, 150, 200); err != nil {
			t.Fatalf("%v, number order: %v", p, err)
		}
		// proto.Marshal's order: the first extension is fine, the second
		// too, then field 10 comes after 150.
		e := wantWriterErr(t, feed(p, 101, 150, 10, 20, 30, 200, 9, 3), encoder.ErrOutOfOrder, "protolayout.test2.OneofOrder.b", "b", p.String()+", emission order")
		if !strings.Contains(e.Detail, "canonical order is strictly ascending field number") || !strings.Contains(e.Detail, "after field 150") {
			t.Errorf("%v: detail %q", p, e.Detail)
		}
		for _, c := range []struct {
			nums  []protowire.Number
			field protoreflect.FullName
			path  string
		}{
			// A oneof member after the fields, where proto.Marshal writes it.
			{[]protowire.Number{10, 20, 30, 9}, "protolayout.test2.OneofOrder.s9", "s9"},
			{[]protowire.Number{9, 10, 3}, "protolayout.test2.OneofOrder.f3", "f3"},
			// An extension first, where proto.Marshal writes it.
			{[]protowire.Number{101, 3}, "protolayout.test2.OneofOrder.f3", "f3"},
			{[]protowire.Number{3, 10, 101, 20}, "protolayout.test2.OneofOrder.a", "a"},
			// An extension below the field before it.
			{[]protowire.Number{3, 150, 101}, "protolayout.test2.order_ext101", "[protolayout.test2.order_ext101]"},
			// An extension after a field numbered above it.
			{[]protowire.Number{3, 200, 150}, "protolayout.test2.order_ext150", "[protolayout.test2.order_ext150]"},
		} {
			wantWriterErr(t, feed(p, c.nums...), encoder.ErrOutOfOrder, c.field, c.path, p.String()+" order")
		}
		// A second member of a oneof, whichever order.
		wantWriterErr(t, feed(p, 1, 9), encoder.ErrOneofConflict, "protolayout.test2.OneofOrder.s9", "s9", p.String())
		// Each once: a field again after another.
		wantWriterErr(t, feed(p, 3, 10, 3), encoder.ErrDuplicateField, "protolayout.test2.OneofOrder.f3", "f3", p.String())
		// Extensions and fields interleaved by number pass.
		if err := feed(p, 1, 3, 10, 20, 30, 101); err != nil {
			t.Fatalf("%v: %v", p, err)
		}
	}
	// Any other profile value is Canonical, as for MarshalOptions.
	if err := feed(7, 3, 9, 10, 20, 30, 101, 150, 200); err != nil {
		t.Fatalf("Profile(7), number order: %v", err)
	}
	wantWriterErr(t, feed(7, 101, 150, 10), encoder.ErrOutOfOrder, "protolayout.test2.OneofOrder.b", "b", "Profile(7)")
	// The default order still wants extensions first.
	wantWriterErr(t, feed(0, 3, 9, 10, 20, 30, 101, 150, 200), encoder.ErrOutOfOrder, "protolayout.test2.OneofOrder.s9", "s9", "default order")
	if err := feed(0, 101, 150, 10, 20, 30, 200, 9, 3); err != nil {
		t.Fatalf("default order: %v", err)
	}
}

// scalarCall returns a call writing a value that is not zero to fd, a
// singular scalar field, or false for another field.
func scalarCall(fd protoreflect.FieldDescriptor) (protobuftest.Call, bool) {
	if fd.IsList() || fd.IsMap() || fd.Message() != nil {
		return protobuftest.Call{}, false
	}
	c := protobuftest.Call{Num: fd.Number()}
	switch fd.Kind() {
	case protoreflect.BoolKind:
		c.Op, c.Bool = protobuftest.OpBool, true
	case protoreflect.EnumKind:
		c.Op, c.Int = protobuftest.OpEnum, 1
	case protoreflect.StringKind, protoreflect.BytesKind:
		c.Op, c.Str = protobuftest.OpString, "x"
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		c.Op, c.Float = protobuftest.OpFloat64, 1
	case protoreflect.Uint32Kind, protoreflect.Uint64Kind, protoreflect.Fixed32Kind, protoreflect.Fixed64Kind:
		c.Op, c.Uint = protobuftest.OpUint64, 1
	default:
		c.Op, c.Int = protobuftest.OpInt64, 1
	}
	return c, true
}

// TestWriterCanonicalOrderRandom writes random sequences of singular
// scalar fields and extensions of every test schema (oneof members
// among them) to a canonical Writer, which takes some calls on its fast
// paths and some on its general path: it must fail exactly at the first
// call that breaks number order (a number not above the last) or writes
// a second member of a oneof, and accept the rest.
func TestWriterCanonicalOrderRandom(t *testing.T) {
	rounds := 200
	if testing.Short() {
		rounds = 40
	}
	for _, tw := range protobuftest.Twins() {
		md := tw.Dyn.Descriptor()
		var fds []protoreflect.FieldDescriptor
		for i := range md.Fields().Len() {
			fds = append(fds, md.Fields().Get(i))
		}
		for _, xt := range tw.DynExts {
			if xd := xt.TypeDescriptor(); xd.ContainingMessage().FullName() == md.FullName() {
				fds = append(fds, xd)
			}
		}
		var pool []protoreflect.FieldDescriptor
		for _, fd := range fds {
			if _, ok := scalarCall(fd); ok {
				pool = append(pool, fd)
			}
		}
		if len(pool) < 2 {
			continue
		}
		r := rand.New(rand.NewPCG(uint64(len(pool)), 7))
		for _, p := range profiles {
			w := encoder.NewWriter(md, encoder.WriterOptions{Canonical: p, AllowPartial: true, Extensions: protobuftest.DynamicTypes()})
			for range rounds {
				// Mostly ascending runs, with a step back now and then.
				w.Reset()
				n := 1 + r.IntN(8)
				k := r.IntN(len(pool))
				last := protowire.Number(0)
				oneofs := map[protoreflect.FullName]bool{}
				failAt := -1
				var seq []string
				for i := range n {
					if r.IntN(4) == 0 {
						k = r.IntN(len(pool))
					} else {
						k = min(k+1+r.IntN(3), len(pool)-1)
					}
					// pool is in declaration order: pick by number too.
					fd := pool[k]
					if r.IntN(2) == 0 {
						fd = nearestAbove(pool, last)
						if fd == nil {
							fd = pool[k]
						}
					}
					c, _ := scalarCall(fd)
					seq = append(seq, c.String())
					od := fd.ContainingOneof()
					bad := fd.Number() <= last || od != nil && !od.IsSynthetic() && oneofs[od.FullName()]
					if bad && failAt < 0 {
						failAt = i
					}
					before := w.Err()
					c.Apply(w)
					switch {
					case failAt < 0 && w.Err() != nil:
						t.Fatalf("%s %v: %v refused: %v\ncalls: %v", tw.Name, p, c, w.Err(), seq)
					case failAt == i && (before != nil || w.Err() == nil):
						t.Fatalf("%s %v: %v accepted after %d\ncalls: %v", tw.Name, p, c, last, seq)
					}
					if failAt >= 0 {
						continue
					}
					last = fd.Number()
					if od != nil && !od.IsSynthetic() {
						oneofs[od.FullName()] = true
					}
				}
				if b, err := w.Finish(); failAt < 0 {
					if err != nil {
						t.Fatalf("%s %v: Finish: %v", tw.Name, p, err)
					}
					err := (encoder.CanonicalOptions{Profile: p, Resolver: protobuftest.DynamicTypes()}).Check(b, md)
					if err != nil && !errors.Is(err, encoder.ErrRequiredNotSet) { // the calls skip required fields
						t.Fatalf("%s %v: %v\ncalls: %v", tw.Name, p, err, seq)
					}
				}
			}
		}
	}
}

// nearestAbove returns the field of pool numbered lowest above n, or nil.
func nearestAbove(pool []protoreflect.FieldDescriptor, n protowire.Number) protoreflect.FieldDescriptor {
	var best protoreflect.FieldDescriptor
	for _, fd := range pool {
		if fd.Number() > n && (best == nil || fd.Number() < best.Number()) {
			best = fd
		}
	}
	return best
}

// TestWriterCanonicalUnknownLast checks that unknown fields come last
// under Canonical, as in proto.Marshal's order.
func TestWriterCanonicalUnknownLast(t *testing.T) {
	md := (&test2pb.OneofOrder{}).ProtoReflect().Descriptor()
	unknown := protowire.AppendVarint(protowire.AppendTag(nil, 99, protowire.VarintType), 1)
	w := encoder.NewWriter(md, encoder.WriterOptions{Canonical: encoder.Canonical, Extensions: protoregistry.GlobalTypes})
	w.Int32(3, 3)
	w.Unknown(unknown)
	w.Unknown(unknown)
	got, err := w.Finish()
	if want := append(protowire.AppendVarint([]byte{0x18}, 3), append(unknown, unknown...)...); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("% x, %v; want % x", got, err, want)
	}
	if err := encoder.CheckCanonical(got, md, encoder.Canonical); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		num   protowire.Number
		field protoreflect.FullName
		path  string
	}{
		{10, "protolayout.test2.OneofOrder.b", "b"},
		{101, "protolayout.test2.order_ext101", "[protolayout.test2.order_ext101]"},
	} {
		w.Reset()
		w.Int32(3, 3)
		w.Unknown(unknown)
		w.Int32(c.num, 1)
		wantWriterErr(t, w.Err(), encoder.ErrOutOfOrder, c.field, c.path, "after unknown fields")
	}
}

// TestWriterSigningPacks writes repeated scalar fields that proto2 leaves
// unpacked under Signing, element by element, as slices and both mixed:
// each becomes one packed record, as MarshalOptions{Canonical: Signing}
// writes it; under Canonical they stay unpacked, as declared.
func TestWriterSigningPacks(t *testing.T) {
	m := &test2pb.TestAllTypes{
		RepeatedInt32:      []int32{1, -2, 300},
		RepeatedBool:       []bool{true, false},
		RepeatedDouble:     []float64{1.5, math.Copysign(0, -1)},
		RepeatedNestedEnum: []test2pb.TestAllTypes_NestedEnum{test2pb.TestAllTypes_BAR, test2pb.TestAllTypes_NEG},
		RepeatedString:     []string{"a", "b"}, // not packable
	}
	md := m.ProtoReflect().Descriptor()
	styles := map[string]func(w *encoder.Writer){
		"elements": func(w *encoder.Writer) {
			for _, v := range m.RepeatedInt32 {
				w.Int32(31, v)
			}
			for _, v := range m.RepeatedDouble {
				w.Float64(42, v)
			}
			for _, v := range m.RepeatedBool {
				w.Bool(43, v)
			}
			w.String(44, "a")
			w.String(44, "b")
			for _, v := range m.RepeatedNestedEnum {
				w.Enum(51, protoreflect.EnumNumber(v))
			}
		},
		"slices": func(w *encoder.Writer) {
			w.Int32s(31, nil) // writes nothing, not even an empty record
			w.Int32s(31, m.RepeatedInt32)
			w.Float64s(42, m.RepeatedDouble)
			w.Bools(43, m.RepeatedBool)
			w.Strings(44, m.RepeatedString)
			w.Enums(51, []protoreflect.EnumNumber{1, -1})
		},
		"mixed": func(w *encoder.Writer) {
			w.Int32(31, 1)
			w.Int32s(31, []int32{-2})
			w.Int64(31, 300)
			w.Float64s(42, m.RepeatedDouble[:1])
			w.Float32(42, 0)
			w.Float64(42, m.RepeatedDouble[1])
			w.Float64s(42, nil)
			w.Bools(43, m.RepeatedBool)
			w.Strings(44, m.RepeatedString)
			w.Enums(51, []protoreflect.EnumNumber{1})
			w.EnumName(51, "NEG")
		},
	}
	// The float 0 of "mixed" is one more element: write it in m too.
	mixed := proto.Clone(m).(*test2pb.TestAllTypes)
	mixed.RepeatedDouble = []float64{1.5, 0, math.Copysign(0, -1)}
	for _, p := range profiles {
		for name, write := range styles {
			want, err := encoder.MarshalOptions{Canonical: p}.Marshal(m)
			if name == "mixed" {
				want, err = encoder.MarshalOptions{Canonical: p}.Marshal(mixed)
			}
			if err != nil {
				t.Fatal(err)
			}
			w := encoder.NewWriter(md, encoder.WriterOptions{Canonical: p})
			write(w)
			got, err := w.Finish()
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%v %s: % x, %v; want % x", p, name, got, err, want)
			}
			if err := encoder.CheckCanonical(got, md, p); err != nil {
				t.Fatalf("%v %s: %v", p, name, err)
			}
			// Under Signing, field 31's elements are one packed record
			// (wire type 2); under Canonical, three varint records.
			if num, typ, _ := protowire.ConsumeTag(got); num != 31 || (typ == protowire.BytesType) != (p == encoder.Signing) {
				t.Fatalf("%v %s: first record field %d type %d", p, name, num, typ)
			}
		}
	}
}

// TestWriterSigningADR027 writes ADR-027's test document from its values
// under Signing, the defaults written too (the Writer skips them): the
// bytes are the ADR's vector.
func TestWriterSigningADR027(t *testing.T) {
	w := encoder.NewWriter(articleSchema(t), encoder.WriterOptions{Canonical: encoder.Signing})
	w.String(1, "The world needs change 🌳")
	w.String(2, "")
	w.Uint64(3, 1596806111080)
	w.Uint64(4, 0)
	w.Bool(5, true)
	w.Bool(6, false)
	w.EnumName(7, "NEWS")
	w.Enum(8, 0)
	w.Strings(9, []string{"Nice one", "Thank you"})
	w.Strings(10, nil)
	got, err := w.Finish()
	if want, _ := hex.DecodeString(adr027Vector); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%x, %v; want %x", got, err, want)
	}
}

// sameError fails unless the Writer's error and Marshal's agree: reason,
// detail, message, field and path.
func sameError(t *testing.T, werr, merr error, ctx string) {
	t.Helper()
	var we, me *encoder.Error
	if !errors.As(werr, &we) || !errors.As(merr, &me) {
		t.Fatalf("%s: Writer %v, Marshal %v: want two *Error", ctx, werr, merr)
	}
	if we.Err != me.Err || we.Detail != me.Detail || we.Message != me.Message || we.Field != me.Field || we.Path != me.Path {
		t.Fatalf("%s: Writer %v, Marshal %v", ctx, werr, merr)
	}
}

// TestWriterSigningRefuses checks that under Signing a map entry fails
// with ErrMapField and unknown fields with ErrUnknownField, each where
// MarshalOptions{Canonical: Signing} fails on the message the calls
// describe, with the same error; an empty map and an empty Unknown write
// nothing and pass; Canonical accepts all of it; the first failure
// sticks.
func TestWriterSigningRefuses(t *testing.T) {
	md := (&test2pb.TestRecursive{}).ProtoReflect().Descriptor()
	unknown := protowire.AppendVarint(protowire.AppendTag(nil, 99, protowire.VarintType), 1)
	withMap := &test2pb.TestRecursive{Value: proto.Int32(1), Children: []*test2pb.TestRecursive{{},
		{Value: proto.Int32(2), ByName: map[string]*test2pb.TestRecursive{"k": {}}}}}
	withUnknown := &test2pb.TestRecursive{Child: &test2pb.TestRecursive{Value: proto.Int32(2)}}
	withUnknown.Child.ProtoReflect().SetUnknown(unknown)
	for _, c := range []struct {
		name  string
		m     proto.Message
		write func(w *encoder.Writer)
		want  error
		field protoreflect.FullName
		path  string
	}{
		{"map entry", withMap, func(w *encoder.Writer) {
			w.Int32(2, 1)
			w.Begin(3)
			w.End()
			w.Begin(3)
			w.Int32(2, 2)
			w.BeginEntryString(4, "k")
			w.End()
			w.End()
		}, encoder.ErrMapField, "protolayout.test2.TestRecursive.by_name", "children[1].by_name"},
		{"map Begin", withMap, func(w *encoder.Writer) {
			w.Int32(2, 1)
			w.Begin(3)
			w.End()
			w.Begin(3)
			w.Int32(2, 2)
			w.Begin(4)
			w.String(encoder.MapKey, "k")
			w.End()
			w.End()
		}, encoder.ErrMapField, "protolayout.test2.TestRecursive.by_name", "children[1].by_name"},
		{"unknown", withUnknown, func(w *encoder.Writer) {
			w.Begin(1)
			w.Int32(2, 2)
			w.Unknown(unknown)
			w.End()
		}, encoder.ErrUnknownField, "", "child"},
	} {
		_, merr := encoder.MarshalOptions{Canonical: encoder.Signing}.Marshal(c.m)
		w := encoder.NewWriter(md, encoder.WriterOptions{Canonical: encoder.Signing})
		c.write(w)
		w.Int32(2, 5) // after the failure: does nothing
		_, err := w.Finish()
		wantWriterErr(t, err, c.want, c.field, c.path, c.name)
		sameError(t, err, merr, c.name)
		// Under Canonical the same calls write Marshal's bytes.
		want, err := encoder.MarshalOptions{Canonical: encoder.Canonical}.Marshal(c.m)
		if err != nil {
			t.Fatal(err)
		}
		w = encoder.NewWriter(md, encoder.WriterOptions{Canonical: encoder.Canonical})
		c.write(w)
		if got, err := w.Finish(); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s, Canonical: % x, %v; want % x", c.name, got, err, want)
		}
	}
	// Nothing to refuse: an empty map (no entry written) and an empty
	// Unknown.
	w := encoder.NewWriter(md, encoder.WriterOptions{Canonical: encoder.Signing})
	w.Int32(2, 1)
	w.Unknown(nil)
	got, err := w.Finish()
	if want := []byte{0x10, 0x01}; err != nil || !bytes.Equal(got, want) {
		t.Fatalf("empty Unknown: % x, %v", got, err)
	}
}

// TestWriterCanonicalAllocs checks that a reused Writer allocates nothing
// per message under either profile, as in proto.Marshal's order: random
// messages of every test schema, written without Message (whose encoder
// is not the Writer's).
func TestWriterCanonicalAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	for _, tw := range protobuftest.Twins() {
		for seed := range uint64(4) {
			for _, p := range append([]encoder.Profile{0}, profiles...) {
				m := testMessage(tw, seed, max(p, encoder.Canonical)).Interface()
				calls := protobuftest.Calls(m, protobuftest.ReplayOptions{Seed: seed, NoEmbeds: true, Canonical: p})
				w := encoder.NewWriter(tw.Dyn.Descriptor(), encoder.WriterOptions{Canonical: p, AllowPartial: true, Extensions: protobuftest.DynamicTypes()})
				if _, err := protobuftest.Replay(w, calls); err != nil {
					t.Fatalf("%s seed %d %v: %v", tw.Name, seed, p, err)
				}
				if n := testing.AllocsPerRun(10, func() { w.Reset(); _, _ = protobuftest.Replay(w, calls) }); n != 0 {
					t.Errorf("%s seed %d %v: %v allocations per message", tw.Name, seed, p, n)
				}
			}
		}
	}
}

// TestWriterCanonicalConcurrent writes messages of a freshly loaded
// schema from Writers of every profile on several goroutines at once, so
// that the tables of each profile (and their children's) are built
// concurrently: every Writer gives its profile's bytes (the race detector
// checks the rest).
func TestWriterCanonicalConcurrent(t *testing.T) {
	mt, types := reloadtest.Type(t, (&test2pb.TestAllTypes{}).ProtoReflect().Descriptor())
	var msgs []proto.Message
	for seed := range uint64(4) {
		m := mt.New()
		protobuftest.Fill(m, seed, protobuftest.RandOptions{MaxDepth: 3, NoMaps: true})
		msgs = append(msgs, m.Interface())
	}
	all := append([]encoder.Profile{0}, profiles...)
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Go(func() {
			for i := range 20 {
				p, m := all[(g+i)%len(all)], msgs[(g+i/3)%len(msgs)]
				want, err := encoder.MarshalOptions{Canonical: p, Deterministic: true, AllowPartial: true}.Marshal(m)
				if err != nil {
					t.Error(err)
					return
				}
				w := encoder.NewWriter(mt.Descriptor(), encoder.WriterOptions{Canonical: p, AllowPartial: true, Extensions: types})
				got, err := protobuftest.Replay(w, protobuftest.Calls(m, protobuftest.ReplayOptions{Seed: uint64(i), Canonical: p}))
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("goroutine %d, %v: %v\n%s", g, p, err, protobuftest.FirstDiff(got, want, mt.Descriptor()))
					return
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkWriterCanonical writes one random map-free message of the
// proto2 and proto3 test schemas through a reused Writer, in
// proto.Marshal's order and under each profile in number order.
func BenchmarkWriterCanonical(b *testing.B) {
	for _, name := range []protoreflect.FullName{"protolayout.test2.TestAllTypes", "protolayout.test3.TestAllTypes"} {
		tw := protobuftest.TwinByName(name)
		m := testMessage(tw, 3, encoder.Signing).Interface() // no maps, no unknown fields
		for _, p := range append([]encoder.Profile{0}, profiles...) {
			label := "default"
			if p != 0 {
				label = p.String()
			}
			calls := protobuftest.Calls(m, protobuftest.ReplayOptions{Seed: 1, NoEmbeds: true, Canonical: p})
			w := encoder.NewWriter(tw.Dyn.Descriptor(), encoder.WriterOptions{Canonical: p, AllowPartial: true, Extensions: protobuftest.DynamicTypes()})
			b.Run(string(name.Parent().Name())+"/"+label, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					w.Reset()
					if _, err := protobuftest.Replay(w, calls); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
