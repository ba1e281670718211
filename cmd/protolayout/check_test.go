package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// TestCheck runs protolayout check on canonical and non-canonical inputs,
// with both ways of giving the schema: exit 0 and nothing printed when the
// input is canonical, else exit 1 and the first violation on one line of
// stderr, with its rule, field, path and offset.
func TestCheck(t *testing.T) {
	for schemaName, schema := range schemaArgs() {
		t.Run(schemaName, func(t *testing.T) {
			thing := append(append([]string(nil), schema...), "-type", "test.v3.Thing")
			enc := func(text string) []byte {
				return ok(t, []byte(text), append(append([]string{"encode"}, thing...), "-format", "text", "-deterministic")...)
			}
			check := func(in []byte, flags ...string) result {
				return protolayout(t, in, append(append([]string{"check"}, thing...), flags...)...)
			}
			small := enc(`id: 5 name: "x" scores: [1, 2] number: 0`)
			for _, flags := range [][]string{{"-canonical"}, {"-canonical", "-strict"}} {
				if r := check(small, flags...); r.code != 0 || len(r.stdout)+len(r.stderr) > 0 {
					t.Errorf("check %v of a canonical message: exit %d, stdout %q, stderr %q", flags, r.code, r.stdout, r.stderr)
				}
			}
			// Every expected line's parts, in order.
			for _, c := range []struct {
				name  string
				in    []byte
				flags []string
				want  []string
			}{
				// proto.Marshal writes the extension first: not field-number
				// order.
				{"extension first", enc(string(readFile(t, "thing.txtpb"))), []string{"-canonical"},
					[]string{"protolayout: not canonical (Canonical): field out of order (field test.v2.Legacy.name)", " at legacy.name, offset "}},
				{"map under -strict", enc(`counts { key: "a" value: 1 }`), []string{"-canonical", "-strict"},
					[]string{"map entry (the profile refuses maps) (field test.v3.Thing.counts)", " at counts, offset 0"}},
				{"long varint", []byte{0x08, 0x85, 0x00}, []string{"-canonical"},
					[]string{"varint longer than needed (field test.v3.Thing.id)", " at id, offset 1"}},
				{"default present", []byte{0x08, 0x00}, []string{"-canonical"},
					[]string{"field without presence written at its default (field test.v3.Thing.id)", "offset 0"}},
				{"truncated", small[:len(small)-1], []string{"-canonical"},
					[]string{"malformed wire data"}},
				{"unknown field under -strict", append(bytes.Clone(small), 0xf8, 0x3e, 0x01), []string{"-canonical", "-strict"},
					[]string{"no such field", "offset " + strconv.Itoa(len(small))}},
			} {
				r := check(c.in, c.flags...)
				line := string(r.stderr)
				if r.code != 1 || strings.Count(line, "\n") != 1 || len(r.stdout) > 0 {
					t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 1 and one line", c.name, r.code, r.stdout, r.stderr)
					continue
				}
				rest := line
				for _, w := range c.want {
					i := strings.Index(rest, w)
					if i < 0 {
						t.Errorf("%s: stderr %q lacks %q", c.name, line, w)
						break
					}
					rest = rest[i+len(w):]
				}
			}
			// encode -canonical writes what check -canonical accepts, where
			// encode -deterministic does not.
			canon := ok(t, readFile(t, "thing.txtpb"), append(append([]string{"encode"}, thing...), "-format", "text", "-canonical")...)
			if r := check(canon, "-canonical"); r.code != 0 {
				t.Errorf("check -canonical of encode -canonical: exit %d, stderr %q", r.code, r.stderr)
			}
			strict := ok(t, []byte(`id: 5 name: "x" scores: [1, 2]`), append(append([]string{"encode"}, thing...), "-format", "text", "-canonical", "-strict")...)
			if r := check(strict, "-canonical", "-strict"); r.code != 0 {
				t.Errorf("check -canonical -strict of encode -canonical -strict: exit %d, stderr %q", r.code, r.stderr)
			}
			if r := protolayout(t, []byte(`counts { key: "a" value: 1 }`), append(append([]string{"encode"}, thing...), "-format", "text", "-canonical", "-strict")...); r.code != 1 || !strings.Contains(string(r.stderr), "map entry (the profile refuses maps)") {
				t.Errorf("encode -canonical -strict of a map: exit %d, stderr %q", r.code, r.stderr)
			}
			if r := protolayout(t, nil, append(append([]string{"encode"}, thing...), "-strict")...); r.code != 2 {
				t.Errorf("encode -strict without -canonical: exit %d, stderr %q", r.code, r.stderr)
			}
			if r := check(small); r.code != 2 || !strings.Contains(string(r.stderr), "-canonical is required") {
				t.Errorf("check without -canonical: exit %d, stderr %q", r.code, r.stderr)
			}
		})
	}
}
