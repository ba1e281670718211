package benchreport

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/protobuftest"
	"github.com/protolayout/protolayout/protobuftest/gen/test3pb"
)

// fixed returns a contestant whose every output is out.
func fixed(name string, check Check, out []byte) Contestant {
	return Contestant{Name: name, Check: check, Encode: func(int) ([]byte, error) { return out, nil }}
}

// nestedStruct is a Struct with maps at three depths, each of several
// entries.
func nestedStruct(t testing.TB) *structpb.Struct {
	t.Helper()
	s, err := structpb.NewStruct(map[string]any{
		"a": 1.0, "b": "two", "c": true, "d": nil,
		"inner": map[string]any{"x": 1.0, "y": 2.0, "z": map[string]any{"p": "q", "r": "s", "t": []any{1.0, "u"}}},
		"list":  []any{map[string]any{"k1": 1.0, "k2": 2.0, "k3": 3.0}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestVerifyCatches checks that Verify rejects wrong output, byte for
// byte, by decoding and by digest, and names the case and the message.
func TestVerifyCatches(t *testing.T) {
	w, err := NewWorkload("w", "", []proto.Message{&test3pb.TestAllTypes{SingularString: "hello", RepeatedInt32: []int32{1, 2, 3}}})
	if err != nil {
		t.Fatal(err)
	}
	ref := w.Ref(0)
	flipped := bytes.Clone(ref)
	flipped[len(flipped)-1] ^= 1
	digest := bytes.Clone(w.Digest(0))
	digest[0] ^= 1
	for _, tc := range []struct {
		name  string
		check Check
		out   []byte
		want  string
	}{
		{"exact/flipped", CheckExact, flipped, "first difference at offset"},
		{"exact/short", CheckExact, ref[:len(ref)-1], "equal up to the shorter"},
		{"decoded/flipped", CheckDecoded, flipped, "decodes to a different message"},
		{"decoded/short", CheckDecoded, ref[:len(ref)-1], "bytes, reference is"},
		{"digest/flipped", CheckDigest, digest, "but the message holds"},
		{"digest/encoding", CheckDigest, ref, "-byte digest"},
		{"uptomaps/flipped", CheckExactUpToMapOrder, flipped, "beyond map entry order"},
	} {
		c := &Case{Workload: w, Contestant: fixed(tc.name, tc.check, tc.out)}
		err := c.Verify()
		if err == nil {
			t.Errorf("%s: Verify accepted wrong output", tc.name)
			continue
		}
		if msg := err.Error(); !strings.HasPrefix(msg, "w/"+tc.name+": call 1: ") || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: error %q, want it to start with the case and call and contain %q", tc.name, msg, tc.want)
		}
	}
	c := &Case{Workload: w, Contestant: Contestant{Name: "fails", Encode: func(int) ([]byte, error) { return nil, errors.New("boom") }}}
	if err := c.Verify(); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("an encoding error: Verify says %v", err)
	}
	// The right output passes every check it should.
	for _, check := range []Check{CheckExact, CheckDecoded, CheckExactUpToMapOrder} {
		if err := (&Case{Workload: w, Contestant: fixed("ok", check, ref)}).Verify(); err != nil {
			t.Errorf("check %d: the reference itself fails: %v", check, err)
		}
	}
}

// TestVerifySecondCallAndMessage checks that Verify looks at the second
// pass and at every message, and names the message.
func TestVerifySecondCallAndMessage(t *testing.T) {
	msgs := []proto.Message{structpb.NewStringValue("a"), structpb.NewStringValue("b")}
	w, err := NewWorkload("two", "", msgs)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	c := &Case{Workload: w, Contestant: Contestant{Name: "stale", Check: CheckExact, Encode: func(i int) ([]byte, error) {
		calls++
		if calls == 4 { // the second pass's second message
			return w.Ref(0), nil
		}
		return w.Ref(i), nil
	}}}
	err = c.Verify()
	if err == nil || !strings.HasPrefix(err.Error(), "two/stale: call 2 message 1: ") {
		t.Errorf("Verify says %v, want the failure of call 2, message 1", err)
	}
}

// TestVerifyMapOrder checks that CheckExactUpToMapOrder accepts map
// entries in any order, at any depth, and nothing else out of order.
func TestVerifyMapOrder(t *testing.T) {
	s := nestedStruct(t)
	w, err := NewWorkload("maps", "", []proto.Message{s})
	if err != nil {
		t.Fatal(err)
	}
	ref := w.Ref(0)
	// The top-level map's entries, reversed.
	recs := records(t, ref)
	if len(recs) != 6 {
		t.Fatalf("%d top-level entries, want 6", len(recs))
	}
	reversed := slices.Clone(recs)
	slices.Reverse(reversed)
	// Non-deterministic encodings from proto.Marshal: the order differs
	// inside nested maps too, as often as the map iteration decides.
	var shuffled [][]byte
	for range 20 {
		b, err := proto.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		shuffled = append(shuffled, b)
	}
	// A nested map's entries swapped with a list's elements: not a map
	// order.
	list, err := proto.MarshalOptions{Deterministic: true}.Marshal(structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{structpb.NewNumberValue(1), structpb.NewStringValue("u")}}))
	if err != nil {
		t.Fatal(err)
	}
	swappedList, err := proto.MarshalOptions{Deterministic: true}.Marshal(structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{structpb.NewStringValue("u"), structpb.NewNumberValue(1)}}))
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(ref, list)
	if i < 0 {
		t.Fatal("the list is not in the encoding")
	}
	badList := slices.Concat(ref[:i], swappedList, ref[i+len(list):])
	for _, tc := range []struct {
		name string
		out  []byte
		ok   bool
	}{
		{"reference", ref, true},
		{"top-level entries reversed", bytes.Join(reversed, nil), true},
		{"list elements swapped in a nested message", badList, false},
		{"a byte changed", append(bytes.Clone(ref[:len(ref)-1]), ref[len(ref)-1]^1), false},
	} {
		c := &Case{Workload: w, Contestant: fixed(tc.name, CheckExactUpToMapOrder, tc.out)}
		if err := c.Verify(); (err == nil) != tc.ok {
			t.Errorf("%s: Verify says %v, want ok %v", tc.name, err, tc.ok)
		}
	}
	differ := 0
	for _, b := range shuffled {
		if !bytes.Equal(b, ref) {
			differ++
		}
		if err := (&Case{Workload: w, Contestant: fixed("proto.Marshal", CheckExactUpToMapOrder, b)}).Verify(); err != nil {
			t.Errorf("proto.Marshal's order: %v", err)
		}
	}
	if differ == 0 {
		t.Error("proto.Marshal wrote the deterministic order 20 times; the test checks nothing")
	}
}

