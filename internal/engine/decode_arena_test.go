package engine

import (
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// countRun counts the length-delimited records of one field that follow
// one another, and stops at the first other record, at a tag written in
// more bytes than it needs, and at a length past the end, for fields
// whose tags take one byte and two.
func TestCountRun(t *testing.T) {
	rec := func(b []byte, num protowire.Number, v string) []byte {
		b = protowire.AppendTag(b, num, protowire.BytesType)
		return protowire.AppendString(b, v)
	}
	for _, num := range []protowire.Number{48, 1, 15} {
		tag := protowire.AppendTag(nil, num, protowire.BytesType)
		// The tag in one more byte than it needs, and an empty value.
		long := append([]byte(nil), tag...)
		long[len(long)-1] |= 0x80
		long = append(long, 0x00, 0x00)
		three := rec(rec(rec(nil, num, "a"), num, ""), num, "bcd")
		for _, c := range []struct {
			name string
			in   []byte
			want int
		}{
			{"empty", nil, 0},
			{"three", three, 3},
			{"three then another field", rec(three, num+1, "x"), 3},
			{"another field first", rec(rec(nil, num+1, "x"), num, "a"), 0},
			{"varint of the same number", protowire.AppendVarint(protowire.AppendTag(nil, num, protowire.VarintType), 1), 0},
			{"long tag", append(long, three...), 0},
			{"length past the end", append(append(append([]byte(nil), three...), tag...), 0x05, 'a'), 3},
			{"truncated length", append(append(append([]byte(nil), three...), tag...), 0xff), 3},
			{"long length", append(append(append([]byte(nil), three...), tag...), 0x81, 0x00, 'a'), 4},
			{"tag alone", tag, 0},
		} {
			if got := countRun(c.in, num); got != c.want {
				t.Errorf("field %d, %s: countRun = %d, want %d", num, c.name, got, c.want)
			}
		}
	}
}

// reserve gives an empty list room for its run exactly, and grows a
// list that has elements as grow does.
func TestReserve(t *testing.T) {
	var sl slab[string]
	rest := protowire.AppendString(protowire.AppendTag(nil, 7, protowire.BytesType), "b")
	rest = protowire.AppendString(protowire.AppendTag(rest, 7, protowire.BytesType), "c")
	s := reserve(&sl, nil, rest, 7, 8, 64)
	if len(s) != 0 || cap(s) != 3 {
		t.Fatalf("empty list: len %d cap %d, want 0 and 3", len(s), cap(s))
	}
	s = append(s, "a", "b", "c")
	s = reserve(&sl, s, nil, 7, 8, 64)
	if len(s) != 3 || cap(s) < 4 || s[0] != "a" || s[2] != "c" {
		t.Fatalf("full list: %q, cap %d", s, cap(s))
	}
}

// countVarints and countShort count the bytes without the continuation
// bit of a range: countVarints in its eight-byte steps and its tail,
// countShort a range of fewer than eight bytes read with the bytes after
// it (masked off: here all with the continuation bit), which it leaves
// to countVarints where fewer than eight bytes are left.
func TestCountVarints(t *testing.T) {
	var b []byte
	for i := range 200 {
		b = protowire.AppendVarint(b, uint64(i)*uint64(i)*977)
	}
	b = append(b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)
	ends := len(b) - 8
	for s := range 9 {
		for n := range ends - s + 1 {
			want := 0
			for _, c := range b[s : s+n] {
				if c < 0x80 {
					want++
				}
			}
			if got := countVarints(b[s : s+n]); got != want {
				t.Fatalf("b[%d:%d]: countVarints = %d, want %d", s, s+n, got, want)
			}
			got, ok := countShort(b, s, n)
			if ok != (n < 8) || ok && got != want {
				t.Fatalf("b[%d:%d]: countShort = %d, %v, want %d, %v", s, s+n, got, ok, want, n < 8)
			}
			if _, ok := countShort(b[:s+7], s, n); n < 8 && ok {
				t.Fatalf("b[%d:%d], seven bytes from the end: countShort read past it", s, s+n)
			}
		}
	}
}

// An arena takes its tables only once the call makes a message or a
// list, and gives them back cleared: nothing of the call (its types,
// shapes, chunks' arrays) stays reachable from the pool.
func TestArenaTablesReleasedCleared(t *testing.T) {
	md := loadAllTypes(t)
	scalars := protowire.AppendVarint(protowire.AppendTag(nil, md.Fields().ByName("optional_int32").Number(), protowire.VarintType), 7)
	for _, c := range []struct {
		name   string
		in     []byte
		tables bool
	}{
		{"scalars", scalars, false},
		{"messages and lists", nestedInput(md, 30, 4), true},
	} {
		var d decodeOptions
		d.limit = 1 << 30
		m := NewMessage(md)
		if err := d.top(c.in, m, 100); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		tab := d.tab
		if (tab != nil) != c.tables {
			t.Fatalf("%s: tables taken: %v, want %v", c.name, tab != nil, c.tables)
		}
		if tab == nil {
			continue
		}
		if d.nblock == 0 || tab.listUsed == 0 {
			t.Fatalf("%s: %d chunks, list types %b: the test does not fill the tables", c.name, d.nblock, tab.listUsed)
		}
		d.release()
		if d.tab != nil || d.nblock != 0 || d.valueShape != nil {
			t.Errorf("%s: the arena still holds its tables after release", c.name)
		}
		if *tab != (arenaTables{}) {
			t.Errorf("%s: the tables given back are not cleared", c.name)
		}
	}
}
