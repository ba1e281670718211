//go:build race

package dynmsg

// raceEnabled: the race detector changes what the heap holds.
const raceEnabled = true
