package encoder_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/protobuftest"
)

// FuzzWriter fuzzes call sequences. The input picks a test schema message,
// a random message of it, an order (proto.Marshal's, or a canonical
// profile's) and a way of writing it (the replay walker's choices): that
// valid sequence must give proto.Marshal's bytes, or MarshalOptions'
// under the profile. Then one
// invalid call is inserted at a position the input picks; the Writer must
// fail at exactly that call with the documented error, write nothing
// more, and return that error from Finish.
func FuzzWriter(f *testing.F) {
	for i := range uint64(6) {
		var seed [24]byte
		binary.LittleEndian.PutUint64(seed[0:], i*7919)
		binary.LittleEndian.PutUint64(seed[8:], i*31)
		binary.LittleEndian.PutUint64(seed[16:], i)
		f.Add(seed[:])
	}
	twins := protobuftest.Twins()
	f.Fuzz(func(t *testing.T, in []byte) {
		var raw [24]byte
		copy(raw[:], in)
		seed := binary.LittleEndian.Uint64(raw[0:])
		pick := binary.LittleEndian.Uint64(raw[8:])
		cut := binary.LittleEndian.Uint64(raw[16:])
		tw := twins[pick%uint64(len(twins))]
		// The order and rules: proto.Marshal's, or a canonical profile's
		// (Signing's messages without maps and unknown fields).
		p := [...]encoder.Profile{0, encoder.Canonical, encoder.Signing}[seed/2%3]
		ro := protobuftest.RandOptions{MaxDepth: 2, Unknown: seed%2 == 0 && p != encoder.Signing, NoMaps: p == encoder.Signing}
		g, d := protobuftest.NewPair(tw.Gen, tw.Dyn, tw.GenExts, tw.DynExts, seed, ro)
		m, res := g, extResolver(false)
		if pick/uint64(len(twins))%2 == 1 {
			m, res = d, extResolver(true)
		}
		wo := encoder.WriterOptions{AllowPartial: true, Extensions: res, Lengths: strategies[seed%2], Canonical: p}
		calls := protobuftest.Calls(m, protobuftest.ReplayOptions{Seed: seed, Canonical: p})
		w := encoder.NewWriter(m.ProtoReflect().Descriptor(), wo)
		got, err := protobuftest.Replay(w, calls)
		want, wantErr := proto.MarshalOptions{Deterministic: true, AllowPartial: true}.Marshal(m)
		if p != 0 {
			want, wantErr = encoder.MarshalOptions{Canonical: p, AllowPartial: true}.Marshal(m)
		}
		if (err != nil) != (wantErr != nil) || !bytes.Equal(got, want) {
			t.Fatalf("valid sequence: got %v, want %v; differs at %s", err, wantErr,
				protobuftest.FirstDiff(got, want, m.ProtoReflect().Descriptor()))
		}

		// Insert one invalid call at position k.
		k := int(cut % uint64(len(calls)+1))
		w.Reset()
		stack := []protoreflect.MessageDescriptor{m.ProtoReflect().Descriptor()}
		for _, c := range calls[:k] {
			c.Apply(w)
			switch c.Op {
			case protobuftest.OpBegin, protobuftest.OpBeginEntryString, protobuftest.OpBeginEntryInt,
				protobuftest.OpBeginEntryUint, protobuftest.OpBeginEntryBool:
				fd := stack[len(stack)-1].Fields().ByNumber(c.Num)
				if fd == nil { // an extension
					xt, _ := res.FindExtensionByNumber(stack[len(stack)-1].FullName(), c.Num)
					fd = xt.TypeDescriptor()
				}
				stack = append(stack, fd.Message())
			case protobuftest.OpEnd:
				stack = stack[:len(stack)-1]
			}
		}
		if w.Err() != nil {
			t.Fatalf("valid prefix failed: %v", w.Err())
		}
		md := stack[len(stack)-1]
		bad, wantBad := badCall(md, len(stack)-1, cut)
		n := w.Len()
		bad.Apply(w)
		if !errors.Is(w.Err(), wantBad) {
			t.Fatalf("bad call %v at %d in %s: got %v, want %v", bad, k, md.FullName(), w.Err(), wantBad)
		}
		first := w.Err()
		for _, c := range calls[k:] {
			c.Apply(w)
			if w.Len() != n || w.Err() != first {
				t.Fatalf("call %v after the failure wrote or changed the error", c)
			}
		}
		if b, err := w.Finish(); err != first || b != nil {
			t.Fatalf("Finish after the failure: %v, %v", b, err)
		}
	})
}

// badCall returns an invalid call in a message of type md at depth and the
// error it must fail with.
func badCall(md protoreflect.MessageDescriptor, depth int, choice uint64) (protobuftest.Call, error) {
	switch choice / 7 % 3 {
	case 0:
		// A kind mismatch: Bool on the first field that is not a bool.
		fds := md.Fields()
		for i := range fds.Len() {
			if fd := fds.Get(i); fd.Kind() != protoreflect.BoolKind {
				return protobuftest.Call{Op: protobuftest.OpBool, Num: fd.Number()}, encoder.ErrKindMismatch
			}
		}
	case 1:
		// A number the message does not declare, outside its extension
		// ranges.
		const num = 536870911
		if md.Fields().ByNumber(num) == nil && !md.ExtensionRanges().Has(num) {
			return protobuftest.Call{Op: protobuftest.OpInt32, Num: num}, encoder.ErrUnknownField
		}
	}
	if depth == 0 {
		return protobuftest.Call{Op: protobuftest.OpEnd}, encoder.ErrEndWithoutBegin
	}
	return protobuftest.Call{Op: protobuftest.OpFinish}, encoder.ErrNotEnded
}

// extResolver returns the extension resolver of the generated or the
// dynamic twins.
func extResolver(dynamic bool) interface {
	FindExtensionByName(protoreflect.FullName) (protoreflect.ExtensionType, error)
	FindExtensionByNumber(protoreflect.FullName, protoreflect.FieldNumber) (protoreflect.ExtensionType, error)
} {
	if dynamic {
		return protobuftest.DynamicTypes()
	}
	return globalTypes
}
