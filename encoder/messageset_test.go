package encoder_test

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/runtime/protoiface"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/internal/messagesetpb"
	"github.com/protolayout/protolayout/protobuftest"
)

// TestGeneratedMessageSet encodes generated MessageSet types (at the top
// and as a field; empty, with an item, with unknown items, with unknown
// data that is not an item) in both builds of protobuf-go. Where
// proto.Marshal's own methods produce consistent output (their Size equals
// what they write, and no error), the fast path returns the same bytes;
// where they do not (without protolegacy they size a MessageSet's unknown
// fields but do not write them, and proto.Marshal drops those fields at
// the top and fails with a size mismatch below it), the call fails with
// ErrMessageSet, the reflection path's refusal, never with
// ErrSizeMismatch, and appends nothing. Checked mode always refuses.
func TestGeneratedMessageSet(t *testing.T) {
	item := func(i int32) *messagesetpb.MessageSet {
		m := &messagesetpb.MessageSet{}
		proto.SetExtension(m, messagesetpb.E_MessageSetItem_MessageSetExtension, &messagesetpb.MessageSetItem{I: proto.Int32(i), S: proto.String("s")})
		return m
	}
	withUnknown := func(u []byte) *messagesetpb.MessageSet {
		m := item(3)
		m.ProtoReflect().SetUnknown(u)
		return m
	}
	unknownItem := protowire.AppendBytes(protowire.AppendTag(nil, 7, protowire.BytesType), []byte("xyz"))
	unknownVarint := protowire.AppendVarint(protowire.AppendTag(nil, 7, protowire.VarintType), 5)
	cases := []struct {
		name string
		m    proto.Message
		// lossy: proto.Marshal's methods disagree with themselves in
		// builds without protolegacy.
		lossy bool
	}{
		{"empty", &messagesetpb.MessageSet{}, false},
		{"an item", item(1), false},
		{"an unknown item", withUnknown(unknownItem), true},
		{"unknown data that is not an item", withUnknown(unknownVarint), true},
		{"as a field", &messagesetpb.MessageSetContainer{MessageSet: item(2), N: proto.Int32(4)}, false},
		{"as a field with an unknown item", &messagesetpb.MessageSetContainer{MessageSet: withUnknown(unknownItem)}, true},
	}
	sawLossy := false
	for _, c := range cases {
		want, perr := proto.Marshal(c.m)
		consistent := perr == nil && len(want) == proto.Size(c.m)
		if c.lossy && !protoLegacy {
			if consistent {
				t.Errorf("%s: proto.Marshal no longer drops the unknown fields of a MessageSet (% x); revisit this test", c.name, want)
			}
			sawLossy = true
		}
		prefix := []byte{0xff}
		for _, o := range []encoder.MarshalOptions{{Unchecked: true}, {Unchecked: true, Deterministic: true}} {
			got, err := o.MarshalAppend(prefix, c.m)
			if consistent {
				if err != nil || !bytes.Equal(got, append([]byte{0xff}, want...)) {
					t.Errorf("%s %+v: % x, %v; want proto.Marshal's % x", c.name, o, got, err, want)
				}
				continue
			}
			if !errors.Is(err, encoder.ErrMessageSet) || errors.Is(err, encoder.ErrSizeMismatch) || !bytes.Equal(got, prefix) {
				t.Errorf("%s %+v: % x, %v; want ErrMessageSet and nothing appended (proto.Marshal: % x, %v)", c.name, o, got, err, want, perr)
			}
			if _, err := encoder.NewEncoder(o).Marshal(c.m); !errors.Is(err, encoder.ErrMessageSet) {
				t.Errorf("%s %+v: Encoder.Marshal: %v; want ErrMessageSet", c.name, o, err)
			}
		}
		for _, o := range []encoder.MarshalOptions{{}, {Checked: true}, {Checked: true, Unchecked: true}} {
			if got, err := o.MarshalAppend(prefix, c.m); !errors.Is(err, encoder.ErrMessageSet) || !bytes.Equal(got, prefix) {
				t.Errorf("%s %+v: % x, %v; want ErrMessageSet", c.name, o, got, err)
			}
		}
	}
	if !protoLegacy && !sawLossy {
		t.Error("no case exercised the lossy fast path")
	}
}

// disagreeing is a message whose own fast-path methods misbehave: size
// reports what its Size method returns for the message m; its Marshal
// writes m's real encoding.
type disagreeing struct {
	protoreflect.Message
	size func() int
}

func (m *disagreeing) ProtoReflect() protoreflect.Message   { return m }
func (m *disagreeing) Interface() protoreflect.ProtoMessage { return m }
func (m *disagreeing) ProtoMethods() *protoiface.Methods {
	return &protoiface.Methods{
		Size: func(protoiface.SizeInput) protoiface.SizeOutput { return protoiface.SizeOutput{Size: m.size()} },
		Marshal: func(in protoiface.MarshalInput) (protoiface.MarshalOutput, error) {
			b, err := proto.MarshalOptions{}.MarshalAppend(in.Buf, m.Message.Interface())
			return protoiface.MarshalOutput{Buf: b}, err
		},
	}
}

// TestSizeMismatchDiagnosed checks what a fast path whose Marshal writes
// another size than its Size counted gives: ErrMethodsDisagree when the
// Size method still counts the same (the message did not change), and
// ErrSizeMismatch only when it counts another size (the message changed).
func TestSizeMismatchDiagnosed(t *testing.T) {
	mt := dynamicpb.NewMessageType(protobuftest.TwinByName("protolayout.test3.TestAllTypes").Dyn.Descriptor())
	base := mt.New()
	base.Set(base.Descriptor().Fields().ByName("optional_int32"), protoreflect.ValueOfInt32(150))
	n := proto.Size(base.Interface())

	steady := &disagreeing{Message: base, size: func() int { return n + 1 }}
	prefix := []byte("p")
	got, err := encoder.MarshalOptions{Unchecked: true}.MarshalAppend(prefix, steady)
	var e *encoder.Error
	if !errors.Is(err, encoder.ErrMethodsDisagree) || errors.Is(err, encoder.ErrSizeMismatch) || !errors.As(err, &e) || !bytes.Equal(got, prefix) {
		t.Fatalf("steady methods: % x, %v; want ErrMethodsDisagree", got, err)
	}
	text := fmt.Sprintf("protolayout: the message's Size and Marshal methods disagree: Size counted %d bytes, Marshal wrote %d in protolayout.test3.TestAllTypes", n+1, n)
	if err.Error() != text {
		t.Errorf("error text %q; want %q", err, text)
	}

	calls := 0
	changing := &disagreeing{Message: base, size: func() int { calls++; return n + calls }}
	if _, err := (encoder.MarshalOptions{Unchecked: true}).Marshal(changing); !errors.Is(err, encoder.ErrSizeMismatch) || errors.Is(err, encoder.ErrMethodsDisagree) {
		t.Errorf("changing size: %v; want ErrSizeMismatch", err)
	}
}
