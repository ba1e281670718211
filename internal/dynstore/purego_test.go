//go:build protolayout_purego

package dynstore

import "testing"

// The purego build compiles direct reads out.
func TestEnabled(t *testing.T) {
	if Enabled {
		t.Error("direct reads are on in a protolayout_purego build")
	}
}
