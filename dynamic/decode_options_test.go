package dynamic_test

import (
	"bytes"
	"errors"
	"runtime"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/dynamic"
	"github.com/protolayout/protolayout/protobuftest"
)

// UnmarshalOptions.Unmarshal, without a bound, decodes as
// proto.UnmarshalOptions does: the same verdict and the same message,
// with every option, merging into a message that holds content or not.
func TestUnmarshalOptionsAgree(t *testing.T) {
	for _, c := range handCases() {
		md := protobuftest.TwinByName(c.message).Dyn.Descriptor()
		for _, partial := range []bool{false, true} {
			for _, merge := range []bool{false, true} {
				po := c.opts
				po.AllowPartial, po.Merge, po.Resolver = partial, merge, decodeTypesDyn
				do := dynamic.UnmarshalOptions{Merge: po.Merge, AllowPartial: po.AllowPartial,
					DiscardUnknown: po.DiscardUnknown, Resolver: po.Resolver, RecursionLimit: po.RecursionLimit, MaxMemory: -1}
				// Both start from the same content, which Merge keeps.
				pre := rec(nil).varint(1, 9).str(44, "pre")
				if c.message == ext2 {
					pre = nil
				}
				want, got := dynamic.NewMessage(md), dynamic.NewMessage(md)
				for _, m := range []*dynamic.Message{want, got} {
					if err := (proto.UnmarshalOptions{AllowPartial: true}).Unmarshal(pre, m); err != nil {
						t.Fatalf("%s: %v", c.name, err)
					}
				}
				errWant := po.Unmarshal(c.in, want)
				errGot := do.Unmarshal(c.in, got)
				if (errWant == nil) != (errGot == nil) {
					t.Fatalf("%s %+v: proto error %v, UnmarshalOptions error %v", c.name, do, errWant, errGot)
				}
				if errGot != nil {
					if errWant.Error() != errGot.Error() {
						t.Errorf("%s: error %q, want %q", c.name, errGot, errWant)
					}
					continue
				}
				bw, _ := partialMarshal.Marshal(want)
				bg, _ := partialMarshal.Marshal(got)
				if !bytes.Equal(bw, bg) {
					t.Fatalf("%s %+v: decoded message differs:\n%s", c.name, do, protobuftest.FirstDiff(bg, bw, md))
				}
			}
		}
	}
}

// sameAsProto decodes b into new messages of md with po through
// proto.Unmarshal and with the same options through
// UnmarshalOptions.Unmarshal under its default bound, and checks that
// both give the same verdict and the same message, unless the bound
// stops the second.
func sameAsProto(t testing.TB, b []byte, po proto.UnmarshalOptions, md protoreflect.MessageDescriptor) {
	t.Helper()
	po.Resolver = decodeTypesDyn
	want, got := dynamic.NewMessage(md), dynamic.NewMessage(md)
	errWant := po.Unmarshal(b, want)
	errGot := dynamic.UnmarshalOptions{Merge: po.Merge, AllowPartial: po.AllowPartial,
		DiscardUnknown: po.DiscardUnknown, Resolver: po.Resolver, RecursionLimit: po.RecursionLimit}.Unmarshal(b, got)
	if errors.Is(errGot, dynamic.ErrMemoryLimit) {
		return
	}
	if (errWant == nil) != (errGot == nil) {
		t.Fatalf("%v %+v: Unmarshal of %x: proto error %v, UnmarshalOptions error %v", md.FullName(), po, b, errWant, errGot)
	}
	if errGot == nil {
		bw, _ := partialMarshal.Marshal(want)
		bg, _ := partialMarshal.Marshal(got)
		if !bytes.Equal(bw, bg) {
			t.Fatalf("%v %+v: decoded message differs:\n%s", md.FullName(), po, protobuftest.FirstDiff(bg, bw, md))
		}
	}
}

// emptyMessages returns n records of field num holding an empty message.
func emptyMessages(num protowire.Number, n int) []byte {
	b := make([]byte, 0, 2*n)
	for range n {
		b = protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), nil)
	}
	return b
}

