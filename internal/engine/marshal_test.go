package engine_test

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/runtime/protoiface"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/dynamic"
	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/internal/dyntest"
	"github.com/protolayout/protolayout/internal/engine"
	"github.com/protolayout/protolayout/protobuftest"
)

// deterministic is the proto package's deterministic marshal.
var deterministic = proto.MarshalOptions{Deterministic: true}

// directOptions are the encoder's default options as the direct encoder
// receives them.
func directOptions(det bool) engine.Options {
	return engine.Options{Deterministic: det, MaxDepth: encoder.DefaultMaxDepth, MaxSize: encoder.DefaultMaxSize}
}

// TestDirectEncodesOrdinaryMessages checks that the direct encoder takes
// every message of every test type (MessageSet types aside, which it
// leaves to the walk), filled at random with extensions and unknown
// fields, and writes the bytes the checked walk writes for the dynamicpb
// twin, with the size it counts, appending after a prefix; the types
// cover each of its field loops (up to 64 fields or more, in index order
// or not).
func TestDirectEncodesOrdinaryMessages(t *testing.T) {
	paths := map[[2]bool]int{}
	extended := 0
	defer func() {
		if extended == 0 {
			t.Error("no test message with an extension set")
		}
		for _, small := range []bool{false, true} {
			for _, inOrder := range []bool{false, true} {
				if paths[[2]bool{small, inOrder}] == 0 {
					t.Errorf("no test type with at most 64 fields %v, in index order %v", small, inOrder)
				}
			}
		}
	}()
	for _, tw := range protobuftest.Twins() {
		small, inOrder := engine.Paths(dynamic.NewMessage(tw.Dyn.Descriptor()))
		paths[[2]bool{small, inOrder}]++
		for seed := range uint64(4) {
			dpb, dyn := dyntest.Filled(tw, seed, protobuftest.RandOptions{Unknown: true})
			if hasExtension(dyn.ProtoReflect()) {
				extended++
			}
			want, err := encoder.MarshalOptions{Deterministic: true}.Marshal(dpb)
			if err != nil {
				t.Fatal(err)
			}
			prefix := []byte{0xaa}
			got, n, handled := engine.DirectAppend(prefix, dyn.ProtoReflect(), directOptions(true))
			if isMessageSet(tw.Dyn.Descriptor()) {
				if handled {
					t.Fatalf("%v: the direct encoder took a MessageSet type", tw.Name)
				}
				continue
			}
			if !handled {
				t.Fatalf("%v seed %d: not handled", tw.Name, seed)
			}
			if !bytes.Equal(got, append([]byte{0xaa}, want...)) || n != len(want) {
				t.Fatalf("%v seed %d: %d bytes (size %d), want %d:\n%s", tw.Name, seed, len(got)-1, n, len(want),
					protobuftest.FirstDiff(got[1:], want, tw.Dyn.Descriptor()))
			}
			_, n, handled = engine.DirectAppend(nil, dyn.ProtoReflect(), engine.Options{SizeOnly: true, MaxDepth: 100, MaxSize: 1 << 30})
			if !handled || n != len(want) {
				t.Fatalf("%v seed %d: SizeOnly %d, %v; want %d", tw.Name, seed, n, handled, len(want))
			}
		}
	}
}

// isMessageSet reports whether md is a MessageSet type.
func isMessageSet(md protoreflect.MessageDescriptor) bool {
	o, ok := md.Options().(*descriptorpb.MessageOptions)
	return ok && o.GetMessageSetWireFormat()
}

