package benchreport

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/protobuftest/gen/test3pb"
)

// decodeWorkload is an unmarshal workload of two messages of
// test3.TestAllTypes.
func decodeWorkload(t testing.TB) *Workload {
	t.Helper()
	w, err := NewWorkload("decode", "", []proto.Message{
		&test3pb.TestAllTypes{SingularString: "hello", RepeatedInt32: []int32{1, 2, 3}, MapStringString: map[string]string{"a": "b", "c": "d"}},
		&test3pb.TestAllTypes{SingularBytes: []byte("world"), SingularNestedMessage: &test3pb.TestAllTypes_NestedMessage{A: 7}},
	})
	if err != nil {
		t.Fatal(err)
	}
	w.Family = FamilyUnmarshal
	return w
}

// refs returns the workload's reference encodings.
func refs(w *Workload) [][]byte {
	var out [][]byte
	for i := range w.Len() {
		out = append(out, w.Ref(i))
	}
	return out
}

// freshDescriptor returns a descriptor of md's type built anew from its
// file, so that it is not md.
func freshDescriptor(t testing.TB, md protoreflect.MessageDescriptor) protoreflect.MessageDescriptor {
	t.Helper()
	fd, err := protodesc.NewFile(protodesc.ToFileDescriptorProto(md.ParentFile()), protoregistry.GlobalFiles)
	if err != nil {
		t.Fatalf("rebuilding %s: %v", md.ParentFile().Path(), err)
	}
	out := fd.Messages().ByName(md.Name())
	if out == nil || out == md {
		t.Fatalf("no fresh descriptor of %s", md.FullName())
	}
	return out
}

// decodeCases are the generated and dynamicpb decoders of w, and a
// dynamicpb one over a descriptor of its own, compared with a dynamicpb
// decode of that descriptor.
func decodeCases(t testing.TB, w *Workload) []*Case {
	t.Helper()
	md := w.Message(0).ProtoReflect().Descriptor()
	fresh := freshDescriptor(t, md)
	var twins []proto.Message
	for i := range w.Len() {
		m := dynamicpb.NewMessage(fresh)
		if err := proto.Unmarshal(w.Ref(i), m); err != nil {
			t.Fatal(err)
		}
		twins = append(twins, m)
	}
	data := refs(w)
	return []*Case{
		{Workload: w, Contestant: ProtoUnmarshal(BaseUnmarshalGenerated, proto.UnmarshalOptions{},
			func() proto.Message { return new(test3pb.TestAllTypes) }, data, EqualReference(w))},
		{Workload: w, Contestant: ProtoUnmarshal(BaseUnmarshalDynamicpb, proto.UnmarshalOptions{},
			func() proto.Message { return dynamicpb.NewMessage(md) }, data, EqualReference(w))},
		{Workload: w, Contestant: ProtoUnmarshal("unmarshal/fresh", proto.UnmarshalOptions{},
			func() proto.Message { return dynamicpb.NewMessage(fresh) }, data, func(i int) proto.Message { return twins[i] })},
	}
}

