package main

import (
	"strings"
	"testing"

	"github.com/protolayout/protolayout/internal/benchreport"
)

// decodeCases returns the unmarshal family's cases, verified.
func decodeCases(tb testing.TB) []*benchreport.Case {
	tb.Helper()
	all, err := cases(nil)
	if err != nil {
		tb.Fatal(err)
	}
	var out []*benchreport.Case
	for _, c := range all {
		if c.Workload.Family == benchreport.FamilyUnmarshal {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		tb.Fatal("no decoders")
	}
	return out
}

// BenchmarkUnmarshal decodes the marshal workloads' reference bytes with proto.Unmarshal into a new message of each decoder of the
// report (BenchmarkUnmarshal/otlp-decode/unmarshal/generated, ...).
func BenchmarkUnmarshal(b *testing.B) {
	for _, c := range decodeCases(b) {
		b.Run(c.Name(), c.Benchmark)
	}
}

// TestDecodeWorkloads checks that the unmarshal family decodes every
// marshal workload's bytes with every decoder, and holds them to
// encoder.Canonical with the checker.
func TestDecodeWorkloads(t *testing.T) {
	seen := map[string]int{}
	for _, c := range decodeCases(t) {
		seen[c.Workload.Name]++
		switch {
		case strings.HasPrefix(c.Contestant.Name, "check/"):
			if c.Contestant.Accept == nil || c.Contestant.Check != benchreport.CheckAccepted {
				t.Errorf("%s: not a validator", c.Name())
			}
		case !strings.HasPrefix(c.Contestant.Name, "unmarshal/") || c.Contestant.Decode == nil:
			t.Errorf("%s: not a decoder", c.Name())
		}
	}
	for _, name := range []string{"otlp", "descriptors", "scalar", "text", "nested", "collections", "large", "sourceinfo"} {
		name += decodeSuffix
		if seen[name] != len(decodeContestants) {
			t.Errorf("%s: %d decoders, want %d", name, seen[name], len(decodeContestants))
		}
	}
}

// TestHeldOTLP checks the memory held by a decoded OTLP export: positive
// for every decoder that can be measured, and at least the input for the
// generated type and dynamicpb, which copy every string and bytes value.
func TestHeldOTLP(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory is on the heap's side")
	}
	for _, c := range decodeCases(t) {
		if c.Workload.Name != "otlp"+decodeSuffix || !c.Contestant.Holds {
			continue
		}
		held, err := c.HeldBytes(4)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %.0f bytes held (input %d)", c.Name(), held, c.Workload.Size())
		if held <= 0 {
			t.Errorf("%s: holds %.0f bytes", c.Name(), held)
		}
		switch c.Contestant.Name {
		case benchreport.BaseUnmarshalGenerated, benchreport.BaseUnmarshalDynamicpb:
			if held < float64(c.Workload.Size()) {
				t.Errorf("%s: holds %.0f bytes, less than its input of %d", c.Name(), held, c.Workload.Size())
			}
		}
	}
}
