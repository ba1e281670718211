package protobuftest

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/protolayout/protolayout/encoder"
)

// Resolver finds extension and message types, as *protoregistry.Types
// does. Equivalent uses it to decode extensions in its round-trip check
// and to name them in failure messages.
type Resolver interface {
	protoregistry.ExtensionTypeResolver
	protoregistry.MessageTypeResolver
}

// CheckOptions selects what Equivalent checks.
type CheckOptions struct {
	// AllowPartial runs protolayout and the reference with AllowPartial,
	// so missing required fields are not an error.
	AllowPartial bool
	// Deterministic runs protolayout with Deterministic too. The reference
	// is always Deterministic; without this option map entries may come in
	// any order (each map's entries are compared as a set), everything else
	// must still be byte-identical.
	Deterministic bool
}

// treeContext is how many lines of each wire tree a failure shows on
// either side of the first difference.
const treeContext = 40

// Equivalent encodes each of msgs with protolayout's encoder and holds the
// output to the reference: proto.MarshalOptions{Deterministic: true,
// AllowPartial: o.AllowPartial}.Marshal of msgs[0], the first non-nil
// message (normally the generated form). The other messages are typically
// its dynamic twins holding the same content; nil entries are skipped.
// Since proto.Marshal of a *dynamic.Message (package dynamic) is
// protolayout's encoder itself, the reference of such a message, msgs[0]
// or another, is proto.Marshal of its copy into dynamicpb form.
//
// First the reference itself is checked: every message must marshal with
// proto.Marshal to the bytes of msgs[0] (else the messages are not twins
// and Equivalent stops the test with t.Fatalf). Then, for each message:
//
//   - error parity: protolayout fails if and only if the reference fails.
//     When every message fails, their errors agree: the same reason, the
//     same path, the same limit, and the same field (named relative to
//     each message's package, so that renamed copies of a schema compare
//     equal), whichever storage and encoder each message takes.
//     Where proto.Marshal's two paths disagree (docs/semantics.md#path-decisions:
//     a repeated string extension of a proto3 file, MessageSet) protolayout
//     follows the dynamicpb path, so when the reference succeeds but protolayout fails,
//     the message is copied into dynamicpb form and protolayout's error is
//     accepted if proto.Marshal fails on that copy too. A protolayout error
//     must satisfy errors.Is(err, proto.Error) and come with no bytes;
//   - bytes: equal to the reference (nil exactly when the reference is
//     nil). On a mismatch the failure shows FirstDiff and both wire trees,
//     fields named from msgs[0]'s descriptor;
//   - Size: protolayout's Size equals the length of the encoding (of the
//     AllowPartial encoding when only required fields are missing);
//   - MarshalAppend: appending onto a non-empty prefix, with and without
//     spare capacity, keeps the prefix, appends the same bytes, leaves
//     the memory past the capacity alone and, on error, appends nothing;
//     appending an empty encoding to nil gives nil;
//   - round trip: proto.Unmarshal of the output into a new message of the
//     same type is proto.Equal to the input. Extensions are resolved first
//     among the extension types set in the message itself, then with r
//     (protoregistry.GlobalTypes when r is nil; [DynamicTypes] for
//     dynamicpb twins, [DynamicMessageTypes] for *dynamic.Message twins). proto.Equal treats NaN as
//     equal to NaN (and -0.0 as equal to +0.0, which the byte check
//     covers), so no value is skipped. When the reference bytes do not
//     round-trip to the input either (e.g. an unknown field whose number r
//     resolves as an extension), the two decodings must be equal instead.
func Equivalent(t testing.TB, o CheckOptions, r Resolver, msgs ...proto.Message) {
	t.Helper()
	// The default options (every guarantee) for every message, then
	// Unchecked, which differs only for generated messages (their own fast
	// path).
	opts := encoder.MarshalOptions{AllowPartial: o.AllowPartial, Deterministic: o.Deterministic}
	equivalent(t, o, r, opts, msgs)
	if slices.ContainsFunc(msgs, hasFastPath) {
		opts.Unchecked = true
		equivalent(t, o, r, opts, msgs)
	}
}

// hasFastPath reports whether m is a generated message, which the encoder
// sends through its own fast-path methods under Unchecked. A
// *dynamic.Message has methods too, but they call the encoder, which
// encodes it from its storage whatever Unchecked says.
func hasFastPath(m proto.Message) bool {
	if m == nil || isDynamicMessage(m) {
		return false
	}
	methods := m.ProtoReflect().ProtoMethods()
	return methods != nil && methods.Marshal != nil
}

