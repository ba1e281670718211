package benchreport

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/encoder"
)

// Check is how a contestant's output is verified against the reference.
type Check int

const (
	// CheckExact: the output must equal the reference
	// (proto.MarshalOptions{Deterministic: true}) byte for byte.
	CheckExact Check = iota
	// CheckDecoded: for proto.Marshal without Deterministic, whose field
	// order may vary on dynamic messages, the output must have the
	// reference's length and decode to a message equal to the reference
	// message.
	CheckDecoded
	// CheckExactUpToMapOrder: as CheckExact, except that the entries of
	// each map, at any depth, may come in any order (both sides are
	// compared with their map entries sorted), and the output must decode
	// to a message equal to the reference message. For protolayout
	// without Deterministic, which like proto.Marshal writes map entries
	// in the order the map yields them and everything else in the fixed
	// order. Maps in extensions are found with Workload.Resolver.
	CheckExactUpToMapOrder
	// CheckDigest: for the read floor, which writes nothing, the output is
	// the digest of what it read and must equal the message's digest
	// (Workload.Digest).
	CheckDigest
	// CheckCanonical: for protolayout's canonical encoding
	// (encoder.MarshalOptions.Canonical), the output must be canonical
	// under encoder.Canonical (encoder.CanonicalOptions.Check), have the
	// reference's length and decode to a message equal to the reference
	// message.
	CheckCanonical
	// CheckDecodedMessage: for decoders (Contestant.Decode), the decoded
	// message, encoded again with proto.MarshalOptions{Deterministic:
	// true}, must equal the reference encoding byte for byte, and it must
	// be proto.Equal to the contestant's Equal message (for
	// EqualReference, the reference message itself).
	CheckDecodedMessage
	// CheckAccepted: for validators (Contestant.Accept), the validator
	// must accept every reference encoding and refuse it once its first
	// key is written with a redundant continuation byte (a non-minimal
	// varint, which no canonical encoding has).
	CheckAccepted
)

// Contestant is one way of encoding (or, for the floor, of reading) a
// workload's messages.
type Contestant struct {
	// Name names the contestant in tables and JSON, and is the
	// sub-benchmark name after the workload's.
	Name string
	// Check is how its output is verified.
	Check Check
	// Encode encodes the workload's i-th message once (for CheckDigest:
	// reads it, and returns the digest of what it read). The result may
	// alias a buffer that the next call overwrites.
	Encode func(i int) ([]byte, error)
	// Metrics, if not nil, is called after the timed loop of each run to
	// report metrics of the contestant's own with b.ReportMetric (see
	// MetricMoves).
	Metrics func(b *testing.B)

	// Decode, set for decoders (the unmarshal family) instead of Encode,
	// decodes the workload's i-th reference encoding once and returns
	// the message. Its check is CheckDecodedMessage.
	Decode func(i int) (proto.Message, error)
	// Equal, for a decoder, returns the message the i-th decoded message
	// must be proto.Equal to: one of the same descriptor and content
	// (EqualReference when the decoder fills the reference messages'
	// type; proto.Equal is false across descriptors).
	Equal func(i int) proto.Message
	// Holds, for a decoder, says that the messages Decode returns stay
	// valid, and independent of one another, after later calls, so that
	// the memory a decoded message holds can be measured by keeping
	// several at once (HeldBytes). A decoder that reuses memory from one
	// call to the next (an arena freed before each decode) leaves it
	// false, and its held memory is not measured.
	Holds bool
	// Accept, set for validators (in the unmarshal family, beside the
	// decoders) instead of Encode or Decode, reads b, the workload's i-th
	// reference encoding, once and returns nil if it accepts it (an
	// error saying why not otherwise). Its check is CheckAccepted.
	Accept func(b []byte, i int) error
	// Tolerate, for a contestant from another project, lets Run time it
	// even if its verification fails, instead of failing the run: the
	// failure is kept in its Result (Wrong) and the table marks it. Its
	// output then differs from the others', so its numbers are read with
	// that in mind.
	Tolerate bool
}

// EqualReference is a Contestant.Equal for decoders of the reference
// messages' own type: the i-th reference message.
func EqualReference(w *Workload) func(i int) proto.Message {
	return w.Message
}

