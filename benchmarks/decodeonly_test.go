package main

import (
	"testing"
)

// decodeOnlyWorkloads are the decode workloads BenchmarkDecodeOnly runs,
// by name.
var decodeOnlyWorkloads = []struct {
	name  string
	build func() (*workload, error)
}{
	{"otlp", otlpWorkload},
	{"descriptors", descriptorsWorkload},
	{"scalar", scalarWorkload},
	{"text", textWorkload},
	{"nested", nestedWorkload},
	{"collections", collectionsWorkload},
	{"large", largeWorkload},
	{"sourceinfo", sourceInfoWorkload},
}

// BenchmarkDecodeOnly decodes one workload's reference bytes with one
// decoder of the report (BenchmarkDecodeOnly/nested/unmarshal/dynamic,
// ...), building that workload alone and checking nothing: a benchmark
// whose set-up does the same work whatever the iteration count, for
// counting a decode's instructions with cachegrind at two counts.
// BenchmarkUnmarshal is the one that checks every decoder's output.
func BenchmarkDecodeOnly(b *testing.B) {
	for _, wl := range decodeOnlyWorkloads {
		for _, c := range decodeContestants {
			b.Run(wl.name+"/"+c.name, func(b *testing.B) {
				w, err := decodeWorkload(wl.build)()
				if err != nil {
					b.Fatal(err)
				}
				ct := c.prepare(c.name, w)
				b.ReportAllocs()
				b.SetBytes(int64(w.Size()))
				if ct.Accept != nil { // a validator: it reads the bytes
					ref := w.Ref(0)
					for b.Loop() {
						if err := ct.Accept(ref, 0); err != nil {
							b.Fatal(err)
						}
					}
					return
				}
				for b.Loop() {
					if _, err := ct.Decode(0); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