// allocated returns the bytes f allocates, counted by the runtime.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// fileDescriptorProto returns the dynamic descriptor of
// google.protobuf.FileDescriptorProto.
func fileDescriptorProto(t *testing.T) protoreflect.MessageDescriptor {
	d, err := protobuftest.DynamicFiles().FindDescriptorByName("google.protobuf.FileDescriptorProto")
	if err != nil {
		t.Fatal(err)
	}
	return d.(protoreflect.MessageDescriptor)
}

// nestedChains returns n records of field num (a list of
// DescriptorProto) holding a chain of levels DescriptorProto messages,
// each the one nested_type of the one before, the last empty: about 2
// bytes of input a message and a list.
func nestedChains(num protowire.Number, n, levels int) []byte {
	var chain []byte
	for range levels {
		chain = protowire.AppendBytes(protowire.AppendTag(nil, 3, protowire.BytesType), chain)
	}
	b := make([]byte, 0, n*(len(chain)+3))
	for range n {
		b = protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), chain)
	}
	return b
}

// Chains of nested messages, about the input that takes the most memory
// per byte, fail with ErrMemoryLimit under the default bound, having
// allocated no more than the bound (and a chunk or two), where without a
// bound they take far more.
func TestMemoryLimitNestedMessages(t *testing.T) {
	md := fileDescriptorProto(t)
	const n = 25_000
	in := nestedChains(4, n, 8) // message_type, 450 kB
	limit := uint64(32*len(in) + 1<<20)

	var err error
	spent := allocated(func() { err = dynamic.UnmarshalOptions{}.Unmarshal(in, dynamic.NewMessage(md)) })
	if !errors.Is(err, dynamic.ErrMemoryLimit) || !errors.Is(err, proto.Error) {
		t.Fatalf("error %v, want ErrMemoryLimit and a proto.Error", err)
	}
	if spent > limit+limit/8 {
		t.Errorf("allocated %d bytes before failing, bound %d", spent, limit)
	}

	m := dynamic.NewMessage(md)
	unbounded := allocated(func() { err = dynamic.UnmarshalOptions{MaxMemory: -1}.Unmarshal(in, m) })
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Get(md.Fields().ByNumber(4)).List().Len(); got != n {
		t.Fatalf("decoded %d messages, want %d", got, n)
	}
	// 84 times the input on 64-bit platforms, 51 on 32-bit ones.
	if unbounded < limit+limit/4 {
		t.Errorf("without a bound the input took %d bytes, not a quarter more than the default bound %d", unbounded, limit)
	}
	t.Logf("%d bytes of input: %d bytes allocated without a bound (%.0fx), %d with the default bound %d",
		len(in), unbounded, float64(unbounded)/float64(len(in)), spent, limit)
}

// Empty messages take a header each (and their list's pointer), 32
// bytes on 64-bit platforms, 16 times their 2 bytes of input: every
// empty message of a type shares one block that stays zero. The gateway
// attack of issue 23, 2,000,000 empty messages in 4 MB, so decodes within
// the default bound (305 MB before, 76 times the input); its 4 MB as
// chains of nested messages fail within the bound (129 MB).
func TestMemoryLimitGatewayAttack(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 129 MB")
	}
	md := fileDescriptorProto(t)
	in := emptyMessages(4, 2_000_000)
	m := dynamic.NewMessage(md)
	var err error
	spent := allocated(func() { err = dynamic.UnmarshalOptions{}.Unmarshal(in, m) })
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Get(md.Fields().ByNumber(4)).List().Len(); got != 2_000_000 {
		t.Fatalf("decoded %d messages, want 2,000,000", got)
	}
	if bound := uint64(17 * len(in)); spent > bound {
		t.Errorf("2,000,000 empty messages took %d bytes, more than %d (17 times the input)", spent, bound)
	}
	t.Logf("%d bytes of empty messages: %d bytes allocated (%.1fx)", len(in), spent, float64(spent)/float64(len(in)))

	in = nestedChains(4, 4_000_000/18, 8)
	limit := uint64(32*len(in) + 1<<20)
	spent = allocated(func() { err = dynamic.UnmarshalOptions{}.Unmarshal(in, dynamic.NewMessage(md)) })
	if !errors.Is(err, dynamic.ErrMemoryLimit) {
		t.Fatalf("error %v, want ErrMemoryLimit", err)
	}
	if spent > limit+limit/8 {
		t.Errorf("allocated %d bytes before failing, bound %d", spent, limit)
	}
}