// TestDirectGivesUp checks the cases the direct encoder leaves to the
// walk, reporting handled false with nothing appended, and that the
// encoder then gives the walk's result.
func TestDirectGivesUp(t *testing.T) {
	md3 := protobuftest.TwinByName("protolayout.test3.TestAllTypes").Dyn.Descriptor()
	badUTF8 := func(name protoreflect.Name) *dynamic.Message {
		m := dynamic.NewMessage(md3)
		fd := md3.Fields().ByName(name)
		switch {
		case fd.IsList():
			m.Mutable(fd).List().Append(protoreflect.ValueOfString("ok"))
			m.Mutable(fd).List().Append(protoreflect.ValueOfString("\xff"))
		case fd.IsMap() && fd.MapKey().Kind() == protoreflect.StringKind:
			v := protoreflect.ValueOfString("x")
			if fd.MapValue().Kind() != protoreflect.StringKind {
				v = m.Mutable(fd).Map().NewValue()
			}
			m.Mutable(fd).Map().Set(protoreflect.ValueOfString("\xff").MapKey(), v)
		default:
			m.Set(fd, protoreflect.ValueOfString("\xff"))
		}
		return m
	}
	deep, _ := dyntest.Recursive(t, 40)
	cyclic, child := dyntest.Recursive(t, 3)
	cyclic.Get(child).Message().Get(child).Message().Set(child, protoreflect.ValueOfMessage(cyclic))
	// A map in a message at the depth limit: its entries are one level
	// below.
	mapAtLimit, _ := dyntest.Recursive(t, 5)
	last := mapAtLimit
	for last.Has(child) {
		last = last.Get(child).Message().(*dynamic.Message)
	}
	byName := last.Descriptor().Fields().ByName("by_name")
	last.Mutable(byName).Map().Set(protoreflect.ValueOfString("k").MapKey(), last.Mutable(byName).Map().NewValue())

	rd := protobuftest.TwinByName("protolayout.test2.TestRequired").Dyn.Descriptor()
	cases := []struct {
		name string
		m    *dynamic.Message
		o    engine.Options
		want error
	}{
		{"invalid UTF-8", badUTF8("singular_string"), directOptions(false), encoder.ErrInvalidUTF8},
		{"invalid UTF-8 in a list", badUTF8("repeated_string"), directOptions(false), encoder.ErrInvalidUTF8},
		{"invalid UTF-8 in a map key", badUTF8("map_string_string"), directOptions(true), encoder.ErrInvalidUTF8},
		{"required field not set", dynamic.NewMessage(rd), directOptions(false), encoder.ErrRequiredNotSet},
		{"too deep", deep, engine.Options{MaxDepth: 39, MaxSize: 1 << 20}, encoder.ErrDepthExceeded},
		{"a map's entries too deep", mapAtLimit, engine.Options{MaxDepth: 5, MaxSize: 1 << 20}, encoder.ErrDepthExceeded},
		{"a cycle", cyclic, directOptions(false), encoder.ErrCycle},
		{"too large", deep, engine.Options{MaxDepth: 100, MaxSize: 50}, encoder.ErrSizeExceeded},
	}
	for _, c := range cases {
		prefix := []byte{1, 2}
		got, _, handled := engine.DirectAppend(prefix, c.m, c.o)
		if handled || !bytes.Equal(got, prefix) {
			t.Errorf("%s: % x, handled %v; want the prefix, not handled", c.name, got, handled)
		}
		o := encoder.MarshalOptions{Deterministic: c.o.Deterministic, AllowPartial: c.o.Partial, MaxDepth: c.o.MaxDepth, MaxSize: c.o.MaxSize}
		if _, err := o.Marshal(c.m); !errors.Is(err, c.want) {
			t.Errorf("%s: the encoder gives %v, want %v", c.name, err, c.want)
		}
	}

	// An extension whose value is a message of another implementation
	// (set through dynamicpb's extension type) is left to the walk,
	// which encodes it.
	m, twin := foreignExtension(t)
	if _, _, handled := engine.DirectAppend(nil, m, directOptions(true)); handled {
		t.Error("the direct encoder took an extension holding a dynamicpb message")
	}
	want, _ := deterministic.Marshal(twin)
	if got, err := (encoder.MarshalOptions{Deterministic: true}).Marshal(m); err != nil || !bytes.Equal(got, want) || len(want) == 0 {
		t.Errorf("an extension holding a dynamicpb message: % x, %v; want % x", got, err, want)
	}
}

