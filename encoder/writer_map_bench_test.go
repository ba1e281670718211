package encoder_test

import (
	"fmt"
	"testing"

	"github.com/protolayout/protolayout/encoder"
)

// mapKeys and mapVals are 50 label-like entries of a map<string, string>,
// keys ascending.
var mapKeys, mapVals = func() (k, v []string) {
	for i := range 50 {
		k = append(k, fmt.Sprintf("label.key.%03d", i))
		v = append(v, fmt.Sprintf("value-%d", i*7))
	}
	return k, v
}()

// BenchmarkWriterMapEntries writes 50 entries of a map<string, string>
// with BeginEntryString, the value and End: the fast path.
func BenchmarkWriterMapEntries(b *testing.B) {
	benchmarkMap(b, func(w *encoder.Writer, k, v string) {
		w.BeginEntryString(144, k)
		w.String(encoder.MapValue, v)
		w.End()
	})
}

// BenchmarkWriterMapBeginEnd writes the same entries with Begin, the key,
// the value and End: the general path.
func BenchmarkWriterMapBeginEnd(b *testing.B) {
	benchmarkMap(b, func(w *encoder.Writer, k, v string) {
		w.Begin(144)
		w.String(encoder.MapKey, k)
		w.String(encoder.MapValue, v)
		w.End()
	})
}

func benchmarkMap(b *testing.B, entry func(w *encoder.Writer, k, v string)) {
	benchmarkWriter(b, func(w *encoder.Writer) {
		for i, k := range mapKeys {
			entry(w, k, mapVals[i])
		}
	})
}

// BenchmarkWriterMapIntEntries writes 50 entries of a map<int64, int64>
// with BeginEntryInt, the value and End.
func BenchmarkWriterMapIntEntries(b *testing.B) {
	benchmarkWriter(b, func(w *encoder.Writer) {
		for i := range int64(50) {
			w.BeginEntryInt(132, i*i-100)
			w.Int64(encoder.MapValue, i<<20)
			w.End()
		}
	})
}

// benchmarkWriter times one reused Writer on TestAllTypes writing what
// fill writes.
func benchmarkWriter(b *testing.B, fill func(w *encoder.Writer)) {
	w := encoder.NewWriter(test3Desc)
	write := func() ([]byte, error) {
		w.Reset()
		fill(w)
		return w.Finish()
	}
	out, err := write()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := write(); err != nil {
			b.Fatal(err)
		}
	}
}