// marshaler is the encoder under test: encoder.MarshalOptions, or a fake
// in the tests of Equivalent itself.
type marshaler interface {
	Marshal(m proto.Message) ([]byte, error)
	MarshalAppend(b []byte, m proto.Message) ([]byte, error)
	Size(m proto.Message) int
}

func equivalent(t testing.TB, o CheckOptions, r Resolver, enc marshaler, msgs []proto.Message) {
	t.Helper()
	msgs = slices.DeleteFunc(slices.Clone(msgs), func(m proto.Message) bool { return m == nil })
	if len(msgs) == 0 {
		return
	}
	var res protoregistry.ExtensionTypeResolver = protoregistry.GlobalTypes
	if r != nil {
		res = r
	}

	first := msgs[0]
	md := first.ProtoReflect().Descriptor()
	firstFind := finderFor(first, res)
	refOpts := proto.MarshalOptions{Deterministic: true, AllowPartial: o.AllowPartial}
	want, wantErr := reference(refOpts, first)
	refFails := wantErr != nil
	for i, m := range msgs[1:] {
		b, err := reference(refOpts, m)
		switch {
		case err != nil || wantErr != nil:
			// Only where proto.Marshal's paths disagree can one twin fail
			// alone; Equivalent expects protolayout to fail then.
			refFails = refFails || err != nil
		case !bytes.Equal(b, want):
			t.Fatalf("msgs[%d] (%T) is not a twin of msgs[0] (%T): proto.Marshal (Deterministic) differs at %s\nmsgs[0]:\n%s\nmsgs[%d]:\n%s",
				i+1, m, first, firstDiff(b, want, md, firstFind),
				treeWindow(renderTree(want, md, firstFind), 0, treeContext), i+1,
				treeWindow(renderTree(b, md, firstFind), 0, treeContext))
		}
	}

	errs := make([]error, len(msgs))
	for i, m := range msgs {
		c := &checker{t: t, o: o, enc: enc, m: m, name: fmt.Sprintf("msgs[%d] (%T)", i, m),
			md: md, find: firstFind, want: want, wantErr: wantErr, refFails: refFails, res: res}
		errs[i] = c.check()
	}
	agreeingErrors(t, msgs, errs)
}

// agreeingErrors checks that when every message failed, each with an
// *encoder.Error, the errors agree (SameFault).
func agreeingErrors(t testing.TB, msgs []proto.Message, errs []error) {
	t.Helper()
	if slices.Contains(errs, nil) || !isEncoderError(errs[0]) {
		return
	}
	for i := 1; i < len(msgs); i++ {
		if isEncoderError(errs[i]) && !SameFault(msgs[0], errs[0], msgs[i], errs[i]) {
			t.Errorf("msgs[%d] (%T) failed with %q, msgs[0] (%T) with %q: the errors of twins differ",
				i, msgs[i], errs[i], msgs[0], errs[0])
		}
	}
}

func isEncoderError(err error) bool {
	var e *encoder.Error
	return errors.As(err, &e)
}

// SameFault reports whether a, the error of encoding ma, and b, that of
// encoding mb (twins: the same content, in the same schema or in its
// hybrid or Opaque copy), are both nil, or are both *encoder.Error values
// with the same reason, path and limit and the same field, named relative
// to each message's package (and, for extensions in paths, without the
// copies' level prefix).
func SameFault(ma proto.Message, a error, mb proto.Message, b error) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	var ea, eb *encoder.Error
	if !errors.As(a, &ea) || !errors.As(b, &eb) {
		return false
	}
	field := func(m proto.Message, e *encoder.Error) string {
		pkg := string(m.ProtoReflect().Descriptor().ParentFile().Package())
		return strings.TrimPrefix(string(e.Field), pkg+".")
	}
	path := func(e *encoder.Error) string {
		p := e.Path
		for _, l := range apiLevels[1:] {
			p = strings.ReplaceAll(p, "["+l.prefix(), "[")
		}
		return p
	}
	return ea.Err == eb.Err && ea.Limit == eb.Limit && path(ea) == path(eb) && field(ma, ea) == field(mb, eb)
}

// checker runs Equivalent's checks on one message.
type checker struct {
	t        testing.TB
	o        CheckOptions
	enc      marshaler
	m        proto.Message
	name     string
	md       protoreflect.MessageDescriptor // of msgs[0]
	find     fieldFinder                    // for msgs[0]
	want     []byte                         // reference bytes of msgs[0]
	wantErr  error                          // reference error of msgs[0]
	refFails bool                           // some message's reference failed
	res      protoregistry.ExtensionTypeResolver
}