// foreignExtension returns a message of protolayout.test2.TestAllExtensions
// whose optional_nested_message_extension holds a dynamicpb message (set
// through dynamicpb's extension type), which the direct encoder leaves to
// the walk, and its dynamicpb twin.
func foreignExtension(t *testing.T) (*dynamic.Message, *dynamicpb.Message) {
	tw := protobuftest.TwinByName("protolayout.test2.TestAllExtensions")
	for _, xt := range tw.DynExts {
		xd := xt.TypeDescriptor()
		if xd.Name() != "optional_nested_message_extension" {
			continue
		}
		m := dynamic.NewMessage(tw.Dyn.Descriptor())
		twin := dynamicpb.NewMessage(tw.Dyn.Descriptor())
		for _, x := range []protoreflect.Message{m, twin} {
			v := xt.New()
			v.Message().Set(xd.Message().Fields().ByName("a"), protoreflect.ValueOfInt32(5))
			x.Set(xd, v)
		}
		return m, twin
	}
	t.Fatal("no optional_nested_message_extension")
	return nil, nil
}

// TestGivenUpOnce checks that the fast-path methods hand a message the
// direct encoder gives up on (one with an extension it leaves to the
// walk) to the walk at once: proto.Marshal tries the
// direct encoder once (in Size; Marshal with the cached sizes sees the
// count left incomplete), proto.Size once, and Marshal without cached
// sizes once; and all give the bytes of the dynamicpb twin.
func TestGivenUpOnce(t *testing.T) {
	attempts := 0
	engine.SetOnEncode(func() { attempts++ })
	defer engine.SetOnEncode(nil)
	top, topTwin := foreignExtension(t)
	want, err := proto.MarshalOptions{AllowPartial: true}.Marshal(topTwin)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		run  func() ([]byte, error)
	}{
		{"proto.Marshal", func() ([]byte, error) { return proto.MarshalOptions{AllowPartial: true}.Marshal(top) }},
		{"proto.Size", func() ([]byte, error) {
			if n := proto.Size(top); n != len(want) {
				return nil, fmt.Errorf("size %d, want %d", n, len(want))
			}
			return want, nil
		}},
		{"Marshal", func() ([]byte, error) {
			out, err := top.ProtoReflect().ProtoMethods().Marshal(protoiface.MarshalInput{Message: top.ProtoReflect()})
			return out.Buf, err
		}},
	} {
		attempts = 0
		got, err := c.run()
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: % x, %v; want % x", c.name, got, err, want)
		}
		if attempts != 1 {
			t.Errorf("%s tried the direct encoder %d times, want once", c.name, attempts)
		}
	}
}

// scalarExtended returns the twins whose first extension is a singular
// scalar.
func scalarExtended() []protobuftest.Twin {
	var tws []protobuftest.Twin
	for _, tw := range protobuftest.Twins() {
		if len(tw.DynExts) == 0 {
			continue
		}
		if xd := tw.DynExts[0].TypeDescriptor().Descriptor(); !xd.IsList() && xd.Message() == nil {
			tws = append(tws, tw)
		}
	}
	return tws
}

// hasExtension reports whether m has an extension set.
func hasExtension(m protoreflect.Message) bool {
	found := false
	m.Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
		found = fd.IsExtension()
		return !found
	})
	return found
}

// doubling returns a TestRecursive whose children list holds the same
// message twice, level after level, depth levels deep: a shared subtree
// whose encoding doubles with every level.
func doubling[M interface{ ProtoReflect() protoreflect.Message }](depth int, newMessage func() M) protoreflect.Message {
	m := newMessage().ProtoReflect()
	children := m.Descriptor().Fields().ByName("children")
	value := m.Descriptor().Fields().ByName("value")
	m.Set(value, protoreflect.ValueOfInt32(int32(depth)))
	for d := range depth {
		parent := newMessage().ProtoReflect()
		parent.Set(value, protoreflect.ValueOfInt32(int32(d)))
		l := parent.Mutable(children).List()
		l.Append(protoreflect.ValueOfMessage(m))
		l.Append(protoreflect.ValueOfMessage(m))
		m = parent
	}
	return m
}