// Metrics that the report knows, reported by a Contestant's Metrics.
const (
	// MetricMoves is the Writer's length moves per message.
	MetricMoves = "moves/msg"
	// MetricMovedBytes is the bytes those moves moved per message.
	MetricMovedBytes = "moved-B/msg"
)

// Case is one contestant on one workload.
type Case struct {
	// Workload is what the contestant encodes.
	Workload *Workload
	// Contestant is how.
	Contestant Contestant

	wrong string // Run's verification failure of a tolerated contestant
}

// Name returns the sub-benchmark name, workload/contestant.
func (c *Case) Name() string { return c.Workload.Name + "/" + c.Contestant.Name }

// Benchmark is the body of a benchmark of the case: each operation
// encodes (or, for a decoder, decodes) every message of the workload
// once, and SetBytes counts their reference size.
func (c *Case) Benchmark(b *testing.B) {
	encode, n := c.Contestant.Encode, c.Workload.Len()
	if decode := c.Contestant.Decode; decode != nil {
		encode = func(i int) ([]byte, error) {
			_, err := decode(i)
			return nil, err
		}
	}
	if accept := c.Contestant.Accept; accept != nil {
		refs := c.Workload.refs
		encode = func(i int) ([]byte, error) { return nil, accept(refs[i], i) }
	}
	b.ReportAllocs()
	b.SetBytes(int64(c.Workload.Size()))
	if n == 1 {
		for b.Loop() {
			if _, err := encode(0); err != nil {
				b.Fatal(err)
			}
		}
	} else {
		for b.Loop() {
			for i := range n {
				if _, err := encode(i); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	if c.Contestant.Metrics != nil {
		c.Contestant.Metrics(b)
	}
}

// ErrVerify marks a contestant whose output is wrong.
var ErrVerify = errors.New("verification failed")

// Verify checks the case's output on every message against the
// reference, on a first pass over the messages and on a second one (which
// reuses whatever the first left behind). The error names the case, the
// pass and, if the workload has several, the message.
func (c *Case) Verify() error {
	w := c.Workload
	for call := 1; call <= 2; call++ {
		for i := range w.Len() {
			if err := c.verifyOne(i); err != nil {
				return fmt.Errorf("%s: call %d%s: %v", c.Name(), call, w.which(i), err)
			}
		}
	}
	return nil
}

// verifyOne checks one output.
func (c *Case) verifyOne(i int) error {
	w := c.Workload
	if c.Contestant.Decode != nil {
		return c.verifyDecoded(i)
	}
	if c.Contestant.Accept != nil {
		return c.verifyAccepted(i)
	}
	switch c.Contestant.Check {
	case CheckDecodedMessage:
		return errors.New("a CheckDecodedMessage contestant without Decode")
	case CheckAccepted:
		return errors.New("a CheckAccepted contestant without Accept")
	}
	got, err := c.Contestant.Encode(i)
	if err != nil {
		return err
	}
	ref, msg := w.refs[i], w.msgs[i]
	switch c.Contestant.Check {
	case CheckExactUpToMapOrder:
		md := msg.ProtoReflect().Descriptor()
		if g, r := sortedMaps(got, md, w.resolver()), sortedMaps(ref, md, w.resolver()); !bytes.Equal(g, r) {
			return fmt.Errorf("output differs from proto.MarshalOptions{Deterministic: true}.Marshal beyond map entry order: %s",
				describeDiff(g, r))
		}
	case CheckExact:
		if !bytes.Equal(got, ref) {
			return fmt.Errorf("output differs from proto.MarshalOptions{Deterministic: true}.Marshal: %s", describeDiff(got, ref))
		}
		return nil
	case CheckCanonical:
		md := msg.ProtoReflect().Descriptor()
		if err := (encoder.CanonicalOptions{Profile: encoder.Canonical, Resolver: w.resolver()}).Check(got, md); err != nil {
			return fmt.Errorf("output is not canonical: %v", err)
		}
	case CheckDigest:
		if !bytes.Equal(got, w.digests[i]) {
			return fmt.Errorf("read %s, but the message holds %s", describeDigest(got), describeDigest(w.digests[i]))
		}
		return nil
	}
	if len(got) != len(ref) {
		return fmt.Errorf("output is %d bytes, reference is %d", len(got), len(ref))
	}
	back := msg.ProtoReflect().New().Interface()
	if err := (proto.UnmarshalOptions{Resolver: w.resolver()}).Unmarshal(got, back); err != nil {
		return fmt.Errorf("output does not decode: %v", err)
	}
	if !proto.Equal(back, msg) {
		return errors.New("output decodes to a different message")
	}
	return nil
}

// verifyAccepted checks a validator on one reference encoding: it
// accepts it, and refuses it with its first key made non-minimal.
func (c *Case) verifyAccepted(i int) error {
	if c.Contestant.Check != CheckAccepted {
		return fmt.Errorf("a validator must be checked with CheckAccepted, not %d", c.Contestant.Check)
	}
	ref := c.Workload.refs[i]
	if err := c.Contestant.Accept(ref, i); err != nil {
		return fmt.Errorf("refuses the reference encoding: %v", err)
	}
	bad, ok := padFirstKey(ref)
	if !ok {
		return nil // an empty encoding: nothing to pad
	}
	if err := c.Contestant.Accept(bad, i); err == nil {
		return errors.New("accepts the reference encoding with its first key written in one byte more")
	}
	return nil
}

// padFirstKey returns b with its first key written with one redundant
// continuation byte, or false if b does not start with a key.
func padFirstKey(b []byte) ([]byte, bool) {
	_, n := protowire.ConsumeVarint(b)
	if n <= 0 {
		return nil, false
	}
	out := make([]byte, 0, len(b)+1)
	out = append(out, b[:n]...)
	out[n-1] |= 0x80
	out = append(out, 0)
	return append(out, b[n:]...), true
}

// verifyDecoded checks one decoded message: encoded again
// deterministically it must give the reference encoding, and it must
// equal the contestant's Equal message.
func (c *Case) verifyDecoded(i int) error {
	w := c.Workload
	if c.Contestant.Check != CheckDecodedMessage {
		return fmt.Errorf("a decoder must be checked with CheckDecodedMessage, not %d", c.Contestant.Check)
	}
	m, err := c.Contestant.Decode(i)
	if err != nil {
		return err
	}
	if m == nil {
		return errors.New("decoded a nil message")
	}
	again, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		return fmt.Errorf("the decoded message does not encode: %v", err)
	}
	if c.Contestant.Equal == nil {
		return errors.New("a decoder without Equal")
	}
	want := c.Contestant.Equal(i)
	if want.ProtoReflect().Descriptor() != m.ProtoReflect().Descriptor() {
		return fmt.Errorf("the decoded %s has another descriptor than the message to compare it with", m.ProtoReflect().Descriptor().FullName())
	}
	equal := proto.Equal(m, want)
	if !bytes.Equal(again, w.refs[i]) {
		diff := ""
		if !equal {
			diff = "; " + describeTextDiff(m, want)
		}
		return fmt.Errorf("the decoded message encodes differently from the input: %s%s", describeDiff(again, w.refs[i]), diff)
	}
	if !equal {
		return fmt.Errorf("the decoded message differs from the one it must equal: %s", describeTextDiff(m, want))
	}
	return nil
}

// describeTextDiff names the first line where the text formats of got and
// want, two messages of one descriptor, differ.
func describeTextDiff(got, want proto.Message) string {
	o := prototext.MarshalOptions{Multiline: true}
	g, w := strings.Split(o.Format(got), "\n"), strings.Split(o.Format(want), "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("first difference at line %d of the text format: got %q, want %q",
				i+1, strings.TrimSpace(g[i]), strings.TrimSpace(w[i]))
		}
	}
	return fmt.Sprintf("the text format has %d lines, want %d", len(g), len(w))
}

