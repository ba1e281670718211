//go:build !amd64 && !arm64

package main

// platformDecoders is empty where hyperpb does not build (it supports
// amd64 and arm64 only).
var platformDecoders []contestant
