package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"regexp"
	"slices"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/encoder"
)

// marshalFunc encodes a workload's message once. The result may alias a
// buffer that the next call overwrites. For the floor contestants, which
// read without encoding, the result is the digest of what they read.
type marshalFunc func() ([]byte, error)

// check is how a contestant's output is verified.
type check int

const (
	// checkExact: the output must equal the reference byte for byte.
	checkExact check = iota
	// checkDecoded: for proto.Marshal without Deterministic, whose field
	// order may vary on dynamic messages, the output must have the
	// reference's length and decode to a message equal to the workload's.
	checkDecoded
	// checkExactUpToMapOrder: as checkExact, except that the entries of
	// each map may come in any order (both sides are compared with their
	// map entries sorted), and the output must decode to a message equal
	// to the workload's. For protolayout without Deterministic, which
	// like proto.Marshal writes map entries in the order the map yields
	// them and everything else in the fixed order.
	checkExactUpToMapOrder
	// checkDigest: for the read floor, which writes nothing, the output is
	// the digest of what it read and must equal the workload's digest.
	checkDigest
)

// contestant is one way of encoding (or, for the floor, of reading) a
// workload.
type contestant struct {
	name  string
	check check
	// only, if set, is the one workload the contestant applies to.
	only string
	// family is the family of workloads the contestant applies to: ""
	// for the marshal family (encoding a message object), familyWriter
	// for the writer family (encoding from plain values).
	family string
	// prepare returns the encoding of w, with any state it reuses.
	prepare func(w *workload) marshalFunc
	// prepareWriter, for Writer contestants instead of prepare, also
	// returns the Writer, whose Stats the report shows.
	prepareWriter func(w *workload) (marshalFunc, *encoder.Writer)
}

// appliesTo reports whether the contestant runs on w.
func (ct *contestant) appliesTo(w *workload) bool {
	return ct.family == w.family && (ct.only == "" || ct.only == w.name)
}

// Baselines of the ratio columns.
const (
	baseGenerated = "proto/generated"
	baseDynamic   = "proto/dynamic"
	baseFloor     = "floor/range"
)

var contestants = []contestant{
	{name: baseGenerated, check: checkDecoded, prepare: func(w *workload) marshalFunc {
		return func() ([]byte, error) { return proto.Marshal(w.generated) }
	}},
	{name: baseDynamic, check: checkDecoded, prepare: func(w *workload) marshalFunc {
		return func() ([]byte, error) { return proto.Marshal(w.dynamic) }
	}},
	{name: "proto/dynamic-det", check: checkExact, prepare: func(w *workload) marshalFunc {
		o := proto.MarshalOptions{Deterministic: true}
		return func() ([]byte, error) { return o.Marshal(w.dynamic) }
	}},
	{name: baseFloor, check: checkDigest, prepare: func(w *workload) marshalFunc {
		r, m := newFloorReader(false), w.dynamic.ProtoReflect()
		return func() ([]byte, error) { return r.read(m), nil }
	}},
	{name: "floor/has-get", check: checkDigest, prepare: func(w *workload) marshalFunc {
		r, m := newFloorReader(true), w.dynamic.ProtoReflect()
		return func() ([]byte, error) { return r.read(m), nil }
	}},
	{name: "protolayout/generated", check: checkExactUpToMapOrder, prepare: func(w *workload) marshalFunc {
		return func() ([]byte, error) { return encoder.Marshal(w.generated) }
	}},
	{name: "protolayout/dynamic", check: checkExactUpToMapOrder, prepare: func(w *workload) marshalFunc {
		return func() ([]byte, error) { return encoder.Marshal(w.dynamic) }
	}},
	{name: "protolayout/dynamic-reuse", check: checkExactUpToMapOrder, prepare: func(w *workload) marshalFunc {
		e := encoder.NewEncoder(encoder.MarshalOptions{})
		var buf []byte
		return func() ([]byte, error) {
			out, err := e.MarshalAppend(buf[:0], w.dynamic)
			buf = out
			return out, err
		}
	}},
	{name: "protolayout/dynamic-det", check: checkExact, prepare: func(w *workload) marshalFunc {
		e := encoder.NewEncoder(encoder.MarshalOptions{Deterministic: true})
		var buf []byte
		return func() ([]byte, error) {
			out, err := e.MarshalAppend(buf[:0], w.dynamic)
			buf = out
			return out, err
		}
	}},
	{name: baseHandwritten, only: "otlp", prepare: handwrittenContestant},
}

