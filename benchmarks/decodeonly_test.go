package main

import (
	"flag"
	"sync"
	"testing"
)

// liveHeap is the -heap flag of the package's tests: the MiB of live
// heap BenchmarkDecodeOnly holds while it runs (heapNode lists), as a
// server holds its state, so that the collector runs as seldom per
// decode, and marks as much each time, as it would there. 0, the
// default, holds none: the collector then runs every few decodes.
var liveHeap = flag.Int("heap", 0, "MiB of live heap of small objects that hold pointers, held while BenchmarkDecodeOnly runs")

// heapNode is an object of the live heap: 64 bytes, two pointers.
type heapNode struct {
	next *heapNode
	name string
	_    [5]uint64
}

var (
	heapOnce sync.Once
	heapHeld *heapNode
)

// holdHeap makes the live heap the -heap flag asks for, once.
func holdHeap() {
	heapOnce.Do(func() {
		for range *liveHeap << 20 / 64 {
			heapHeld = &heapNode{next: heapHeld, name: "held"}
		}
	})
}

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
// With -heap N it holds N MiB of live heap while it runs (liveHeap).
func BenchmarkDecodeOnly(b *testing.B) {
	holdHeap()
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
