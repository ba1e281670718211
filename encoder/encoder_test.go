package encoder_test

import (
	"bytes"
	"runtime"
	"sync"
	"testing"
	"weak"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/protobuftest"
	"github.com/protolayout/protolayout/protobuftest/gen/test3pb"
)

// raceEnabled is set by race_test.go under the race detector, which
// allocates on its own.
var raceEnabled bool

// A reused Encoder appending into a buffer with room allocates nothing per
// call for dynamic messages: maps, oneofs, extensions and unknown fields
// included.
func TestEncoderZeroAllocsDynamic(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	for _, name := range []protoreflect.FullName{
		"protolayout.test3.TestAllTypes",
		"protolayout.test2.TestAllTypes",
		"protolayout.test2.TestAllExtensions",
		"protolayout.testeditions.TestAllTypes",
	} {
		tw := protobuftest.TwinByName(name)
		_, d := protobuftest.NewPair(tw.Gen, tw.Dyn, tw.GenExts, tw.DynExts, 7, protobuftest.RandOptions{MaxDepth: 3, MaxList: 6, Unknown: true})
		enc := encoder.NewEncoder(encoder.MarshalOptions{Deterministic: true})
		buf, err := enc.MarshalAppend(nil, d)
		if err != nil {
			t.Fatal(err)
		}
		if len(buf) < 100 {
			t.Fatalf("%s: only %d bytes; the case is too small to mean anything", name, len(buf))
		}
		allocs := testing.AllocsPerRun(50, func() {
			buf, err = enc.MarshalAppend(buf[:0], d)
		})
		if err != nil || allocs != 0 {
			t.Errorf("%s: %v allocations per call (err %v)", name, allocs, err)
		}
	}
}

// Package-level calls from many goroutines, on the same and different
// messages and descriptors, first use included, agree with the reference.
func TestConcurrentUse(t *testing.T) {
	// Fresh runtime loads, so that layouts are built during the test.
	files, err := protobuftest.LoadFiles()
	if err != nil {
		t.Fatal(err)
	}
	var msgs []proto.Message
	var want [][]byte
	for i, tw := range protobuftest.Twins() {
		if i%3 != 0 {
			continue
		}
		g, _ := protobuftest.NewPair(tw.Gen, tw.Dyn, tw.GenExts, tw.DynExts, uint64(i), protobuftest.RandOptions{MaxDepth: 2})
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(g)
		if err != nil {
			t.Fatal(err)
		}
		d, err := files.FindDescriptorByName(tw.Name)
		if err != nil {
			t.Fatal(err)
		}
		dm := dynamicpb.NewMessage(d.(protoreflect.MessageDescriptor))
		if err := (proto.UnmarshalOptions{Resolver: protobuftest.DynamicTypes()}).Unmarshal(b, dm); err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, g, dm)
		want = append(want, b, b)
	}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			opts := encoder.MarshalOptions{Deterministic: true}
			enc := encoder.NewEncoder(opts)
			for i := range 4 * len(msgs) {
				k := (i + w*7) % len(msgs)
				var got []byte
				var err error
				if i%2 == 0 {
					got, err = opts.Marshal(msgs[k])
				} else {
					got, err = enc.Marshal(msgs[k])
				}
				if err != nil || !bytes.Equal(got, want[k]) {
					t.Errorf("goroutine %d, message %d: %v", w, k, err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// After a call, nothing the caller passed stays reachable from a reused
// Encoder, whether the call succeeded or failed in the middle of a list or
// a map.
func TestEncoderRetainsNothing(t *testing.T) {
	enc := encoder.NewEncoder(encoder.MarshalOptions{})
	for _, bad := range []bool{false, true} {
		ptr := func() weak.Pointer[test3pb.TestAllTypes] {
			m := &test3pb.TestAllTypes{
				RepeatedNestedMessage:  []*test3pb.TestAllTypes_NestedMessage{{A: 1}, {A: 2}},
				MapStringNestedMessage: map[string]*test3pb.TestAllTypes_NestedMessage{"a": {}, "b": {}},
			}
			if bad {
				m.MapStringNestedMessage["b"].Corecursive = &test3pb.TestAllTypes{SingularString: "\xff"}
			}
			_, err := enc.Marshal(m)
			if (err != nil) != bad {
				t.Fatalf("bad=%v: %v", bad, err)
			}
			return weak.Make(m)
		}()
		for range 3 {
			runtime.GC()
		}
		if ptr.Value() != nil {
			t.Errorf("bad=%v: message reachable after the call", bad)
		}
	}
}
