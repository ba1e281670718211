package dynamic_test

import (
	"bytes"
	"errors"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/runtime/protoiface"

	"github.com/protolayout/protolayout/dynamic"
	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/internal/dyntest"
	"github.com/protolayout/protolayout/protobuftest"
)

// TestProtoMethodsIdentity checks that every Message returns the same
// methods, read-only ones included, offering Size and Marshal with
// deterministic output.
func TestProtoMethodsIdentity(t *testing.T) {
	md := protobuftest.TwinByName("protolayout.test3.TestAllTypes").Dyn.Descriptor()
	a, b := dynamic.NewMessage(md), dynamic.NewMessageType(md).Zero()
	pa, pb := a.ProtoMethods(), b.ProtoMethods()
	if pa == nil || pa != pb {
		t.Fatalf("ProtoMethods: %p and %p, want one non-nil pointer", pa, pb)
	}
	if pa.Size == nil || pa.Marshal == nil || pa.Flags&protoiface.SupportMarshalDeterministic == 0 {
		t.Fatalf("ProtoMethods lacks Size, Marshal or SupportMarshalDeterministic: %+v", pa)
	}
	if got, err := proto.Marshal(b.Interface()); err != nil || len(got) != 0 {
		t.Fatalf("Marshal of a read-only empty message: %x, %v", got, err)
	}
}

// TestMarshalMethods checks proto.Marshal, proto.Size and the encoder on
// dynamic messages of every test message type filled at random against
// their dynamicpb twins: byte for byte with Deterministic, up to the order
// of map entries without, Size equal to the length, MarshalAppend keeping
// its prefix, through the fast-path methods and through the encoder with
// Checked both ways; then protobuftest.Equivalent on the pair.
func TestMarshalMethods(t *testing.T) {
	types := dynamic.NewTypes(protobuftest.DynamicFiles())
	seeds := uint64(6)
	if testing.Short() {
		seeds = 2
	}
	for _, tw := range protobuftest.Twins() {
		t.Run(string(tw.Name), func(t *testing.T) {
			md := tw.Dyn.Descriptor()
			for seed := range seeds {
				dpb, dyn := dyntest.Filled(tw, seed, protobuftest.RandOptions{Unknown: true})
				want, err := deterministic.Marshal(dpb)
				if err != nil {
					t.Fatal(err)
				}
				check := func(name string, got []byte, err error) {
					t.Helper()
					if err != nil {
						t.Fatalf("seed %d: %s: %v", seed, name, err)
					}
					if !bytes.Equal(got, want) {
						t.Fatalf("seed %d: %s differs from dynamicpb's deterministic bytes:\n%s", seed, name, protobuftest.FirstDiff(got, want, md))
					}
				}
				got, err := deterministic.Marshal(dyn)
				check("proto deterministic", got, err)
				got, err = encoder.MarshalOptions{Deterministic: true}.Marshal(dyn)
				check("encoder deterministic", got, err)
				got, err = encoder.MarshalOptions{Deterministic: true, Checked: true}.Marshal(dyn)
				check("encoder deterministic checked", got, err)
				got, err = proto.MarshalOptions{Deterministic: true}.MarshalAppend([]byte("prefix"), dyn)
				if err != nil || !bytes.HasPrefix(got, []byte("prefix")) {
					t.Fatalf("seed %d: MarshalAppend: %q..., %v", seed, got[:min(len(got), 6)], err)
				}
				check("proto MarshalAppend", got[len("prefix"):], nil)

				canonical := protobuftest.CanonicalMaps(want, dpb)
				for name, marshal := range map[string]func(proto.Message) ([]byte, error){
					"proto.Marshal":   proto.Marshal,
					"encoder.Marshal": encoder.Marshal,
				} {
					got, err := marshal(dyn)
					if err != nil {
						t.Fatalf("seed %d: %s: %v", seed, name, err)
					}
					if got = protobuftest.CanonicalMaps(got, dyn); !bytes.Equal(got, canonical) {
						t.Fatalf("seed %d: %s differs from dynamicpb's bytes, map entries sorted:\n%s", seed, name, protobuftest.FirstDiff(got, canonical, md))
					}
				}

				for name, n := range map[string]int{
					"proto.Size":                     proto.Size(dyn),
					"proto.MarshalOptions.Size":      deterministic.Size(dyn),
					"encoder.Size":                   encoder.Size(dyn),
					"encoder.MarshalOptions.Size":    encoder.MarshalOptions{Checked: true}.Size(dyn),
					"ProtoMethods().Size, no flags":  dyn.ProtoReflect().ProtoMethods().Size(protoiface.SizeInput{Message: dyn.ProtoReflect()}).Size,
					"ProtoMethods().Size, UseCached": dyn.ProtoReflect().ProtoMethods().Size(protoiface.SizeInput{Message: dyn.ProtoReflect(), Flags: protoiface.MarshalUseCachedSize}).Size,
				} {
					if n != len(want) {
						t.Fatalf("seed %d: %s is %d, the encoding %d bytes", seed, name, n, len(want))
					}
				}
				protobuftest.Equivalent(t, protobuftest.CheckOptions{Deterministic: true}, types, dpb, dyn)
				protobuftest.Equivalent(t, protobuftest.CheckOptions{}, types, dpb, dyn)
			}
		})
	}
}

