package engine

import (
	"reflect"
	"runtime"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// kept returns the bytes of arrays d keeps, which its budget counts.
func (d *Decoder) kept() int64 { return d.r.limit - d.r.budget }

// keptCounted returns the bytes of the arrays d's chunks and slabs hold
// for reuse, counted from the arrays themselves.
func (d *Decoder) keptCounted() int64 {
	a := &d.o.arena
	n := int64(0)
	for i := range a.nblock {
		n += a.tab.blocks[i].c.Kept()
	}
	for _, c := range a.more {
		n += c.c.Kept()
	}
	n += keptBytes(d.r.words.kept)
	n += keptBytes(d.r.lstrs.kept)
	n += keptBytes(d.r.lbytes.kept)
	n += keptBytes(d.r.lmsgs.kept)
	return n
}

// keptBytes returns the bytes of the arrays s, at the size of T on this
// platform.
func keptBytes[T any](s [][]T) int64 {
	n := 0
	for _, a := range s {
		n += len(a)
	}
	return int64(n) * int64(reflect.TypeFor[T]().Size())
}

// nestedInput returns an input of md (TestAllTypes) of n nested messages
// in a list and n strings of size bytes.
func nestedInput(md protoreflect.MessageDescriptor, n, size int) []byte {
	str, nested := md.Fields().ByName("repeated_string"), md.Fields().ByName("repeated_nested_message")
	val := nested.Message().Fields().ByName("a")
	var b []byte
	for i := range n {
		b = protowire.AppendTag(b, str.Number(), protowire.BytesType)
		b = protowire.AppendString(b, strings.Repeat(string(rune('a'+i%26)), size))
		var sub []byte
		sub = protowire.AppendTag(sub, val.Number(), protowire.VarintType)
		sub = protowire.AppendVarint(sub, uint64(i))
		b = protowire.AppendTag(b, nested.Number(), protowire.BytesType)
		b = protowire.AppendBytes(b, sub)
	}
	return b
}

// A Decoder keeps at most its bound, counts what it keeps right, and
// keeps what a steady stream of like inputs needs: after the first call,
// the next ones allocate no storage blocks (only headers, lists' headers
// and copies).
func TestDecoderKeepBound(t *testing.T) {
	md := loadAllTypes(t)
	type input struct {
		b []byte
		n int
	}
	small, large := input{nestedInput(md, 50, 10), 50}, input{nestedInput(md, 20_000, 10), 20_000}
	for _, keep := range []int64{-1, 1 << 10, 64 << 10, 0} {
		var d Decoder
		bound := keep
		switch {
		case keep == 0:
			bound = DefaultMaxKeep
		case keep < 0:
			bound = 0
		}
		for i, in := range []input{small, large, small, large, large, small} {
			m := NewMessage(md)
			if err := d.Unmarshal(in.b, m, UnmarshalOptions{}, keep); err != nil {
				t.Fatal(err)
			}
			if k, c := d.kept(), d.keptCounted(); k != c || k > bound || k < 0 {
				t.Fatalf("keep %d, call %d: keeps %d bytes (arrays: %d), want at most %d", keep, i, k, c, bound)
			}
			if got := m.Get(md.Fields().ByName("repeated_nested_message")).List().Len(); got != in.n {
				t.Fatalf("call %d: %d messages, want %d", i, got, in.n)
			}
		}
		if keep == 0 && d.kept() < 20_000*16 {
			t.Errorf("keeps %d bytes after a large input, want its blocks kept", d.kept())
		}
	}
}

// A Decoder used for many inputs of several sizes and types holds a flat
// heap: what it keeps stays within its bound, and the heap does not
// grow between the hundredth call and the thousandth.
func TestDecoderHeapFlat(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory is on the heap's side")
	}
	md := loadAllTypes(t)
	nested := md.Fields().ByName("optional_nested_message").Message()
	ins := [][]byte{nestedInput(md, 10, 5), nestedInput(md, 3000, 20), nestedInput(md, 200, 300)}
	var d Decoder
	m, n := NewMessage(md), NewMessage(nested)
	run := func(calls int) {
		for i := range calls {
			if err := d.Unmarshal(ins[i%len(ins)], m, UnmarshalOptions{}, 256<<10); err != nil {
				t.Fatal(err)
			}
			if err := d.Unmarshal([]byte{8, byte(i % 100)}, n, UnmarshalOptions{Merge: true}, 256<<10); err != nil {
				t.Fatal(err)
			}
		}
	}
	run(100)
	before := heapAfterGC()
	run(900)
	after := heapAfterGC()
	if d.kept() > 256<<10 {
		t.Errorf("keeps %d bytes, over its bound", d.kept())
	}
	if after > before+256<<10 {
		t.Errorf("heap grew from %d to %d bytes over 900 calls", before, after)
	}
	t.Logf("heap %d bytes after 100 calls, %d after 1,000; %d kept", before, after, d.kept())
}