// TestVerifyDecoders checks that decoders that decode right pass, and
// that Verify catches one that loses a field, one compared with a message
// of another descriptor, an error, and a decoder set up wrong.
func TestVerifyDecoders(t *testing.T) {
	w := decodeWorkload(t)
	cases := decodeCases(t, w)
	for _, c := range cases {
		if err := c.Verify(); err != nil {
			t.Errorf("%v", err)
		}
	}
	good := cases[0].Contestant
	lossy := good
	lossy.Name = "lossy"
	lossy.Decode = func(i int) (proto.Message, error) {
		m, err := good.Decode(i)
		if err == nil && i == 1 {
			m.(*test3pb.TestAllTypes).SingularNestedMessage = nil
		}
		return m, err
	}
	unequal := good
	unequal.Name = "unequal"
	unequal.Equal = func(i int) proto.Message { return w.Message(1 - i) }
	otherDesc := cases[2].Contestant
	otherDesc.Name = "other-descriptor"
	otherDesc.Equal = EqualReference(w)
	failing := good
	failing.Name = "failing"
	failing.Decode = func(int) (proto.Message, error) { return nil, errors.New("boom") }
	nilMsg := good
	nilMsg.Name = "nil"
	nilMsg.Decode = func(int) (proto.Message, error) { return nil, nil }
	noEqual := good
	noEqual.Name = "no-equal"
	noEqual.Equal = nil
	wrongCheck := good
	wrongCheck.Name = "wrong-check"
	wrongCheck.Check = CheckExact
	noDecode := Contestant{Name: "no-decode", Check: CheckDecodedMessage, Encode: func(i int) ([]byte, error) { return w.Ref(i), nil }}
	for _, tc := range []struct {
		ct   Contestant
		want string
	}{
		{lossy, "call 1 message 1: the decoded message encodes differently"},
		{lossy, "; first difference at line 2 of the text format: "},
		{unequal, "call 1 message 0: the decoded message differs from the one it must equal: first difference at line 1 of the text format: "},
		{otherDesc, "another descriptor"},
		{failing, "boom"},
		{nilMsg, "nil message"},
		{noEqual, "without Equal"},
		{wrongCheck, "must be checked with CheckDecodedMessage"},
		{noDecode, "without Decode"},
	} {
		err := (&Case{Workload: w, Contestant: tc.ct}).Verify()
		if err == nil || !strings.HasPrefix(err.Error(), "decode/"+tc.ct.Name+": ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Verify says %v, want %q", tc.ct.Name, err, tc.want)
		}
	}
}

// TestVerifyValidators checks the canonical checker as a contestant of
// the unmarshal family (it accepts the reference encodings, which are
// canonical), and that verification catches a validator that refuses
// them, one that accepts anything, and a contestant set up wrong.
func TestVerifyValidators(t *testing.T) {
	w := decodeWorkload(t)
	checker := CanonicalChecker("check/canonical", w, encoder.Canonical)
	c := &Case{Workload: w, Contestant: checker}
	if err := c.Verify(); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(append(decodeCases(t, w)[:2], c), Options{Count: 2, Benchtime: "3x", Held: 2})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Workloads[0].Results[2]; r.Contestant != "check/canonical" || r.NsPerOp <= 0 || r.VsUnmarshalGenerated <= 0 || r.HeldBytesPerOp != nil {
		t.Errorf("the checker's result: %s, ns/op %v, vs generated %v, held %v", r.Contestant, r.NsPerOp, r.VsUnmarshalGenerated, r.HeldBytesPerOp)
	}
	signing := CanonicalChecker("signing", w, encoder.Signing)
	lax := checker
	lax.Name = "lax"
	lax.Accept = func([]byte, int) error { return nil }
	wrongCheck := checker
	wrongCheck.Name = "wrong-check"
	wrongCheck.Check = CheckExact
	noAccept := Contestant{Name: "no-accept", Check: CheckAccepted, Encode: func(i int) ([]byte, error) { return w.Ref(i), nil }}
	for _, tc := range []struct {
		ct   Contestant
		want string
	}{
		{signing, "call 1 message 0: refuses the reference encoding: "}, // a map: refused under Signing
		{lax, "call 1 message 0: accepts the reference encoding with its first key written in one byte more"},
		{wrongCheck, "must be checked with CheckAccepted"},
		{noAccept, "without Accept"},
	} {
		err := (&Case{Workload: w, Contestant: tc.ct}).Verify()
		if err == nil || !strings.HasPrefix(err.Error(), "decode/"+tc.ct.Name+": ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Verify says %v, want %q", tc.ct.Name, err, tc.want)
		}
	}
	if b, ok := padFirstKey(nil); ok || b != nil {
		t.Errorf("padFirstKey(nil) = % x, %v", b, ok)
	}
	if b, _ := padFirstKey([]byte{0x08, 0x01}); !bytes.Equal(b, []byte{0x88, 0x00, 0x01}) {
		t.Errorf("padFirstKey(08 01) = % x, want 88 00 01", b)
	}
}