// isProtoError checks that err is an error of the proto package's kind
// and of the encoder's reason want.
func isProtoError(t *testing.T, name string, err, want error) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error, want %v", name, want)
	}
	if !errors.Is(err, proto.Error) || !errors.Is(err, want) {
		t.Fatalf("%s: %v, want errors.Is proto.Error and %v", name, err, want)
	}
}

// marshalers are the ways a dynamic message is encoded, which must all
// fail alike.
var marshalers = []struct {
	name    string
	marshal func(proto.Message) ([]byte, error)
}{
	{"proto.Marshal", proto.Marshal},
	{"proto deterministic", deterministic.Marshal},
	{"encoder.Marshal", encoder.Marshal},
	{"encoder checked", encoder.MarshalOptions{Checked: true}.Marshal},
	{"Encoder", encoder.NewEncoder(encoder.MarshalOptions{}).Marshal},
}

// TestMarshalErrors checks that invalid UTF-8 and missing required
// fields fail proto.Marshal and the encoder with errors that match
// proto.Error, and that AllowPartial lets the latter through.
func TestMarshalErrors(t *testing.T) {
	md := protobuftest.TwinByName("protolayout.test3.TestAllTypes").Dyn.Descriptor()
	m := dynamic.NewMessage(md)
	m.Set(md.Fields().ByName("singular_string"), protoreflect.ValueOfString("\xff"))
	for _, mr := range marshalers {
		b, err := mr.marshal(m)
		isProtoError(t, mr.name+" of invalid UTF-8", err, encoder.ErrInvalidUTF8)
		if len(b) != 0 {
			t.Fatalf("%s: %x beside the error", mr.name, b)
		}
	}

	rd := protobuftest.TwinByName("protolayout.test2.TestRequired").Dyn.Descriptor()
	r := dynamic.NewMessage(rd)
	for _, mr := range marshalers {
		if _, err := mr.marshal(r); err == nil || !errors.Is(err, proto.Error) {
			t.Fatalf("%s of a missing required field: %v, want a proto.Error", mr.name, err)
		}
	}
	for _, mr := range marshalers[2:] { // the encoder names the reason
		_, err := mr.marshal(r)
		isProtoError(t, mr.name+" of a missing required field", err, encoder.ErrRequiredNotSet)
	}
	// proto.CheckInitialized reads the storage (the decoder's method).
	if err := proto.CheckInitialized(r); err == nil || !errors.Is(err, proto.Error) {
		t.Fatalf("proto.CheckInitialized of a missing required field: %v", err)
	}
	want, err := proto.MarshalOptions{AllowPartial: true, Deterministic: true}.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	// proto.Unmarshal checks required fields too.
	if err := proto.Unmarshal(want, dynamic.NewMessage(rd)); err == nil || !errors.Is(err, proto.Error) {
		t.Fatalf("proto.Unmarshal of a message missing a required field: %v", err)
	}
	if err := (proto.UnmarshalOptions{AllowPartial: true}).Unmarshal(want, dynamic.NewMessage(rd)); err != nil {
		t.Fatalf("proto.Unmarshal with AllowPartial: %v", err)
	}
	if got, err := (encoder.MarshalOptions{AllowPartial: true, Deterministic: true}).Marshal(r); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("AllowPartial: %x, %v; want %x", got, err, want)
	}
}