// allContestants is every contestant of every family, in report order.
var allContestants = append(append([]contestant(nil), contestants...), writerContestants...)

// handwrittenContestant encodes the OTLP workload with the hand-written
// protowire encoder, one encoder appending into one reused buffer.
func handwrittenContestant(w *workload) marshalFunc {
	req, err := otlpRequest(w)
	if err != nil {
		return failing(fmt.Errorf("handwritten: %w", err))
	}
	e := new(otlpEncoder)
	var buf []byte
	return func() ([]byte, error) {
		out, err := e.MarshalAppend(buf[:0], req)
		buf = out
		return out, err
	}
}

// benchCase is one contestant on one workload, verified and ready to time.
type benchCase struct {
	workload   *workload
	contestant contestant
	marshal    marshalFunc
	// writer is the Writer of a Writer contestant, or nil.
	writer *encoder.Writer
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
	if c.writer != nil {
		// Every message is the same, so the last one's moves are each
		// one's (in the steady state the learned widths reach).
		st := c.writer.Stats()
		b.ReportMetric(float64(st.Moves), "moves/msg")
		b.ReportMetric(float64(st.MovedBytes), "moved-B/msg")
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
		for _, c := range casesOf(w) {
			if err := c.verify(); err != nil {
				return nil, err
			}
			out = append(out, c)
		}
	}
	return out, nil
}

// casesOf returns the contestants that apply to w, prepared and not yet
// verified.
func casesOf(w *workload) []*benchCase {
	var out []*benchCase
	for _, ct := range allContestants {
		if !ct.appliesTo(w) {
			continue
		}
		c := &benchCase{workload: w, contestant: ct}
		if ct.prepareWriter != nil {
			c.marshal, c.writer = ct.prepareWriter(w)
		} else {
			c.marshal = ct.prepare(w)
		}
		out = append(out, c)
	}
	return out
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
		check := c.contestant.check
		if check == checkExactUpToMapOrder && !w.hasMaps {
			check = checkExact
		}
		switch check {
		case checkExactUpToMapOrder:
			md := w.generated.ProtoReflect().Descriptor()
			if g, r := sortedMaps(got, md), sortedMaps(w.ref, md); !bytes.Equal(g, r) {
				return fmt.Errorf("%s: call %d: output differs from proto.MarshalOptions{Deterministic: true}.Marshal beyond map entry order: %s",
					c.name(), call, describeDiff(g, r))
			}
		case checkExact:
			if !bytes.Equal(got, w.ref) {
				return fmt.Errorf("%s: call %d: output differs from proto.MarshalOptions{Deterministic: true}.Marshal: %s",
					c.name(), call, describeDiff(got, w.ref))
			}
			continue
		case checkDigest:
			if !bytes.Equal(got, w.digest) {
				return fmt.Errorf("%s: call %d: read %s, but the message holds %s",
					c.name(), call, describeDigest(got), describeDigest(w.digest))
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

// sortedMaps returns b, an encoding of a message of type md, with the
// entries of each of its map fields sorted bytewise, so that encodings
// that differ only in the order of those entries become equal. Maps inside
// nested messages are left as they are (no workload has one: a workload
// that did would fail the check rather than pass it unchecked); b is
// returned unchanged if it does not parse.
func sortedMaps(b []byte, md protoreflect.MessageDescriptor) []byte {
	var recs [][]byte
	for rest := b; len(rest) > 0; {
		_, _, n := protowire.ConsumeField(rest)
		if n < 0 {
			return b
		}
		recs = append(recs, rest[:n])
		rest = rest[n:]
	}
	// mapField returns the number of rec's field if it is a map field,
	// else 0.
	mapField := func(rec []byte) protowire.Number {
		num, _, _ := protowire.ConsumeTag(rec)
		if fd := md.Fields().ByNumber(num); fd != nil && fd.IsMap() {
			return num
		}
		return 0
	}
	for i := 0; i < len(recs); {
		num, j := mapField(recs[i]), i+1
		for num != 0 && j < len(recs) && mapField(recs[j]) == num {
			j++
		}
		slices.SortFunc(recs[i:j], bytes.Compare)
		i = j
	}
	return bytes.Join(recs, nil)
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

// describeDigest prints a floor digest.
func describeDigest(d []byte) string {
	if len(d) != 16 {
		return fmt.Sprintf("a %d-byte digest", len(d))
	}
	return fmt.Sprintf("%d values summing to %#x", binary.LittleEndian.Uint64(d), binary.LittleEndian.Uint64(d[8:]))
}