// TestHeldBytes checks the memory held on a message of a 1 MiB bytes
// field, which proto.Unmarshal copies: at least the input, and not much
// more; on a decoder that returns one message again and again, next to
// nothing; and the errors.
func TestHeldBytes(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory is on the heap's side")
	}
	data, err := proto.Marshal(wrapperspb.Bytes(bytes.Repeat([]byte{'x'}, 1<<20)))
	if err != nil {
		t.Fatal(err)
	}
	decode := func() (proto.Message, error) {
		m := new(wrapperspb.BytesValue)
		return m, proto.Unmarshal(data, m)
	}
	held, err := HeldBytes(decode, 4)
	if err != nil {
		t.Fatal(err)
	}
	if held < float64(len(data)) || held > 1.5*float64(len(data)) {
		t.Errorf("a decoded 1 MiB bytes field holds %.0f bytes, want from %d to 1.5 times that", held, len(data))
	}
	same := new(wrapperspb.BytesValue)
	if err := proto.Unmarshal(data, same); err != nil {
		t.Fatal(err)
	}
	held, err = HeldBytes(func() (proto.Message, error) { return same, nil }, 4)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(held) > 4096 {
		t.Errorf("a decoder that returns the same message holds %.0f bytes a call, want about 0", held)
	}
	if _, err := HeldBytes(decode, 0); err == nil {
		t.Error("HeldBytes of 0 messages succeeded")
	}
	if _, err := HeldBytes(func() (proto.Message, error) { return nil, errors.New("boom") }, 2); err == nil || err.Error() != "boom" {
		t.Errorf("a failing decoder: %v", err)
	}
	if _, err := HeldBytes(func() (proto.Message, error) { return nil, nil }, 2); err == nil {
		t.Error("a decoder of nil messages was measured")
	}
	c := &Case{Workload: decodeWorkload(t), Contestant: Contestant{Name: "reuses", Check: CheckDecodedMessage, Decode: func(int) (proto.Message, error) { return same, nil }}}
	if _, err := c.HeldBytes(0); err == nil {
		t.Error("Case.HeldBytes measured a decoder whose messages cannot be held")
	}
}