// maxSortDepth bounds the nesting sortedMaps descends into; deeper
// messages are compared as they are.
const maxSortDepth = 10_000

// sortedMaps returns b, an encoding of a message of type md, with the
// entries of each map field sorted bytewise, after doing the same inside
// them and inside every nested message and group, so that encodings that
// differ only in the order of map entries become equal (the length does
// not change). Extensions are found with res. b is returned unchanged if
// it does not parse.
func sortedMaps(b []byte, md protoreflect.MessageDescriptor, res Resolver) []byte {
	if out, ok := sortMaps(b, md, res, 0); ok {
		return out
	}
	return b
}

// sortMaps is sortedMaps at a depth; ok is false if b does not parse.
func sortMaps(b []byte, md protoreflect.MessageDescriptor, res Resolver, depth int) (out []byte, ok bool) {
	if md == nil || depth > maxSortDepth {
		return b, true
	}
	// record parses the field at the start of rest.
	record := func(rest []byte) (num protowire.Number, typ protowire.Type, tagLen, n int) {
		num, typ, tagLen = protowire.ConsumeTag(rest)
		if tagLen < 0 {
			return 0, 0, 0, -1
		}
		m := protowire.ConsumeFieldValue(num, typ, rest[tagLen:])
		if m < 0 {
			return 0, 0, 0, -1
		}
		return num, typ, tagLen, tagLen + m
	}
	out = make([]byte, 0, len(b))
	for rest := b; len(rest) > 0; {
		num, typ, tagLen, n := record(rest)
		if n < 0 {
			return nil, false
		}
		fd := findField(md, num, res)
		switch {
		case fd != nil && fd.IsMap() && typ == protowire.BytesType:
			var entries [][]byte
			for len(rest) > 0 {
				num2, typ2, tagLen, n := record(rest)
				if n < 0 || num2 != num || typ2 != typ {
					break
				}
				e, ok := withSortedBody(rest[:n], num, typ, tagLen, fd.Message(), res, depth)
				if !ok {
					return nil, false
				}
				entries = append(entries, e)
				rest = rest[n:]
			}
			slices.SortFunc(entries, bytes.Compare)
			for _, e := range entries {
				out = append(out, e...)
			}
			continue
		case fd != nil && (fd.Kind() == protoreflect.MessageKind && typ == protowire.BytesType ||
			fd.Kind() == protoreflect.GroupKind && typ == protowire.StartGroupType):
			r, ok := withSortedBody(rest[:n], num, typ, tagLen, fd.Message(), res, depth)
			if !ok {
				return nil, false
			}
			out = append(out, r...)
		default:
			out = append(out, rest[:n]...)
		}
		rest = rest[n:]
	}
	return out, true
}

