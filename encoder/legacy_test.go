package encoder_test

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/protoadapt"

	"github.com/protolayout/protolayout/encoder"
)

// legacyV1 is a message as golang/protobuf v1 and gogo generated them: the
// v1 interface and a Marshal method, no protobuf-go methods of its own.
// protobuf-go wraps it with Marshal methods but no Size.
type legacyV1 struct {
	out []byte
	err error
}

func (m *legacyV1) Reset()                   { *m = legacyV1{} }
func (m *legacyV1) String() string           { return "legacyV1" }
func (*legacyV1) ProtoMessage()              {}
func (m *legacyV1) Marshal() ([]byte, error) { return bytes.Clone(m.out), m.err }

// TestLegacyMessages checks that a message whose methods offer Marshal but
// no Size is encoded by its own Marshal, as proto.Marshal encodes it, in
// default and Checked mode, with its error passed on.
func TestLegacyMessages(t *testing.T) {
	body := []byte{0x08, 0x96, 0x01, 0x12, 0x02, 'h', 'i'}
	m := protoadapt.MessageV2Of(&legacyV1{out: body})
	if pm := m.ProtoReflect().ProtoMethods(); pm == nil || pm.Marshal == nil || pm.Size != nil {
		t.Fatal("protobuf-go no longer wraps a v1 message with Marshal and without Size")
	}
	want, err := proto.Marshal(m)
	if err != nil || !bytes.Equal(want, body) {
		t.Fatalf("proto.Marshal = % x, %v", want, err)
	}
	for _, o := range []encoder.MarshalOptions{{}, {Checked: true}, {Deterministic: true}, {Checked: true, Deterministic: true}} {
		got, err := o.Marshal(m)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%+v: Marshal = % x, %v; want % x", o, got, err, want)
		}
		prefix := []byte("abc")
		got, err = o.MarshalAppend(prefix, m)
		if err != nil || !bytes.Equal(got, append([]byte("abc"), want...)) {
			t.Errorf("%+v: MarshalAppend = % x, %v", o, got, err)
		}
		if n := o.Size(m); n != len(want) {
			t.Errorf("%+v: Size = %d, want %d", o, n, len(want))
		}
		if n, err := encoder.NewEncoder(o).Size(m); n != len(want) || err != nil {
			t.Errorf("%+v: Encoder.Size = %d, %v", o, n, err)
		}
		if got, err := encoder.NewEncoder(o).Marshal(m); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%+v: Encoder.Marshal = % x, %v", o, got, err)
		}
		limited := o
		limited.MaxSize = len(want) - 1
		if got, err := limited.MarshalAppend(prefix, m); !errors.Is(err, encoder.ErrSizeExceeded) || !bytes.Equal(got, prefix) {
			t.Errorf("%+v: over MaxSize: % x, %v", limited, got, err)
		}
	}

	boom := errors.New("legacy marshal failed")
	bad := protoadapt.MessageV2Of(&legacyV1{out: body, err: boom})
	if _, err := proto.Marshal(bad); !errors.Is(err, boom) {
		t.Fatalf("proto.Marshal error %v", err)
	}
	for _, o := range []encoder.MarshalOptions{{}, {Checked: true}} {
		if got, err := o.MarshalAppend([]byte("x"), bad); !errors.Is(err, boom) || !errors.Is(err, proto.Error) || string(got) != "x" {
			t.Errorf("%+v: error not passed on: % x, %v", o, got, err)
		}
	}

	empty := protoadapt.MessageV2Of(&legacyV1{})
	if got, err := encoder.Marshal(empty); err != nil || got == nil || len(got) != 0 {
		t.Errorf("empty legacy message: %v, %v; want an empty, non-nil slice", got, err)
	}
}

// selfMarshaler is protobuf-go's self-marshaling message of
// proto/methods_test.go: a v1 message whose Marshal returns what it
// holds; descPanics also panics in its Descriptor method, as that file's
// descPanicSelfMarshaler does.
type selfMarshaler struct {
	bytes []byte
	err   error
}

func (m selfMarshaler) Reset()                   {}
func (m selfMarshaler) ProtoMessage()            {}
func (m selfMarshaler) String() string           { return "selfMarshaler" }
func (m selfMarshaler) Marshal() ([]byte, error) { return m.bytes, m.err }