// check runs the checks and returns protolayout's error, if it failed.
func (c *checker) check() error {
	c.t.Helper()
	t := c.t
	got, err := c.enc.Marshal(c.m)
	expectErr := c.refFails
	switch {
	case err != nil && !expectErr:
		if dynErr := dynamicPathError(c.m, c.o.AllowPartial); dynErr == nil {
			t.Errorf("%s: protolayout failed, the reference succeeded\nerror: %v\nreference:\n%s",
				c.name, err, treeWindow(renderTree(c.want, c.md, c.find), 0, treeContext))
			return err
		}
		// proto.Marshal fails on the dynamicpb form: protolayout follows it.
		expectErr = true
	case err == nil && expectErr:
		refErr := c.wantErr
		if refErr == nil {
			refErr = errors.New("(the reference of a twin failed)")
		}
		t.Errorf("%s: protolayout succeeded, the reference failed: %v\nprotolayout output:\n%s",
			c.name, refErr, treeWindow(renderTree(got, c.md, c.find), 0, treeContext))
		return nil
	}
	if expectErr {
		if !errors.Is(err, proto.Error) {
			t.Errorf("%s: protolayout error %q (%T) does not satisfy errors.Is(err, proto.Error)", c.name, err, err)
		}
		if len(got) != 0 {
			t.Errorf("%s: protolayout returned %d bytes with its error %q", c.name, len(got), err)
		}
		c.checkSizeOnError()
		c.checkAppend(nil, true)
		return err
	}

	c.checkBytes(got)
	if n := c.enc.Size(c.m); n != len(got) || n != len(c.want) {
		t.Errorf("%s: protolayout Size = %d, output length %d, reference length %d", c.name, n, len(got), len(c.want))
	}
	c.checkAppend(got, false)
	c.checkRoundTrip(got)
	return nil
}

// checkBytes compares protolayout's output with the reference.
func (c *checker) checkBytes(got []byte) {
	c.t.Helper()
	if (got == nil) != (c.want == nil) {
		c.t.Errorf("%s: protolayout returned nil=%v, the reference nil=%v (len %d and %d)",
			c.name, got == nil, c.want == nil, len(got), len(c.want))
	}
	if bytes.Equal(got, c.want) {
		return
	}
	note := ""
	g, w := got, c.want
	if !c.o.Deterministic {
		g, w = canonicalMaps(got, c.md, c.find, 0), canonicalMaps(c.want, c.md, c.find, 0)
		if bytes.Equal(g, w) {
			return // only map entry order differs
		}
		note = " (map entries sorted before comparing)"
	}
	d, _ := locateDiff(g, w, c.md, c.find)
	c.t.Errorf("%s: protolayout output differs from the reference%s at %s\nprotolayout (%d bytes):\n%s\nreference (%d bytes):\n%s",
		c.name, note, d.text,
		len(got), treeWindow(renderTree(got, c.md, c.find), d.gotOff, treeContext),
		len(c.want), treeWindow(renderTree(c.want, c.md, c.find), d.wantOff, treeContext))
}

// checkSizeOnError checks Size when the reference fails only because of
// missing required fields (Size checks neither those nor UTF-8).
func (c *checker) checkSizeOnError() {
	c.t.Helper()
	if c.o.AllowPartial {
		return
	}
	partial, err := reference(proto.MarshalOptions{Deterministic: true, AllowPartial: true}, c.m)
	if err != nil {
		return
	}
	if n := c.enc.Size(c.m); n != len(partial) {
		c.t.Errorf("%s: protolayout Size = %d, the AllowPartial reference is %d bytes", c.name, n, len(partial))
	}
}

const (
	appendPrefix = "prefix\x00\xff"
	guardByte    = 0xa5
	guardLen     = 16
)