// withSortedBody returns rec, a length-delimited message (typ BytesType)
// or a group (StartGroupType) of field num whose tag takes tagLen bytes,
// with the maps of its body sorted.
func withSortedBody(rec []byte, num protowire.Number, typ protowire.Type, tagLen int, md protoreflect.MessageDescriptor, res Resolver, depth int) ([]byte, bool) {
	start, end := tagLen, len(rec)
	if typ == protowire.StartGroupType {
		end -= protowire.SizeTag(num)
	} else {
		_, n := protowire.ConsumeVarint(rec[tagLen:])
		start += n
	}
	body, ok := sortMaps(rec[start:end], md, res, depth+1)
	if !ok {
		return nil, false
	}
	out := make([]byte, 0, len(rec))
	out = append(out, rec[:start]...)
	out = append(out, body...)
	return append(out, rec[end:]...), true
}

// findField returns the field num of md, an extension of md found with
// res, or nil.
func findField(md protoreflect.MessageDescriptor, num protowire.Number, res Resolver) protoreflect.FieldDescriptor {
	if fd := md.Fields().ByNumber(num); fd != nil {
		return fd
	}
	if md.ExtensionRanges().Has(num) && res != nil {
		if xt, err := res.FindExtensionByNumber(md.FullName(), num); err == nil {
			return xt.TypeDescriptor()
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

// describeDigest prints a floor digest.
func describeDigest(d []byte) string {
	if len(d) != 16 {
		return fmt.Sprintf("a %d-byte digest", len(d))
	}
	return fmt.Sprintf("%d values summing to %#x", binary.LittleEndian.Uint64(d), binary.LittleEndian.Uint64(d[8:]))
}
