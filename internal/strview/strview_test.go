package strview

import (
	"testing"
	"unsafe"
)

// String gives b's contents, shares b's bytes unless Copies, and gives ""
// for empty input.
func TestString(t *testing.T) {
	b := []byte("hello, world")
	s := String(b[:5])
	if s != "hello" {
		t.Fatalf("String = %q", s)
	}
	shared := unsafe.StringData(s) == &b[0]
	if shared == Copies {
		t.Errorf("shares its bytes: %v; Copies is %v", shared, Copies)
	}
	if String(nil) != "" || String(b[:0]) != "" {
		t.Error("empty input gives a non-empty string")
	}
}