// records splits b into its top-level field records.
func records(t *testing.T, b []byte) [][]byte {
	t.Helper()
	var recs [][]byte
	for len(b) > 0 {
		_, _, n := protowire.ConsumeField(b)
		if n < 0 {
			t.Fatal("the encoding does not parse")
		}
		recs = append(recs, b[:n])
		b = b[n:]
	}
	return recs
}

// TestSortedMapsGroupsAndExtensions checks sortedMaps on random messages
// of every test schema, groups, extensions and unknown fields included:
// protolayout's order without Deterministic and the deterministic one
// sort to the same bytes, and the length never changes.
func TestSortedMapsGroupsAndExtensions(t *testing.T) {
	res := protobuftest.DynamicTypes()
	differ := 0
	for _, tw := range protobuftest.Twins() {
		_, dyn := twinMessages(tw, 3)
		for seed, d := range dyn {
			det, err := proto.MarshalOptions{Deterministic: true}.Marshal(d)
			if err != nil {
				t.Fatal(err)
			}
			plain, err := encoder.Marshal(d)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(det, plain) {
				differ++
			}
			md := d.ProtoReflect().Descriptor()
			a, b := sortedMaps(det, md, res), sortedMaps(plain, md, res)
			if len(a) != len(det) || len(b) != len(plain) {
				t.Fatalf("%s seed %d: the length changed", tw.Name, seed)
			}
			if !bytes.Equal(a, b) {
				t.Errorf("%s seed %d: the deterministic and the plain encodings sort differently: %s", tw.Name, seed, describeDiff(b, a))
			}
		}
	}
	if differ == 0 {
		t.Error("no encoding differed from the deterministic one; the test checks nothing")
	}
}