// TestDirectSharedSubtree checks that the direct encoder counts a shared
// subtree once per call: a doubling subtree of 12 levels encodes as the
// walk encodes its dynamicpb twin, and one of 80 levels, whose encoding
// would take 2^80 bytes, fails on the size limit at once (counted once
// per path, it would never end).
func TestDirectSharedSubtree(t *testing.T) {
	md := protobuftest.TwinByName("protolayout.test2.TestRecursive").Dyn.Descriptor()
	small := doubling(12, func() *dynamic.Message { return dynamic.NewMessage(md) })
	twin := doubling(12, func() *dynamicpb.Message { return dynamicpb.NewMessage(md) })
	want, err := encoder.Marshal(twin.Interface())
	if err != nil {
		t.Fatal(err)
	}
	got, _, handled := engine.DirectAppend(nil, small, directOptions(false))
	if !handled || !bytes.Equal(got, want) {
		t.Fatalf("12 doubling levels: %d bytes, handled %v; want %d bytes", len(got), handled, len(want))
	}
	huge := doubling(80, func() *dynamic.Message { return dynamic.NewMessage(md) })
	if _, _, handled := engine.DirectAppend(nil, huge, directOptions(false)); handled {
		t.Fatal("80 doubling levels: handled")
	}
	if _, err := encoder.Marshal(huge.Interface()); !errors.Is(err, encoder.ErrSizeExceeded) {
		t.Fatalf("80 doubling levels: %v, want ErrSizeExceeded", err)
	}
	if n := proto.Size(huge.Interface()); n != 0 {
		t.Fatalf("proto.Size of 80 doubling levels: %d, want 0", n)
	}
}

// TestDirectMutationBetweenPasses checks that a message changed between
// the direct encoder's size and write passes is never written with the
// lengths counted before: both when the total size changes and when two
// nested messages change by opposite amounts, leaving the total as it was,
// the direct encoder gives up (nothing appended), and the encoder's walk,
// which reads the message again, writes it as it now is.
func TestDirectMutationBetweenPasses(t *testing.T) {
	md := protobuftest.TwinByName("protolayout.test2.TestRecursive").Dyn.Descriptor()
	fields := md.Fields()
	leaf, children := fields.ByName("leaf"), fields.ByName("children")
	build := func() (*dynamic.Message, protoreflect.Message, protoreflect.Message) {
		m := dynamic.NewMessage(md)
		l := m.Mutable(children).List()
		a, b := l.AppendMutable().Message(), l.AppendMutable().Message()
		a.Set(leaf, protoreflect.ValueOfString("aaaa"))
		b.Set(leaf, protoreflect.ValueOfString("bbbb"))
		return m, a, b
	}
	for _, c := range []struct {
		name   string
		change func(a, b protoreflect.Message)
	}{
		{"grown", func(a, _ protoreflect.Message) { a.Set(leaf, protoreflect.ValueOfString("aaaaa")) }},
		{"same total", func(a, b protoreflect.Message) {
			a.Set(leaf, protoreflect.ValueOfString("aaaaa"))
			b.Set(leaf, protoreflect.ValueOfString("bbb"))
		}},
	} {
		m, a, b := build()
		engine.SetBetweenPasses(func(*dynamic.Message) { c.change(a, b) })
		prefix := []byte{9}
		got, _, handled := engine.DirectAppend(prefix, m, directOptions(false))
		engine.SetBetweenPasses(nil)
		if handled || !bytes.Equal(got, prefix) {
			t.Errorf("%s: % x, handled %v; want the prefix, not handled", c.name, got, handled)
		}

		m, a, b = build()
		engine.SetBetweenPasses(func(*dynamic.Message) { c.change(a, b) })
		got, err := encoder.MarshalOptions{}.MarshalAppend(prefix, m)
		engine.SetBetweenPasses(nil)
		want, werr := encoder.MarshalOptions{}.MarshalAppend(prefix, m)
		if err != nil || werr != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: the encoder gives % x, %v; want % x, as the message is now", c.name, got, err, want)
		}
		var back = dynamic.NewMessage(md)
		if err := proto.Unmarshal(got[1:], back); err != nil || !proto.Equal(back, m) {
			t.Errorf("%s: the output decodes to another message (%v)", c.name, err)
		}
	}
}