// checkAppend checks MarshalAppend onto a prefix, without spare capacity
// (the encoder must reallocate) and with room for the whole output (it may
// write in place). got is protolayout's Marshal output.
func (c *checker) checkAppend(got []byte, wantErr bool) {
	c.t.Helper()
	for _, spare := range []int{0, len(got) + 8} {
		p := len(appendPrefix)
		backing := bytes.Repeat([]byte{guardByte}, p+spare+guardLen)
		copy(backing, appendPrefix)
		prefix := backing[: p : p+spare]
		out, err := c.enc.MarshalAppend(prefix, c.m)
		switch {
		case (err != nil) != wantErr:
			c.t.Errorf("%s: MarshalAppend error %v, Marshal error expected=%v", c.name, err, wantErr)
			continue
		case string(backing[:p]) != appendPrefix:
			c.t.Errorf("%s: MarshalAppend (spare capacity %d) changed the prefix: %q", c.name, spare, backing[:p])
		case len(out) < p || string(out[:p]) != appendPrefix:
			c.t.Errorf("%s: MarshalAppend (spare capacity %d) returned %q, which does not start with the prefix", c.name, spare, out)
		case wantErr && len(out) != p:
			c.t.Errorf("%s: MarshalAppend (spare capacity %d) appended %d bytes with its error %v", c.name, spare, len(out)-p, err)
		case !wantErr && !c.sameOutput(out[p:], got):
			c.t.Errorf("%s: MarshalAppend (spare capacity %d) appended different bytes than Marshal returned at %s",
				c.name, spare, firstDiff(out[p:], got, c.md, c.find))
		}
		for i, b := range backing[p+spare:] {
			if b != guardByte {
				c.t.Errorf("%s: MarshalAppend (spare capacity %d) wrote past the capacity of its buffer (byte %d)", c.name, spare, i)
				break
			}
		}
	}
	if !wantErr && len(got) == 0 {
		if out, err := c.enc.MarshalAppend(nil, c.m); err != nil || out != nil {
			c.t.Errorf("%s: MarshalAppend(nil) of an empty encoding = %v, %v; want nil, nil", c.name, out, err)
		}
	}
}

// sameOutput reports whether two outputs of protolayout are equal, up to
// map entry order when not Deterministic.
func (c *checker) sameOutput(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	return !c.o.Deterministic && bytes.Equal(canonicalMaps(a, c.md, c.find, 0), canonicalMaps(b, c.md, c.find, 0))
}

// checkRoundTrip decodes protolayout's output and compares it with the
// input.
func (c *checker) checkRoundTrip(got []byte) {
	c.t.Helper()
	mr := c.m.ProtoReflect()
	if !mr.IsValid() {
		return // nothing to decode into the same (nil) form
	}
	res := extensionsIn(c.m, c.res)
	decode := func(b []byte) (proto.Message, error) {
		dec := mr.Type().New().Interface()
		err := proto.UnmarshalOptions{Resolver: res, AllowPartial: true}.Unmarshal(b, dec)
		return dec, err
	}
	dec, err := decode(got)
	if err != nil {
		c.t.Errorf("%s: proto.Unmarshal of protolayout's output: %v", c.name, err)
		return
	}
	if proto.Equal(c.m, dec) {
		return
	}
	// The reference may not round-trip either; then both decodings must
	// agree.
	refDec, refErr := decode(c.want)
	if refErr == nil && !proto.Equal(c.m, refDec) && proto.Equal(dec, refDec) {
		return
	}
	c.t.Errorf("%s: proto.Unmarshal of protolayout's output is not proto.Equal to the input", c.name)
}

// dynamicPathError copies m into dynamicpb form (extensions too) and
// returns the error of proto.Marshal on the copy, which takes the
// protoreflect path of proto.Marshal.
func dynamicPathError(m proto.Message, allowPartial bool) error {
	_, err := proto.MarshalOptions{Deterministic: true, AllowPartial: allowPartial}.Marshal(dynamicCopy(m))
	return err
}

// reference marshals m with o, the reference encoder. proto.Marshal of a
// *dynamic.Message is protolayout's own encoder, so such a message is
// copied into dynamicpb form first (extensions too) and the copy
// marshalled.
func reference(o proto.MarshalOptions, m proto.Message) ([]byte, error) {
	if isDynamicMessage(m) {
		m = dynamicCopy(m)
	}
	return o.Marshal(m)
}

// extResolver resolves the extension types set in one message first, then
// falls back to next.
type extResolver struct {
	types map[protoreflect.FullName]map[protoreflect.FieldNumber]protoreflect.ExtensionType
	names map[protoreflect.FullName]protoreflect.ExtensionType
	next  protoregistry.ExtensionTypeResolver
}

// FindExtensionByName implements protoregistry.ExtensionTypeResolver.
func (x *extResolver) FindExtensionByName(name protoreflect.FullName) (protoreflect.ExtensionType, error) {
	if xt, ok := x.names[name]; ok {
		return xt, nil
	}
	return x.next.FindExtensionByName(name)
}

// FindExtensionByNumber implements protoregistry.ExtensionTypeResolver.
func (x *extResolver) FindExtensionByNumber(msg protoreflect.FullName, num protoreflect.FieldNumber) (protoreflect.ExtensionType, error) {
	if xt, ok := x.types[msg][num]; ok {
		return xt, nil
	}
	return x.next.FindExtensionByNumber(msg, num)
}

