//go:build protolayout_purego

// Package strview would turn bytes that are never written again into a
// string without copying them; in this build (protolayout_purego) it
// copies, and uses no unsafe.
package strview

// Copies reports whether String copies its bytes (true in purego builds).
const Copies = true

// String returns a string with b's contents.
func String(b []byte) string { return string(b) }
