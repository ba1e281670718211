//go:build race

package engine

// raceEnabled: the race detector changes what the heap holds.
const raceEnabled = true