// TestDirectGroupChangedBetweenPasses checks the same of a group, whose
// body has no length prefix: a group whose body grows between the passes
// while a later field shrinks by as much, leaving the total as it was,
// is not written with the size counted before.
func TestDirectGroupChangedBetweenPasses(t *testing.T) {
	md := protobuftest.TwinByName("protolayout.test2.TestRecursive").Dyn.Descriptor()
	group, leaf := md.Fields().ByName("recursivegroup"), md.Fields().ByName("leaf")
	inner := group.Message().Fields().ByName("child")
	m := dynamic.NewMessage(md)
	g := m.Mutable(group).Message()
	m.Set(leaf, protoreflect.ValueOfString("aaaa")) // a oneof member: written after the group
	engine.SetBetweenPasses(func(*dynamic.Message) {
		g.Mutable(inner)                              // two bytes more in the group: key and length 0
		m.Set(leaf, protoreflect.ValueOfString("aa")) // two bytes less after it
	})
	prefix := []byte{9}
	got, _, handled := engine.DirectAppend(prefix, m, directOptions(false))
	engine.SetBetweenPasses(nil)
	if handled || !bytes.Equal(got, prefix) {
		t.Errorf("% x, handled %v; want the prefix, not handled", got, handled)
	}
	// Unchanged, the same message is written.
	if _, _, handled := engine.DirectAppend(prefix, m, directOptions(false)); !handled {
		t.Error("the group, unchanged: not handled")
	}
}

// TestCachedSizes checks Marshal with MarshalUseCachedSize, as
// proto.Marshal calls it after Size: it writes with the sizes Size left,
// and when the message changed in between (its sizes are then not its
// own), or changed in a way the direct encoder does not take (an
// extension set after an encoding), it counts again rather than write
// stale lengths or drop the change.
func TestCachedSizes(t *testing.T) {
	md := protobuftest.TwinByName("protolayout.test2.TestRecursive").Dyn.Descriptor()
	fields := md.Fields()
	leaf, child := fields.ByName("leaf"), fields.ByName("child")
	m := dynamic.NewMessage(md)
	inner := m.Mutable(child).Message()
	inner.Set(leaf, protoreflect.ValueOfString("abc"))
	methods := m.ProtoMethods()
	marshalCached := func() []byte {
		t.Helper()
		out, err := methods.Marshal(protoiface.MarshalInput{Message: m, Flags: protoiface.MarshalUseCachedSize})
		if err != nil {
			t.Fatal(err)
		}
		return out.Buf
	}
	methods.Size(protoiface.SizeInput{Message: m})
	want, _ := proto.Marshal(m)
	if got := marshalCached(); !bytes.Equal(got, want) {
		t.Fatalf("cached: % x, want % x", got, want)
	}
	methods.Size(protoiface.SizeInput{Message: m})
	inner.Set(leaf, protoreflect.ValueOfString("abcdefgh"))
	got := marshalCached()
	want, _ = encoder.Marshal(m)
	if !bytes.Equal(got, want) {
		t.Fatalf("changed after Size: % x, want % x", got, want)
	}

	// An extension set after an encoding is written.
	extended := scalarExtended()
	if len(extended) == 0 {
		t.Fatal("no test message type with a scalar extension")
	}
	{
		tw := extended[0]
		xd := tw.DynExts[0].TypeDescriptor().Descriptor()
		x := dynamic.NewMessage(tw.Dyn.Descriptor())
		twin := dynamicpb.NewMessage(tw.Dyn.Descriptor())
		if _, err := proto.Marshal(x); err != nil {
			t.Fatal(err)
		}
		xt := dynamic.NewExtensionType(xd)
		x.Set(xt.TypeDescriptor(), xd.Default())
		twin.Set(tw.DynExts[0].TypeDescriptor(), xd.Default())
		got, err := proto.MarshalOptions{AllowPartial: true}.Marshal(x)
		want, _ := proto.MarshalOptions{AllowPartial: true}.Marshal(twin)
		if err != nil || !bytes.Equal(got, want) || len(want) == 0 {
			t.Fatalf("%v: an extension set after an encoding: % x, %v; want % x", tw.Name, got, err, want)
		}
	}
}

