//go:build !protolayout_purego

// Package strview turns bytes that are never written again into a string
// without copying them. It is the one place package dynamic's decoder uses
// package unsafe, fenced as internal/dynstore is: building with the tag
// protolayout_purego leaves this file out, and String copies instead.
package strview

import "unsafe"

// Copies reports whether String copies its bytes (true in purego builds).
const Copies = false

// String returns a string that shares b's bytes. The caller promises that
// no one writes to b's bytes from now on.
func String(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}
