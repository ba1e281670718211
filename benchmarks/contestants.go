package main

import (
	"bytes"
	"fmt"
	"regexp"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/protolayout/protolayout/encoder"
)

// marshalFunc encodes a workload's message once. The result may alias a
// buffer that the next call overwrites.
type marshalFunc func() ([]byte, error)

// contestant is one way of encoding a workload.
type contestant struct {
	name string
	// exact: the output must equal the reference byte for byte. Otherwise
	// (proto.Marshal without Deterministic, whose field order may vary on
	// dynamic messages) it must have the reference's length and decode to
	// a message equal to the workload's.
	exact bool
	// prepare returns the encoding of w, with any state it reuses.
	prepare func(w *workload) marshalFunc
}

// Baselines of the ratio columns.
const (
	baseGenerated = "proto/generated"
	baseDynamic   = "proto/dynamic"
)

var contestants = []contestant{
	{baseGenerated, false, func(w *workload) marshalFunc {
		return func() ([]byte, error) { return proto.Marshal(w.generated) }
	}},
	{baseDynamic, false, func(w *workload) marshalFunc {
		return func() ([]byte, error) { return proto.Marshal(w.dynamic) }
	}},
	{"proto/dynamic-det", true, func(w *workload) marshalFunc {
		o := proto.MarshalOptions{Deterministic: true}
		return func() ([]byte, error) { return o.Marshal(w.dynamic) }
	}},
	{"protolayout/generated", true, func(w *workload) marshalFunc {
		return func() ([]byte, error) { return encoder.Marshal(w.generated) }
	}},
	{"protolayout/dynamic", true, func(w *workload) marshalFunc {
		return func() ([]byte, error) { return encoder.Marshal(w.dynamic) }
	}},
	{"protolayout/dynamic-reuse", true, func(w *workload) marshalFunc {
		e := encoder.NewEncoder(encoder.MarshalOptions{})
		var buf []byte
		return func() ([]byte, error) {
			out, err := e.MarshalAppend(buf[:0], w.dynamic)
			buf = out
			return out, err
		}
	}},
}

// benchCase is one contestant on one workload, verified and ready to time.
type benchCase struct {
	workload   *workload
	contestant contestant
	marshal    marshalFunc
}

// name is the sub-benchmark name, workload/contestant.
func (c *benchCase) name() string { return c.workload.name + "/" + c.contestant.name }

// body is the benchmark body shared by BenchmarkMarshal and the report.
func (c *benchCase) body(b *testing.B) {
	marshal := c.marshal
	b.ReportAllocs()
	b.SetBytes(int64(len(c.workload.ref)))
	for b.Loop() {
		if _, err := marshal(); err != nil {
			b.Fatal(err)
		}
	}
}

// cases returns every contestant on every workload whose name matches
// filter (all when filter is nil), grouped by workload, in a fixed order.
// Each case is verified before it is returned; the error names the first
// that fails.
func cases(filter *regexp.Regexp) ([]*benchCase, error) {
	ws, err := workloads()
	if err != nil {
		return nil, err
	}
	var out []*benchCase
	for _, w := range ws {
		if filter != nil && !filter.MatchString(w.name) {
			continue
		}
		for _, ct := range contestants {
			c := &benchCase{workload: w, contestant: ct, marshal: ct.prepare(w)}
			if err := c.verify(); err != nil {
				return nil, err
			}
			out = append(out, c)
		}
	}
	return out, nil
}

// verify checks the case's output against the reference, on a first call
// and on a second one (which reuses whatever the first left behind).
func (c *benchCase) verify() error {
	w := c.workload
	for call := 1; call <= 2; call++ {
		got, err := c.marshal()
		if err != nil {
			return fmt.Errorf("%s: call %d: %v", c.name(), call, err)
		}
		if c.contestant.exact {
			if !bytes.Equal(got, w.ref) {
				return fmt.Errorf("%s: call %d: output differs from proto.MarshalOptions{Deterministic: true}.Marshal: %s",
					c.name(), call, describeDiff(got, w.ref))
			}
			continue
		}
		if len(got) != len(w.ref) {
			return fmt.Errorf("%s: call %d: output is %d bytes, reference is %d", c.name(), call, len(got), len(w.ref))
		}
		back := w.generated.ProtoReflect().New().Interface()
		if err := proto.Unmarshal(got, back); err != nil {
			return fmt.Errorf("%s: call %d: output does not decode: %v", c.name(), call, err)
		}
		if !proto.Equal(back, w.generated) {
			return fmt.Errorf("%s: call %d: output decodes to a different message", c.name(), call)
		}
	}
	return nil
}

// describeDiff says where got first differs from want.
func describeDiff(got, want []byte) string {
	n := min(len(got), len(want))
	i := 0
	for i < n && got[i] == want[i] {
		i++
	}
	if i == n {
		return fmt.Sprintf("%d bytes, want %d (equal up to the shorter)", len(got), len(want))
	}
	return fmt.Sprintf("%d bytes, want %d; first difference at offset %d: got %#02x, want %#02x",
		len(got), len(want), i, got[i], want[i])
}
