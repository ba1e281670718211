//go:build !race

package benchreport

const raceEnabled = false