// Release makes what the calls decoded read-only and empty before the
// next call cuts its storage again, and a message's storage is never
// reachable from two live messages: the released child, written to
// after Reset, does not change the message decoded into its storage.
func TestDecoderReleased(t *testing.T) {
	md := loadAllTypes(t)
	nested := md.Fields().ByName("repeated_nested_message")
	strs := md.Fields().ByName("repeated_string")
	a := nested.Message().Fields().ByName("a")
	var d Decoder
	m := NewMessage(md)
	in := nestedInput(md, 100, 10)
	if err := d.Unmarshal(in, m, UnmarshalOptions{}, 0); err != nil {
		t.Fatal(err)
	}
	child := m.Get(nested).List().Get(7).Message().(*Message)
	list := m.Get(strs).List()
	s := list.Get(3).String()
	if !child.IsValid() || child.Get(a).Int() != 7 {
		t.Fatalf("child before release: %v", child.Get(a))
	}
	m2 := NewMessage(md)
	if err := d.Unmarshal(nestedInput(md, 100, 10), m2, UnmarshalOptions{}, 0); err != nil {
		t.Fatal(err)
	}
	if child.IsValid() || child.Get(a).Int() != 0 || list.Len() != 0 || list.IsValid() {
		t.Fatalf("released child valid %v, a = %v, list of %d", child.IsValid(), child.Get(a), list.Len())
	}
	if s != strings.Repeat("d", 10) {
		t.Fatalf("string read before the release changed to %q", s)
	}
	want, _ := proto.MarshalOptions{Deterministic: true}.Marshal(m2)
	mustPanic(t, "Set on a released message", func() { child.Set(a, protoreflect.ValueOfInt32(99)) })
	mustPanic(t, "Append to a released list", func() { list.Append(protoreflect.ValueOfString("x")) })
	child.Reset()
	child.Set(a, protoreflect.ValueOfInt32(99))
	got, _ := proto.MarshalOptions{Deterministic: true}.Marshal(m2)
	if string(got) != string(want) {
		t.Fatal("writing a released message after its Reset changed the message decoded next")
	}
}

func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s did not panic", what)
		}
	}()
	f()
}

// deepInput returns an input of md (TestAllTypes) of n nested messages
// in a list, each holding a message that holds a string of size bytes.
func deepInput(md protoreflect.MessageDescriptor, n, size int) []byte {
	nested := md.Fields().ByName("repeated_nested_message")
	deep := nested.Message().Fields().ByName("deep")
	s := deep.Message().Fields().ByName("s")
	var b []byte
	for i := range n {
		var d, sub []byte
		d = protowire.AppendTag(d, s.Number(), protowire.BytesType)
		d = protowire.AppendString(d, strings.Repeat(string(rune('a'+i%26)), size))
		sub = protowire.AppendTag(sub, deep.Number(), protowire.BytesType)
		sub = protowire.AppendBytes(sub, d)
		b = protowire.AppendTag(b, nested.Number(), protowire.BytesType)
		b = protowire.AppendBytes(b, sub)
	}
	return b
}

// What a Decoder keeps after a large call and a small one is its kept
// arrays, cleared: not the large call's strings, which the blocks in
// those arrays pointed to.
func TestDecoderKeepsNoOldValues(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory is on the heap's side")
	}
	md := loadAllTypes(t)
	big, small := deepInput(md, 20_000, 100), deepInput(md, 5, 5)
	var d Decoder
	if err := d.Unmarshal(small, NewMessage(md), UnmarshalOptions{}, 0); err != nil {
		t.Fatal(err)
	}
	d.Release()
	base := heapAfterGC()
	if err := d.Unmarshal(big, NewMessage(md), UnmarshalOptions{}, 0); err != nil {
		t.Fatal(err)
	}
	m := NewMessage(md)
	if err := d.Unmarshal(small, m, UnmarshalOptions{}, 0); err != nil {
		t.Fatal(err)
	}
	after := heapAfterGC()
	const slack = 256 << 10
	if grown := int64(after) - int64(base); grown > d.kept()+slack {
		t.Errorf("the heap grew by %d bytes after a call of %d bytes of strings and a small one; the Decoder keeps %d", grown, 20_000*100, d.kept())
	}
	t.Logf("heap grew by %d bytes; %d kept", int64(after)-int64(base), d.kept())
	runtime.KeepAlive(m)
	runtime.KeepAlive(big)
}
