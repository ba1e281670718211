package dynamic_test

import (
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/dynamic"
	"github.com/protolayout/protolayout/internal/dyntest"
	"github.com/protolayout/protolayout/protobuftest"
)

// strings collects every string and bytes value of m, at any depth,
// with a copy of each.
func collectStrings(m protoreflect.Message, out *[][2]string) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		add := func(v protoreflect.Value, k protoreflect.Kind) {
			switch k {
			case protoreflect.StringKind:
				*out = append(*out, [2]string{v.String(), strings.Clone(v.String())})
			case protoreflect.BytesKind:
				*out = append(*out, [2]string{string(v.Bytes()), string(v.Bytes())})
			case protoreflect.MessageKind, protoreflect.GroupKind:
				collectStrings(v.Message(), out)
			}
		}
		switch {
		case fd.IsList():
			l := v.List()
			for i := range l.Len() {
				add(l.Get(i), fd.Kind())
			}
		case fd.IsMap():
			v.Map().Range(func(_ protoreflect.MapKey, v protoreflect.Value) bool {
				add(v, fd.MapValue().Kind())
				return true
			})
		default:
			add(v, fd.Kind())
		}
		return true
	})
}

// One Decoder decodes random messages of every test type, of every size
// the generator makes, with every option, one after the other, as
// proto.Unmarshal decodes them into dynamicpb; the strings read from each
// message never change over the calls after it, and each message read
// before the next call is released by it.
func TestDecoderAgrees(t *testing.T) {
	seeds := uint64(8)
	if testing.Short() {
		seeds = 3
	}
	var d dynamic.Decoder
	var kept [][2]string
	var prev *dynamic.Message
	calls := 0
	for seed := range seeds {
		for _, tw := range protobuftest.Twins() {
			md := tw.Dyn.Descriptor()
			opts := protobuftest.RandOptions{Unknown: seed%2 == 0, Partial: seed%3 == 1, MaxDepth: 1 + int(seed%4)}
			src, _ := dyntest.Filled(tw, seed, opts)
			b, err := proto.MarshalOptions{AllowPartial: true}.Marshal(src)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range []proto.UnmarshalOptions{
				{},
				{AllowPartial: true},
				{DiscardUnknown: true, AllowPartial: true},
				{RecursionLimit: 1 + int(seed%5), AllowPartial: true},
			} {
				d.Options = dynamic.UnmarshalOptions{AllowPartial: o.AllowPartial, DiscardUnknown: o.DiscardUnknown,
					RecursionLimit: o.RecursionLimit, Resolver: decodeTypesDyn, MaxMemory: -1}
				o.Resolver = protobuftest.DynamicTypes()
				want := dynamicpb.NewMessage(md)
				errw := o.Unmarshal(b, want)
				got := dynamic.NewMessage(md)
				errg := d.Unmarshal(b, got)
				calls++
				if prev != nil && hasMessages(prev) {
					t.Fatalf("%v: a message decoded before the last call still holds messages", md.FullName())
				}
				prev = nil
				if (errw == nil) != (errg == nil) {
					t.Fatalf("%v %+v: dynamicpb error %v, Decoder error %v", md.FullName(), o, errw, errg)
				}
				if errg != nil {
					continue
				}
				sameContents(t, want, got)
				collectStrings(got, &kept)
				prev = got
			}
		}
	}
	for _, s := range kept {
		if s[0] != s[1] {
			t.Fatalf("a string read from a decoded message changed from %q to %q", s[1], s[0])
		}
	}
	t.Logf("%d calls, %d strings and bytes values checked", calls, len(kept))
}

// hasMessages reports whether m holds a valid message or a list of
// messages in a field (not an extension, whose value the extension type
// makes, nor through a map, whose messages' release it does not check).
func hasMessages(m *dynamic.Message) bool {
	found := false
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Message() == nil || fd.IsMap() || fd.IsExtension() {
			return true
		}
		if fd.IsList() {
			found = v.List().Len() > 0
		} else {
			found = v.Message().IsValid()
		}
		return !found
	})
	return found
}