// TestRunDecoders times the decoders in two rounds and checks their
// ratios to the unmarshal family's baselines, the memory held (measured
// only where the messages can be held), the table and the JSON.
func TestRunDecoders(t *testing.T) {
	w := decodeWorkload(t)
	cases := decodeCases(t, w)
	shared := cases[1].Contestant
	shared.Name = "unmarshal/reused"
	m := dynamicpb.NewMessage(w.Message(0).ProtoReflect().Descriptor())
	shared.Decode = func(i int) (proto.Message, error) { return m, proto.Unmarshal(w.Ref(i), m) }
	shared.Holds = false
	cases = append(cases, &Case{Workload: w, Contestant: shared})
	rep, err := Run(cases, Options{Count: 2, Benchtime: "3x", Held: 2})
	if err != nil {
		t.Fatal(err)
	}
	res := rep.Workloads[0].Results
	if rep.Workloads[0].Family != FamilyUnmarshal || len(res) != 4 {
		t.Fatalf("family %q, %d results", rep.Workloads[0].Family, len(res))
	}
	gen, dyn := res[0].Rounds, res[1].Rounds
	for _, r := range res {
		if r.Iterations != 3 || len(r.Rounds) != 2 || r.NsPerOp <= 0 || r.AllocsPerOp <= 0 {
			t.Errorf("%s: iterations %d, rounds %v, ns/op %v, allocs/op %d", r.Contestant, r.Iterations, r.Rounds, r.NsPerOp, r.AllocsPerOp)
		}
		if want := (r.Rounds[0]/gen[0] + r.Rounds[1]/gen[1]) / 2; math.Abs(r.VsUnmarshalGenerated-want) > 1e-9*want || r.Ratio(BaseUnmarshalGenerated) != r.VsUnmarshalGenerated {
			t.Errorf("%s: vs generated %v, want %v", r.Contestant, r.VsUnmarshalGenerated, want)
		}
		if want := (r.Rounds[0]/dyn[0] + r.Rounds[1]/dyn[1]) / 2; math.Abs(r.VsUnmarshalDynamicpb-want) > 1e-9*want {
			t.Errorf("%s: vs dynamicpb %v, want %v", r.Contestant, r.VsUnmarshalDynamicpb, want)
		}
		if r.VsGenerated != 0 || r.VsDynamic != 0 || r.VsFloor != 0 || r.VsHandwritten != 0 {
			t.Errorf("%s: a ratio of another family", r.Contestant)
		}
		if held := r.HeldBytesPerOp != nil; held != (r.Contestant != "unmarshal/reused") {
			t.Errorf("%s: memory held measured: %v", r.Contestant, held)
		} else if held && *r.HeldBytesPerOp <= 0 && !raceEnabled {
			t.Errorf("%s: holds %v bytes", r.Contestant, *r.HeldBytesPerOp)
		}
	}
	var out bytes.Buffer
	if err := WriteText(&out, rep, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	var header, reused string
	for _, l := range lines {
		if strings.Contains(l, "contestant") {
			header = l
		}
		if strings.Contains(l, "unmarshal/reused") {
			reused = l
		}
	}
	for _, want := range []string{"vs unmarshal/generated", "vs unmarshal/dynamicpb", "held B/op"} {
		if !strings.Contains(header, want) {
			t.Errorf("the header lacks %q: %s", want, header)
		}
	}
	if strings.Contains(header, "vs floor") || strings.Contains(header, "vs proto/generated") || !strings.HasSuffix(reused, " -") {
		t.Errorf("the table:\n%s", out.String())
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"family":"unmarshal"`, `"vs_unmarshal_generated":`, `"vs_unmarshal_dynamicpb":`, `"held_bytes_per_op":`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("the JSON lacks %s", want)
		}
	}
	var back Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := WriteText(&again, &back, TextOptions{}); err != nil || again.String() != out.String() {
		t.Errorf("the JSON's table differs (%v):\n%s\nwant:\n%s", err, again.String(), out.String())
	}
}

// TestRunTolerates checks that a tolerated contestant whose output is
// wrong is timed, its failure kept in its result, marked in the table and
// kept in the JSON, while one not tolerated still fails the run.
func TestRunTolerates(t *testing.T) {
	w := decodeWorkload(t)
	cases := decodeCases(t, w)[:2]
	lossy := cases[0].Contestant
	lossy.Name = "unmarshal/lossy"
	lossy.Decode = func(i int) (proto.Message, error) {
		m := new(test3pb.TestAllTypes)
		err := proto.Unmarshal(w.Ref(i), m)
		m.SingularString = ""
		return m, err
	}
	bad := &Case{Workload: w, Contestant: lossy}
	if _, err := Run(append(cases, bad), Options{Count: 1, Benchtime: "1x"}); !errors.Is(err, ErrVerify) {
		t.Fatalf("an intolerable failure: Run says %v", err)
	}
	bad.Contestant.Tolerate = true
	rep, err := Run(append(cases, bad), Options{Count: 1, Benchtime: "1x", Held: 1})
	if err != nil {
		t.Fatal(err)
	}
	res := rep.Workloads[0].Results
	if res[0].Wrong != "" || !strings.Contains(res[2].Wrong, "decode/unmarshal/lossy: call 1 message 0: the decoded message encodes differently") || res[2].NsPerOp <= 0 {
		t.Fatalf("results: %q, %q, ns/op %v", res[0].Wrong, res[2].Wrong, res[2].NsPerOp)
	}
	var out bytes.Buffer
	if err := WriteText(&out, rep, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	if !strings.Contains(text, "\n  unmarshal/lossy (!)  ") || !strings.Contains(text, "\n  unmarshal/lossy (!) wrong output, timed all the same: decode/unmarshal/lossy: call 1") ||
		strings.Contains(text, "generated (!)") {
		t.Errorf("the table:\n%s", text)
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"wrong":"decode/unmarshal/lossy: call 1`)) || bytes.Count(b, []byte(`"wrong"`)) != 1 {
		t.Errorf("the JSON: %s", b)
	}
	// A tolerated contestant whose output is right is not marked.
	bad.Contestant = cases[1].Contestant
	bad.Contestant.Name, bad.Contestant.Tolerate = "unmarshal/fine", true
	rep, err = Run(append(cases, bad), Options{Count: 1, Benchtime: "1x", Held: 1})
	if err != nil || rep.Workloads[0].Results[2].Wrong != "" {
		t.Errorf("a tolerated right contestant: %v, %+v", err, rep)
	}
}