// TestMarshalLimits checks that the fast-path methods keep the checked
// walk's limits: a message that contains itself fails with ErrCycle, one
// deeper than the depth limit with ErrDepthExceeded, through proto.Marshal
// and through the encoder, Checked or not (the encoder walks a dynamic
// message rather than calling its methods, which call the encoder: a
// recursion would overflow the stack on these), and proto.Size counts 0
// for them.
func TestMarshalLimits(t *testing.T) {
	deep, _ := dyntest.Recursive(t, encoder.DefaultMaxDepth+1)
	for _, mr := range marshalers {
		_, err := mr.marshal(deep)
		isProtoError(t, mr.name+" too deep", err, encoder.ErrDepthExceeded)
	}
	if n := proto.Size(deep); n != 0 {
		t.Fatalf("proto.Size too deep: %d, want 0", n)
	}
	ok, _ := dyntest.Recursive(t, encoder.DefaultMaxDepth)
	want := proto.Size(ok)
	for _, mr := range marshalers {
		if b, err := mr.marshal(ok); err != nil || len(b) != want {
			t.Fatalf("%s at the depth limit: %d bytes, %v; Size %d", mr.name, len(b), err, want)
		}
	}
	if _, err := (encoder.MarshalOptions{MaxDepth: 10}).Marshal(ok); !errors.Is(err, encoder.ErrDepthExceeded) {
		t.Fatalf("MaxDepth 10: %v", err)
	}

	cyclic, child := dyntest.Recursive(t, 3)
	last := cyclic.Get(child).Message().Get(child).Message()
	last.Set(child, protoreflect.ValueOfMessage(cyclic))
	for _, mr := range marshalers {
		_, err := mr.marshal(cyclic)
		isProtoError(t, mr.name+" of a cycle", err, encoder.ErrCycle)
	}
	if n := proto.Size(cyclic); n != 0 {
		t.Fatalf("proto.Size of a cycle: %d, want 0", n)
	}
}

// TestEncoderAllocs checks that a reused encoder.Encoder, appending into a
// buffer with room, allocates nothing to encode a dynamic message, which
// it reads from the storage: on messages of every test type filled at
// random.
func TestEncoderAllocs(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage counters allocate")
	}
	for _, tw := range protobuftest.Twins() {
		_, dyn := dyntest.Filled(tw, 3, protobuftest.RandOptions{Unknown: true})
		for _, det := range []bool{false, true} {
			e := encoder.NewEncoder(encoder.MarshalOptions{Deterministic: det})
			buf, err := e.MarshalAppend(nil, dyn)
			if err != nil {
				t.Fatal(err)
			}
			if n := testing.AllocsPerRun(20, func() {
				buf, err = e.MarshalAppend(buf[:0], dyn)
			}); n != 0 || err != nil {
				t.Errorf("%v (Deterministic %v): %.1f allocations per call, %v", tw.Name, det, n, err)
			}
		}
	}
}

// A nil *dynamic.Message carries no descriptor; the encoder encodes it as
// nothing, as it does a nil *dynamicpb.Message, wherever it is passed.
func TestNilMessageEncodesAsNothing(t *testing.T) {
	var m *dynamic.Message
	prefix := []byte{7}
	if b, err := encoder.Marshal(m); b != nil || err != nil {
		t.Errorf("Marshal(nil) = %v, %v", b, err)
	}
	if b, err := (encoder.MarshalOptions{Checked: true}).MarshalAppend(prefix, m); err != nil || !bytes.Equal(b, prefix) {
		t.Errorf("MarshalAppend(nil) = % x, %v", b, err)
	}
	if n := encoder.Size(m); n != 0 {
		t.Errorf("Size(nil) = %d", n)
	}
	enc := encoder.NewEncoder(encoder.MarshalOptions{})
	if n, err := enc.Size(m); n != 0 || err != nil {
		t.Errorf("Encoder.Size(nil) = %d, %v", n, err)
	}
	if b, err := enc.MarshalAppend(prefix, m); err != nil || !bytes.Equal(b, prefix) {
		t.Errorf("Encoder.MarshalAppend(nil) = % x, %v", b, err)
	}
}