// A Decoder with Merge merges as proto.Unmarshal does, into what its
// earlier calls decoded, which stays valid until a call without Merge;
// MaxMemory bounds each call.
func TestDecoderMergeAndLimit(t *testing.T) {
	for _, tw := range protobuftest.Twins() {
		md := tw.Dyn.Descriptor()
		src1, _ := dyntest.Filled(tw, 1, protobuftest.RandOptions{Unknown: true, Partial: true, MaxDepth: 3})
		src2, _ := dyntest.Filled(tw, 2, protobuftest.RandOptions{Unknown: true, Partial: true, MaxDepth: 3})
		b1, _ := proto.MarshalOptions{AllowPartial: true}.Marshal(src1)
		b2, _ := proto.MarshalOptions{AllowPartial: true}.Marshal(src2)
		d := dynamic.Decoder{Options: dynamic.UnmarshalOptions{Merge: true, AllowPartial: true, Resolver: decodeTypesDyn}}
		want, got := dynamicpb.NewMessage(md), dynamic.NewMessage(md)
		po := proto.UnmarshalOptions{Merge: true, AllowPartial: true, Resolver: protobuftest.DynamicTypes()}
		for _, b := range [][]byte{b1, b2, b1} {
			if err := po.Unmarshal(b, want); err != nil {
				t.Fatal(err)
			}
			if err := d.Unmarshal(b, got); err != nil {
				t.Fatal(err)
			}
			sameContents(t, want, got)
		}
		d.Reset()
		if hasMessages(got) {
			t.Fatalf("%v: Reset left messages valid", md.FullName())
		}
		if len(b1) > 64 {
			d.Options = dynamic.UnmarshalOptions{AllowPartial: true, Resolver: decodeTypesDyn, MaxMemory: 16}
			if err := d.Unmarshal(b1, dynamic.NewMessage(md)); !errors.Is(err, dynamic.ErrMemoryLimit) {
				t.Fatalf("%v: %d bytes within 16 bytes of memory: error %v", md.FullName(), len(b1), err)
			}
		}
	}
}

// FuzzDecoder holds one Decoder, reused over every input, type (every
// test type, and wideType) and option of the run, to proto.Unmarshal
// into dynamicpb.
func FuzzDecoder(f *testing.F) {
	addDecodeSeeds(f)
	mds := decodeFuzzTypes()
	var d dynamic.Decoder
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, md := range mds {
			for _, o := range []proto.UnmarshalOptions{{}, {AllowPartial: true, DiscardUnknown: true}} {
				d.Options = dynamic.UnmarshalOptions{AllowPartial: o.AllowPartial, DiscardUnknown: o.DiscardUnknown,
					Resolver: decodeTypesDyn, MaxMemory: -1}
				o.Resolver = protobuftest.DynamicTypes()
				want := dynamicpb.NewMessage(md)
				panicked, errw := unmarshalRecover(o, b, want)
				if panicked != nil {
					continue // dynamicpb's known panic (see decodePair)
				}
				got := dynamic.NewMessage(md)
				errg := d.Unmarshal(b, got)
				if (errw == nil) != (errg == nil) {
					t.Fatalf("%v %+v: dynamicpb error %v, Decoder error %v", md.FullName(), o, errw, errg)
				}
				if errg == nil {
					sameContents(t, want, got)
				}
			}
		}
	})
}

// A Decoder's zero options have the defaults of UnmarshalOptions' zero
// value: protowire's recursion limit (a chain of messages as deep as the
// limit decodes, one level deeper fails, as proto.Unmarshal has it, with
// RecursionLimit 0) and
// the default MaxMemory (the chains of TestMemoryLimitNestedMessages fail;
// with no bound they decode).
func TestDecoderDefaultLimits(t *testing.T) {
	md := protobuftest.TwinByName("protolayout.test3.TestRecursive").Dyn.Descriptor()
	chain := func(levels int) []byte { // levels messages, the top one included
		var b []byte
		for range levels - 1 {
			b = protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), b)
		}
		return b
	}
	for _, levels := range []int{protowire.DefaultRecursionLimit, protowire.DefaultRecursionLimit + 1} {
		in := chain(levels)
		errw := proto.Unmarshal(in, dynamicpb.NewMessage(md))
		// No memory bound: a deep chain's blocks may pass the default
		// one, in a purego build.
		d := dynamic.Decoder{Options: dynamic.UnmarshalOptions{MaxMemory: -1}}
		errd := d.Unmarshal(in, dynamic.NewMessage(md))
		erru := dynamic.UnmarshalOptions{MaxMemory: -1}.Unmarshal(in, dynamic.NewMessage(md))
		if (errw == nil) != (levels <= protowire.DefaultRecursionLimit) {
			t.Fatalf("%d levels: proto.Unmarshal error %v", levels, errw)
		}
		if (errd == nil) != (errw == nil) || (erru == nil) != (errw == nil) {
			t.Errorf("%d levels: Decoder error %v, UnmarshalOptions error %v, proto.Unmarshal error %v", levels, errd, erru, errw)
		}
	}

	fd := fileDescriptorProto(t)
	in := nestedChains(4, 25_000, 8)
	var d dynamic.Decoder
	if err := d.Unmarshal(in, dynamic.NewMessage(fd)); !errors.Is(err, dynamic.ErrMemoryLimit) {
		t.Errorf("Decoder's default MaxMemory: error %v, want ErrMemoryLimit", err)
	}
	d.Options.MaxMemory = -1
	if err := d.Unmarshal(in, dynamic.NewMessage(fd)); err != nil {
		t.Errorf("Decoder with no bound: %v", err)
	}
}
