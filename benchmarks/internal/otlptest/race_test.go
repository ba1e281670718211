//go:build race

package otlptest_test

func init() { raceEnabled = true }
