//go:build race

package main

// raceEnabled: the race detector makes allocations that AllocsPerRun counts.
const raceEnabled = true
