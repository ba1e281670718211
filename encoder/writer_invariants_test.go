//go:build protolayout_debug

package encoder_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/protobuftest/gen/test3pb"
)

// TestWriterInvariantCheck breaks one invariant of a Writer's state at a
// time, through the test hook encoder.Corrupt, and expects the check to
// name it and the next call to panic.
func TestWriterInvariantCheck(t *testing.T) {
	md := (&test3pb.TestAllTypes{}).ProtoReflect().Descriptor()
	// States to break: the Writer after these calls, with field numbers
	// of TestAllTypes.
	states := map[string]func(w *encoder.Writer){
		"top": func(w *encoder.Writer) { w.Int32(1, 5) },
		"nested": func(w *encoder.Writer) {
			w.Int32(1, 5)
			w.Begin(18) // singular_nested_message
			w.Int32(1, 7)
		},
		"done": func(w *encoder.Writer) {
			w.Begin(18)
			w.Int32(1, 7)
			w.End()
		},
		"packed": func(w *encoder.Writer) {
			w.Int32(31, 1) // repeated_int32, packed: the record stays open
			w.Int32(31, 2)
		},
		"entry": func(w *encoder.Writer) {
			w.BeginEntryString(144, "k") // map_string_string
			w.String(encoder.MapValue, "v")
		},
		"oneof": func(w *encoder.Writer) {
			w.String(113, "x") // oneof_string, the third member of oneof_field
		},
	}
	cases := []struct {
		state, what, want string
	}{
		{"top", "state", "state 7"},
		{"top", "frames", "bottom frame"},
		{"nested", "depth", "depth"},
		{"nested", "slack", "slack"},
		{"top", "limit", "limit"},
		{"top", "error", "fast paths on"},
		{"top", "fast", "fast paths off"},
		{"done", "stats", "moves"},
		{"done", "last", "last item"},
		{"nested", "parent", "parent is not the frame below"},
		{"nested", "start", "outside the message"},
		{"nested", "length", "reserved length prefix"},
		{"nested", "tag", "not the tag"},
		{"top", "written", "after the current field"},
		{"nested", "written", "after the current field"},
		{"oneof", "oneof", "members of oneof"},
		{"entry", "entry", "map entry"},
		{"packed", "packed", "packed record written while open"},
	}
	for _, c := range cases {
		for _, s := range strategies {
			t.Run(fmt.Sprintf("%s/%s/%s", c.state, c.what, s), func(t *testing.T) {
				w := encoder.NewWriter(md, encoder.WriterOptions{Lengths: s})
				states[c.state](w)
				if err := w.Err(); err != nil {
					t.Fatal(err)
				}
				if err := encoder.InvariantError(w); err != nil {
					t.Fatalf("before the corruption: %v", err)
				}
				if !encoder.Corrupt(w, c.what) {
					t.Fatalf("nothing to corrupt")
				}
				err := encoder.InvariantError(w)
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("check says %v, want %q", err, c.want)
				}
				defer func() {
					msg, _ := recover().(string)
					if !strings.Contains(msg, "Writer invariant broken after") || !strings.Contains(msg, "(*Writer).Len") || !strings.Contains(msg, c.want) {
						t.Errorf("Len after the corruption: panic %q, want the check's", msg)
					}
				}()
				w.Len()
			})
		}
	}
}
