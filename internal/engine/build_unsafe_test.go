//go:build !protolayout_purego

package engine_test

// purego reports whether genstore reads through reflect (the
// protolayout_purego build), where reads allocate.
const purego = false
