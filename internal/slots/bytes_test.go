//go:build !protolayout_purego

package slots

import (
	"runtime"
	"testing"
)

// A string holds a bytes value: nil, empty and not nil, or an array the
// collector keeps alive through the string, which the value aliases.
func TestBytesInStrings(t *testing.T) {
	var s string
	if LoadBytes(&s) != nil {
		t.Fatal("the zero string holds bytes that are not nil")
	}
	StoreBytes(&s, []byte{})
	if b := LoadBytes(&s); b == nil || len(b) != 0 {
		t.Fatalf("empty bytes read back as %v (nil %v)", b, b == nil)
	}
	StoreBytes(&s, nil)
	if LoadBytes(&s) != nil {
		t.Fatal("nil read back as not nil")
	}
	b := make([]byte, 3, 10)
	copy(b, "abc")
	StoreBytes(&s, b)
	b = nil
	runtime.GC()
	runtime.GC()
	got := LoadBytes(&s)
	if string(got) != "abc" || cap(got) != 3 {
		t.Fatalf("read back %q, capacity %d", got, cap(got))
	}
	got[0] = 'x'
	if string(LoadBytes(&s)) != "xbc" {
		t.Fatal("the value read back is a copy")
	}
}