// A packed list is held to the bound before its array is allocated,
// and counts 8 bytes an element, 4 for a 32-bit kind: each byte of input
// (a one-byte varint) takes that much at most.
func TestMemoryLimitPacked(t *testing.T) {
	md := protobuftest.TwinByName(all3).Dyn.Descriptor()
	const n = 1 << 20
	body := bytes.Repeat([]byte{1}, n) // n one-byte varints
	for _, c := range []struct {
		field protowire.Number
		size  int // bytes an element
	}{{31, 4}, {32, 8}} { // repeated_int32, repeated_int64
		in := rec(nil).bytes(c.field, body)
		var err error
		spent := allocated(func() {
			err = dynamic.UnmarshalOptions{MaxMemory: 1 << 20}.Unmarshal(in, dynamic.NewMessage(md))
		})
		if !errors.Is(err, dynamic.ErrMemoryLimit) {
			t.Fatalf("field %d: error %v, want ErrMemoryLimit", c.field, err)
		}
		if spent > 1<<20 {
			t.Errorf("field %d: allocated %d bytes before failing, bound %d", c.field, spent, 1<<20)
		}
		if err := (dynamic.UnmarshalOptions{MaxMemory: int64(c.size*n - 1)}).Unmarshal(in, dynamic.NewMessage(md)); !errors.Is(err, dynamic.ErrMemoryLimit) {
			t.Errorf("field %d: bound one byte short of %d bytes an element: %v", c.field, c.size, err)
		}
		m := dynamic.NewMessage(md)
		if err := (dynamic.UnmarshalOptions{MaxMemory: int64(c.size*n + 64<<10)}).Unmarshal(in, m); err != nil {
			t.Errorf("field %d: with room for the list: %v", c.field, err)
		} else if l := m.Get(md.Fields().ByNumber(c.field)).List(); l.Len() != n {
			t.Errorf("field %d: %d elements, want %d", c.field, l.Len(), n)
		}
	}
}

// Strings, bytes and unknown fields count their length: a bound one byte
// short of what an input takes fails it.
func TestMemoryLimitCopies(t *testing.T) {
	md := protobuftest.TwinByName(all2).Dyn.Descriptor()
	for _, c := range []struct {
		name string
		in   rec
	}{
		{"string", rec(nil).str(14, "0123456789")},
		{"bytes", rec(nil).bytes(15, []byte("0123456789"))},
		{"unknown", rec(nil).bytes(900, []byte("0123456"))},
	} {
		o := dynamic.UnmarshalOptions{MaxMemory: 10}
		if err := o.Unmarshal(c.in, dynamic.NewMessage(md)); err != nil {
			t.Errorf("%s: with a bound of 10 bytes: %v", c.name, err)
		}
		o.MaxMemory = 9
		if err := o.Unmarshal(c.in, dynamic.NewMessage(md)); !errors.Is(err, dynamic.ErrMemoryLimit) {
			t.Errorf("%s: with a bound of 9 bytes: error %v, want ErrMemoryLimit", c.name, err)
		}
	}
}

// Decoding scalars into a message allocates nothing: the decoder's state,
// its arena included, stays on the stack.
func TestUnmarshalScalarsAllocateNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	md := protobuftest.TwinByName(all3).Dyn.Descriptor()
	in := rec(nil).varint(1, 5).varint(2, 1<<40).fixed32(7, 9).fixed64(8, 10).varint(13, 1)
	m := dynamic.NewMessage(md)
	for name, f := range map[string]func() error{
		"proto.Unmarshal":  func() error { return proto.UnmarshalOptions{Merge: true}.Unmarshal(in, m) },
		"UnmarshalOptions": func() error { return dynamic.UnmarshalOptions{Merge: true}.Unmarshal(in, m) },
	} {
		var err error
		if n := testing.AllocsPerRun(100, func() { err = f() }); n != 0 || err != nil {
			t.Errorf("%s: %v allocations per call, error %v", name, n, err)
		}
	}
}
