package engine_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/runtime/protoiface"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/dynamic"
	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/internal/engine"
	"github.com/protolayout/protolayout/internal/fault"
	"github.com/protolayout/protolayout/protobuftest"
)

// mapChain builds a TestRecursive (proto3) nested through its map
// by_name, levels maps deep, each of width entries keyed "k0".."k<width-1>":
// one entry (of a key drawn from r) leads on, and each other holds a
// leaf, of invalid UTF-8 where bad(level, key) says. With shared, every
// entry of a map holds the same message, the next level: a shared subtree
// at every level. The last level's leaf is invalid. The message is built
// for newMessage's storage.
func mapChain[M interface{ ProtoReflect() protoreflect.Message }](newMessage func() M, levels, width int, shared bool, r *rand.Rand, bad func(level, key int) bool) (protoreflect.Message, int) {
	newM := func() protoreflect.Message { return newMessage().ProtoReflect() }
	fields := newM().Descriptor().Fields()
	byName, leaf := fields.ByName("by_name"), fields.ByName("leaf")
	bottom := newM()
	bottom.Set(leaf, protoreflect.ValueOfString("end\xff"))
	m, entries := bottom, 0
	for level := levels - 1; level >= 0; level-- {
		parent := newM()
		mp := parent.Mutable(byName).Map()
		on := r.IntN(width)
		for k := range width {
			v := m
			if !shared && k != on {
				v = newM()
				s := "fine"
				if bad(level, k) {
					s = "bad\xfe"
				}
				v.Set(leaf, protoreflect.ValueOfString(s))
			}
			mp.Set(protoreflect.ValueOfString(fmt.Sprintf("k%d", k)).MapKey(), protoreflect.ValueOfMessage(v))
			entries++
		}
		m = parent
	}
	return m, entries
}

// TestMapFaultsNamedLinearly checks that, under Deterministic, the direct
// encoder names the first fault in key order of maps of many entries,
// nested, as the walk (over the dynamicpb twin) names it, without the
// walk, and that it sizes each entry at most once more while it looks
// for it (the work counted, not timed); and that a shared subtree that
// fails, reached again, is not counted again (the encoder gives up, or
// names the walk's fault).
func TestMapFaultsNamedLinearly(t *testing.T) {
	md := protobuftest.TwinByName("protolayout.test3.TestRecursive").Dyn.Descriptor()
	sized, limit := 0, 0
	engine.SetOnEarlier(func() {
		// Checked as it counts: counted per path, the work would not end.
		if sized++; sized > limit {
			t.Fatalf("more entries sized again to find the first fault than the %d the message holds", limit)
		}
	})
	defer engine.SetOnEarlier(nil)
	opts := engine.Options{Deterministic: true, MaxDepth: encoder.DefaultMaxDepth, MaxSize: encoder.DefaultMaxSize}
	faults := []struct {
		name string
		bad  func(level, key int) bool
	}{
		{"only at the bottom", func(int, int) bool { return false }},
		{"in every leaf", func(int, int) bool { return true }},
		{"in some leaves", func(level, key int) bool { return (level*7+key)%5 == 0 }},
		{"in the last keys", func(_, key int) bool { return key >= 6 }},
	}
	for _, f := range faults {
		for _, shared := range []bool{false, true} {
			if shared && f.bad(0, 6) {
				continue // no leaves: one case is enough
			}
			for seed := range uint64(40) {
				levels, width := 1+int(seed%48), 2+int(seed%7)
				if shared {
					levels = 1 + int(seed%24) // 2^24 counts, counted per path
				}
				name := fmt.Sprintf("%s, shared %v, %d levels of %d entries, seed %d", f.name, shared, levels, width, seed)
				m, entries := mapChain(func() *dynamic.Message { return dynamic.NewMessage(md) }, levels, width, shared, rand.New(rand.NewPCG(seed, 1)), f.bad)
				twin, _ := mapChain(func() *dynamicpb.Message { return dynamicpb.NewMessage(md) }, levels, width, shared, rand.New(rand.NewPCG(seed, 1)), f.bad)
				_, wantErr := encoder.MarshalOptions{Deterministic: true}.Marshal(twin.Interface())
				var want *encoder.Error
				if !errors.As(wantErr, &want) || !errors.Is(wantErr, encoder.ErrInvalidUTF8) {
					t.Fatalf("%s: the walk gives %v", name, wantErr)
				}
				for range 3 { // map order differs from call to call
					var tr fault.Trail
					o := opts
					o.Trail = &tr
					sized, limit = 0, entries
					_, _, handled := engine.DirectAppend(nil, m, o)
					c, lf, path := tr.Result(o.MaxSize)
					if handled || c == fault.OK && !shared {
						t.Fatalf("%s: handled %v, fault %v: not named", name, handled, c)
					}
					if c != fault.OK && (c != fault.InvalidUTF8 || lf.FullName != want.Field || path != want.Path) {
						t.Fatalf("%s: %v (%s) at %s; the walk: %v", name, c, lf.FullName, path, wantErr)
					}
				}
			}
		}
	}
}

// TestFailedStampNotCached checks that a message stamped failed by a
// deterministic call (its count failed inside a map of two entries) is
// not written with MarshalUseCachedSize from that stamp, which reads as
// a size past any limit: the write takes the full encoding, without
// reserving room for the stamped size.
func TestFailedStampNotCached(t *testing.T) {
	md := protobuftest.TwinByName("protolayout.test3.TestRecursive").Dyn.Descriptor()
	fields := md.Fields()
	// Each entry's value (level 3: the parent 1, the entry 2) holds a
	// child at level 4, past MaxDepth 3. The value of "a", the first
	// fault in key order, fails whatever the map order, and is stamped.
	parent := dynamic.NewMessage(md)
	var values []*dynamic.Message
	for _, k := range []string{"a", "b"} {
		v := dynamic.NewMessage(md)
		v.Mutable(fields.ByName("child")).Message().Mutable(fields.ByName("child")).Message().Set(fields.ByName("value"), protoreflect.ValueOfInt32(7))
		parent.Mutable(fields.ByName("by_name")).Map().Set(protoreflect.ValueOfString(k).MapKey(), protoreflect.ValueOfMessage(v))
		values = append(values, v)
	}
	if _, err := (encoder.MarshalOptions{Deterministic: true, MaxDepth: 3}).Marshal(parent); !errors.Is(err, encoder.ErrDepthExceeded) {
		t.Fatalf("the parent: %v, want ErrDepthExceeded", err)
	}
	for i, v := range values {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		// The fast-path method itself: proto.Marshal calls Size first.
		out, err := v.ProtoReflect().ProtoMethods().Marshal(protoiface.MarshalInput{Message: v.ProtoReflect(), Flags: protoiface.MarshalUseCachedSize})
		got := out.Buf
		runtime.ReadMemStats(&after)
		want, wantErr := encoder.Marshal(v) // after: it stamps v anew
		if wantErr != nil || err != nil || !bytes.Equal(got, want) {
			t.Errorf("value %d: % x, %v; want % x", i, got, err, want)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
			t.Errorf("value %d: %d bytes allocated to write %d", i, n, len(want))
		}
	}
}