type descPanics struct{ selfMarshaler }

func (m *descPanics) Descriptor() ([]byte, []int) { panic("Descriptor method panics") }

// marshalFailure is an error of a type of its own, for errors.As.
type marshalFailure struct{ code int }

func (e *marshalFailure) Error() string { return "marshal failure " + strconv.Itoa(e.code) }

// TestLegacyMarshalError checks that the error a legacy message's own
// Marshal returns comes back as an *Error, which errors.Is reports as
// proto.Error, like every other error of the package, and which still
// unwraps to the original error (errors.Is and errors.As), from every
// entry point, with nothing appended.
func TestLegacyMarshalError(t *testing.T) {
	original := &marshalFailure{code: 7}
	for _, v1 := range []protoadapt.MessageV1{
		&selfMarshaler{bytes: []byte("marshal"), err: original},
		&descPanics{selfMarshaler{bytes: []byte("marshal"), err: original}},
	} {
		m := protoadapt.MessageV2Of(v1)
		if pm := m.ProtoReflect().ProtoMethods(); pm == nil || pm.Marshal == nil || pm.Size != nil {
			t.Fatalf("%T: protobuf-go no longer wraps a v1 message with Marshal and without Size", v1)
		}
		// proto.Marshal passes the error on bare, and so is no
		// proto.Error.
		if _, err := proto.Marshal(m); err != original {
			t.Fatalf("%T: proto.Marshal error %v", v1, err)
		}
		check := func(how string, got []byte, err error, want []byte) {
			t.Helper()
			var e *encoder.Error
			var mf *marshalFailure
			if !errors.Is(err, proto.Error) || !errors.Is(err, original) ||
				!errors.As(err, &e) || e.Err != original || !errors.As(err, &mf) || mf != original {
				t.Errorf("%T, %s: error %v (%T), want an *encoder.Error wrapping the original, a proto.Error", v1, how, err, err)
			}
			if err != nil && !strings.Contains(err.Error(), original.Error()) {
				t.Errorf("%T, %s: %q does not say %q", v1, how, err, original)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%T, %s: % x returned, want % x", v1, how, got, want)
			}
		}
		for _, o := range []encoder.MarshalOptions{{}, {Unchecked: true}, {Checked: true}, {Deterministic: true}, {AllowPartial: true}} {
			got, err := o.Marshal(m)
			check(fmt.Sprintf("%+v Marshal", o), got, err, nil)
			prefix := []byte("prefix")
			got, err = o.MarshalAppend(prefix, m)
			check(fmt.Sprintf("%+v MarshalAppend", o), got, err, []byte("prefix"))
			got, err = encoder.NewEncoder(o).MarshalAppend(prefix, m)
			check(fmt.Sprintf("%+v Encoder.MarshalAppend", o), got, err, []byte("prefix"))
		}
	}
}

// TestLegacyCanonical checks that a canonical encoding of a legacy
// message, which only its own Marshal reads, fails with ErrNotCanonical
// from every entry point, with nothing appended.
func TestLegacyCanonical(t *testing.T) {
	m := protoadapt.MessageV2Of(&selfMarshaler{bytes: []byte("marshal")})
	for _, p := range []encoder.Profile{encoder.Canonical, encoder.Signing} {
		o := encoder.MarshalOptions{Canonical: p}
		if b, err := o.Marshal(m); !errors.Is(err, encoder.ErrNotCanonical) || b != nil {
			t.Errorf("%v Marshal: %q, %v; want ErrNotCanonical", p, b, err)
		}
		if b, err := encoder.NewEncoder(o).MarshalAppend([]byte("prefix"), m); !errors.Is(err, encoder.ErrNotCanonical) || string(b) != "prefix" {
			t.Errorf("%v Encoder.MarshalAppend: %q, %v; want ErrNotCanonical", p, b, err)
		}
		if n, err := encoder.NewEncoder(o).Size(m); !errors.Is(err, encoder.ErrNotCanonical) || n != 0 {
			t.Errorf("%v Encoder.Size: %d, %v; want ErrNotCanonical", p, n, err)
		}
		if n := o.Size(m); n != 0 {
			t.Errorf("%v Size: %d, want 0", p, n)
		}
	}
}
