//go:build race

package benchreport

// raceEnabled: the race detector makes allocations that AllocsPerRun counts.
const raceEnabled = true
