//go:build !race

package dynamic_test

// raceEnabled: the race detector makes allocations that AllocsPerRun counts.
const raceEnabled = false
