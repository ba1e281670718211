package encoder

import "github.com/protolayout/protolayout/internal/sizing"

// For the tests that bound the work of a call (hostile_test.go,
// limits_test.go) by counting it rather than timing it.

// WalkStats returns the statistics of e's last size pass of the checked
// walk: zero for a fresh Encoder, and unchanged by a call that took no
// walk (a generated message the engine encoded).
func WalkStats(e *Encoder) sizing.Stats { return e.walk.Stats() }