// extensionsIn returns a resolver for the extension types set anywhere in
// m, falling back to next.
func extensionsIn(m proto.Message, next protoregistry.ExtensionTypeResolver) *extResolver {
	x := &extResolver{
		types: make(map[protoreflect.FullName]map[protoreflect.FieldNumber]protoreflect.ExtensionType),
		names: make(map[protoreflect.FullName]protoreflect.ExtensionType),
		next:  next,
	}
	seen := make(map[proto.Message]bool) // guards against shared and cyclic messages
	var walk func(m protoreflect.Message)
	walkValue := func(fd protoreflect.FieldDescriptor, v protoreflect.Value) {
		if fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind {
			walk(v.Message())
		}
	}
	walk = func(m protoreflect.Message) {
		if !m.IsValid() || seen[m.Interface()] {
			return
		}
		seen[m.Interface()] = true
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			if xtd, ok := fd.(protoreflect.ExtensionTypeDescriptor); ok {
				msg := fd.ContainingMessage().FullName()
				if x.types[msg] == nil {
					x.types[msg] = make(map[protoreflect.FieldNumber]protoreflect.ExtensionType)
				}
				x.types[msg][fd.Number()] = xtd.Type()
				x.names[fd.FullName()] = xtd.Type()
			}
			switch {
			case fd.IsList():
				for i := 0; i < v.List().Len(); i++ {
					walkValue(fd, v.List().Get(i))
				}
			case fd.IsMap():
				v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
					walkValue(fd.MapValue(), mv)
					return true
				})
			default:
				walkValue(fd, v)
			}
			return true
		})
	}
	walk(m.ProtoReflect())
	return x
}

// finderFor names fields of m's messages, extensions included. It walks m
// for its extensions on first use only, which is on a failure.
func finderFor(m proto.Message, next protoregistry.ExtensionTypeResolver) fieldFinder {
	var res *extResolver
	return func(md protoreflect.MessageDescriptor, num protowire.Number) protoreflect.FieldDescriptor {
		if res == nil {
			res = extensionsIn(m, next)
		}
		return findField(md, num, res)
	}
}

// CanonicalMaps returns b, an encoding of a message of m's type, with the
// entries of each map field sorted bytewise (after doing the same inside
// them), so that two encodings that differ only in the order of map
// entries, as proto.Marshal without Deterministic writes them, become
// equal. Extensions are found among those set in m, then in
// protoregistry.GlobalTypes. The length does not change.
func CanonicalMaps(b []byte, m proto.Message) []byte {
	return canonicalMaps(b, m.ProtoReflect().Descriptor(), finderFor(m, protoregistry.GlobalTypes), 0)
}

// canonicalMaps returns b with the entries of each map field sorted
// bytewise (after canonicalizing inside them), so that two encodings that
// differ only in map entry order become equal. Lengths do not change.
func canonicalMaps(b []byte, md protoreflect.MessageDescriptor, find fieldFinder, depth int) []byte {
	if md == nil || depth > maxTreeDepth {
		return b
	}
	recs := parseRecords(b, 0)
	out := make([]byte, 0, len(b))
	for i := 0; i < len(recs); {
		r := recs[i]
		var fd protoreflect.FieldDescriptor
		if r.garbage == nil {
			fd = find(md, r.num)
		}
		switch {
		case fd == nil:
			out = append(out, r.raw...)
			i++
		case fd.IsMap() && r.typ == protowire.BytesType:
			var entries [][]byte
			for ; i < len(recs) && recs[i].garbage == nil && recs[i].num == r.num && recs[i].typ == protowire.BytesType; i++ {
				entries = append(entries, withBody(recs[i], canonicalMaps(recs[i].val, fd.Message(), find, depth+1)))
			}
			slices.SortFunc(entries, bytes.Compare)
			for _, e := range entries {
				out = append(out, e...)
			}
		case (fd.Kind() == protoreflect.MessageKind && r.typ == protowire.BytesType) ||
			(fd.Kind() == protoreflect.GroupKind && r.typ == protowire.StartGroupType):
			out = append(out, withBody(r, canonicalMaps(r.val, fd.Message(), find, depth+1))...)
			i++
		default:
			out = append(out, r.raw...)
			i++
		}
	}
	return out
}

// withBody returns r's bytes with its payload replaced by body, which has
// the same length.
func withBody(r record, body []byte) []byte {
	head := r.valOff - r.off
	out := make([]byte, 0, len(r.raw))
	out = append(out, r.raw[:head]...)
	out = append(out, body...)
	return append(out, r.raw[head+len(r.val):]...)
}