// TestDirectConcurrent checks that goroutines encoding one message at
// the same time (each stamping its sizes in the messages) all get its
// bytes, through proto.Marshal, proto.Size and a reused Encoder each. CI
// runs it under the race detector.
func TestDirectConcurrent(t *testing.T) {
	tw := protobuftest.TwinByName("protolayout.test3.TestAllTypes")
	_, dyn := dyntest.Filled(tw, 5, protobuftest.RandOptions{MaxDepth: 4})
	want, err := deterministic.Marshal(dyn)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e := encoder.NewEncoder(encoder.MarshalOptions{Deterministic: true})
			for range 50 {
				a, err1 := deterministic.Marshal(dyn)
				b, err2 := e.Marshal(dyn)
				if err1 != nil || err2 != nil || !bytes.Equal(a, want) || !bytes.Equal(b, want) || proto.Size(dyn) != len(want) {
					errs <- errors.Join(errors.New("concurrent encodings differ"), err1, err2)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestDirectDeeperThanItFollows checks that a message deeper than the
// direct encoder follows, under a MaxDepth that allows it, is encoded by
// the walk: the same bytes as its dynamicpb twin's.
func TestDirectDeeperThanItFollows(t *testing.T) {
	const depth = 12000
	m, child := dyntest.Recursive(t, depth)
	twin := dynamicpb.NewMessage(m.Descriptor())
	for cur, tcur := protoreflect.Message(m), protoreflect.Message(twin); cur.Has(child); {
		cur = cur.Get(child).Message()
		tcur = tcur.Mutable(child).Message()
	}
	o := encoder.MarshalOptions{MaxDepth: depth}
	got, err := o.Marshal(m)
	want, werr := o.Marshal(twin)
	if err != nil || werr != nil || !bytes.Equal(got, want) {
		t.Fatalf("%d levels: %d bytes, %v; want %d bytes, %v", depth, len(got), err, len(want), werr)
	}
}

// TestDirectMapScratchBounded checks what the direct encoder keeps between
// calls for sorting map entries: the entries of a map of 100 are kept
// for the next call, those of a map of 10,000 are not, and what is kept is
// at most 176 KiB, as the encoder's documentation says.
func TestDirectMapScratchBounded(t *testing.T) {
	if n := engine.MapEntryBytes * engine.MaxKeptEntries; n > 176<<10 {
		t.Fatalf("up to %d bytes of map entries kept, more than 176 KiB", n)
	}
	md := protobuftest.TwinByName("protolayout.test3.TestAllTypes").Dyn.Descriptor()
	fd := md.Fields().ByName("map_int32_int32")
	for _, c := range []struct {
		entries int
		kept    bool
	}{{100, true}, {10000, false}} {
		m := dynamic.NewMessage(md)
		mp := m.Mutable(fd).Map()
		for i := range c.entries {
			mp.Set(protoreflect.ValueOfInt32(int32(i)).MapKey(), protoreflect.ValueOfInt32(1))
		}
		var state engine.State
		if _, _, handled := engine.DirectAppendState(&state, nil, m, directOptions(true)); !handled {
			t.Fatalf("%d entries: not handled", c.entries)
		}
		if kept := engine.KeptEntries(&state); kept > engine.MaxKeptEntries || (kept > 0) != c.kept {
			t.Errorf("a map of %d entries: %d kept", c.entries, kept)
		}
	}
}

// TestCopiedMessage checks the pattern Connect's initializers use with
// dynamicpb: a new Message copied into a variable (*m =
// *dynamic.NewMessage(md)), then filled and encoded, as its dynamicpb
// twin is.
func TestCopiedMessage(t *testing.T) {
	tw := protobuftest.TwinByName("protolayout.test3.TestAllTypes")
	m := new(dynamic.Message)
	*m = *dynamic.NewMessage(tw.Dyn.Descriptor())
	protobuftest.Fill(m, 7, protobuftest.RandOptions{})
	twin := tw.Dyn.New()
	protobuftest.Fill(twin, 7, protobuftest.RandOptions{})
	got, err := deterministic.Marshal(m)
	want, werr := deterministic.Marshal(twin.Interface())
	if err != nil || werr != nil || !bytes.Equal(got, want) || len(want) == 0 {
		t.Fatalf("a copied new Message: %v, %v\n%s", err, werr, protobuftest.FirstDiff(got, want, tw.Dyn.Descriptor()))
	}
}
