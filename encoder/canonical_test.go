package encoder_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"testing"

	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/internal/reloadtest"
	"github.com/protolayout/protolayout/protobuftest"
)

var profiles = []encoder.Profile{encoder.Canonical, encoder.Signing}

// checkDyn checks b against the dynamic descriptor md, resolving the
// dynamic extensions of the test schemas.
func checkDyn(b []byte, md protoreflect.MessageDescriptor, p encoder.Profile) error {
	return encoder.CanonicalOptions{Profile: p, Resolver: protobuftest.DynamicTypes()}.Check(b, md)
}

// wantViolation fails unless err is a *CanonicalError for rule want,
// naming field (a full name, "" for none) at offset off.
func wantViolation(t *testing.T, err error, want error, field protoreflect.FullName, off int, ctx string) {
	t.Helper()
	var ce *encoder.CanonicalError
	if !errors.As(err, &ce) {
		t.Fatalf("%s: got %v, want a *CanonicalError for %v", ctx, err, want)
	}
	if !errors.Is(err, want) || !errors.Is(err, encoder.ErrNotCanonical) || ce.Field != field || ce.Offset != off {
		t.Fatalf("%s: got %v (field %q, offset %d), want %v on %q at offset %d", ctx, err, ce.Field, ce.Offset, want, field, off)
	}
}

// articleSchema is ADR-027's test schema, blog.Article. ADR-027 declares
// UNSPECIFIED in both of its enums, which protobuf's scoping forbids (enum
// values are siblings of their enum); the second enum's values are renamed
// here, with the same numbers, so the bytes are the same.
func articleSchema(t testing.TB) protoreflect.MessageDescriptor {
	t.Helper()
	fdp := new(descriptorpb.FileDescriptorProto)
	if err := prototext.Unmarshal([]byte(`
		name: "article.proto" package: "blog" syntax: "proto3"
		enum_type { name: "Type" value { name: "UNSPECIFIED" number: 0 } value { name: "IMAGES" number: 1 } value { name: "NEWS" number: 2 } }
		enum_type { name: "Review" value { name: "REVIEW_UNSPECIFIED" number: 0 } value { name: "ACCEPTED" number: 1 } value { name: "REJECTED" number: 2 } }
		message_type {
		  name: "Article"
		  field { name: "title" number: 1 type: TYPE_STRING label: LABEL_OPTIONAL }
		  field { name: "description" number: 2 type: TYPE_STRING label: LABEL_OPTIONAL }
		  field { name: "created" number: 3 type: TYPE_UINT64 label: LABEL_OPTIONAL }
		  field { name: "updated" number: 4 type: TYPE_UINT64 label: LABEL_OPTIONAL }
		  field { name: "public" number: 5 type: TYPE_BOOL label: LABEL_OPTIONAL }
		  field { name: "promoted" number: 6 type: TYPE_BOOL label: LABEL_OPTIONAL }
		  field { name: "type" number: 7 type: TYPE_ENUM type_name: ".blog.Type" label: LABEL_OPTIONAL }
		  field { name: "review" number: 8 type: TYPE_ENUM type_name: ".blog.Review" label: LABEL_OPTIONAL }
		  field { name: "comments" number: 9 type: TYPE_STRING label: LABEL_REPEATED }
		  field { name: "backlinks" number: 10 type: TYPE_STRING label: LABEL_REPEATED }
		}`), fdp); err != nil {
		t.Fatal(err)
	}
	fd, err := protodesc.NewFile(fdp, nil)
	if err != nil {
		t.Fatal(err)
	}
	return fd.Messages().ByName("Article")
}

// adr027Vector is ADR-027's serialization of its test values.
const adr027Vector = "0a1b54686520776f726c64206e65656473206368616e676520f09f8cb318e8bebec8bc2e280138024a084e696365206f6e654a095468616e6b20796f75"

// TestCheckCanonicalADR027 checks ADR-027's test vector: the reference
// encoder writes it from the ADR's values, both profiles accept it, and
// each rule the ADR states is enforced on a mutation of it.
func TestCheckCanonicalADR027(t *testing.T) {
	md := articleSchema(t)
	m := dynamicpb.NewMessage(md)
	if err := prototext.Unmarshal([]byte(`title: "The world needs change 🌳" description: "" created: 1596806111080
		updated: 0 public: true promoted: false type: NEWS review: REVIEW_UNSPECIFIED
		comments: ["Nice one", "Thank you"]`), m); err != nil {
		t.Fatal(err)
	}
	vec, _ := hex.DecodeString(adr027Vector)
	got, err := refCanonical(m, encoder.Signing)
	if err != nil || !bytes.Equal(got, vec) {
		t.Fatalf("reference encoding: %x, %v; want %x", got, err, vec)
	}
	for _, p := range profiles {
		if err := encoder.CheckCanonical(vec, md, p); err != nil {
			t.Fatalf("%v: %v", p, err)
		}
	}
	field := func(name string) protoreflect.FullName { return "blog.Article." + protoreflect.FullName(name) }
	at := func(b []byte, i int, ins ...byte) []byte { return slices.Concat(b[:i:i], ins, b[i:]) }
	// Offsets in the vector: title 0, created 29, public 36, type 38,
	// comments 40 and 50.
	for _, c := range []struct {
		name  string
		b     []byte
		err   error
		field string
		off   int
	}{
		// Rule 1: once, in ascending order.
		{"title twice", at(vec, 29, vec[:29]...), encoder.ErrDuplicateField, "title", 29},
		{"public before created", slices.Concat(vec[:29], vec[36:38], vec[29:36], vec[38:]), encoder.ErrOutOfOrder, "created", 31},
		// Rule 2: no extra fields.
		{"unknown field 11", at(vec, len(vec), 0x58, 0x01), encoder.ErrUnknownField, "", len(vec)},
		// Rule 3: defaults omitted.
		{"description empty", at(vec, 29, 0x12, 0x00), encoder.ErrDefaultPresent, "description", 29},
		{"updated 0", at(vec, 36, 0x20, 0x00), encoder.ErrDefaultPresent, "updated", 36},
		{"promoted false", at(vec, 38, 0x30, 0x00), encoder.ErrDefaultPresent, "promoted", 38},
		{"review 0", at(vec, 40, 0x40, 0x00), encoder.ErrDefaultPresent, "review", 40},
		// Rule 5: minimal varints, bools 0 or 1, 32-bit values.
		{"tag not minimal", slices.Concat(vec[:36], []byte{0xa8, 0x00}, vec[37:]), encoder.ErrNonMinimalVarint, "public", 36},
		{"length not minimal", slices.Concat(vec[:1], []byte{0x9b, 0x00}, vec[2:]), encoder.ErrNonMinimalVarint, "title", 1},
		{"value trailing zero", slices.Concat(vec[:37], []byte{0x81, 0x00}, vec[38:]), encoder.ErrNonMinimalVarint, "public", 37},
		{"bool 2", slices.Concat(vec[:37], []byte{0x02}, vec[38:]), encoder.ErrBoolValue, "public", 37},
		{"enum past 32 bits", slices.Concat(vec[:39], []byte{0x82, 0x80, 0x80, 0x80, 0x10}, vec[40:]), encoder.ErrVarintRange, "type", 39},
		{"negative enum in five bytes", slices.Concat(vec[:39], []byte{0xff, 0xff, 0xff, 0xff, 0x0f}, vec[40:]), encoder.ErrVarintRange, "type", 39},
	} {
		name := field(c.field)
		if c.field == "" {
			name = ""
		}
		wantViolation(t, encoder.CheckCanonical(c.b, md, encoder.Signing), c.err, name, c.off, c.name)
	}
	// A negative enum sign-extended to ten bytes is canonical.
	neg := slices.Concat(vec[:39], protowire.AppendVarint(nil, 1<<64-1), vec[40:])
	if err := encoder.CheckCanonical(neg, md, encoder.Signing); err != nil {
		t.Fatalf("negative enum: %v", err)
	}
	// Canonical keeps unknown fields after the known ones.
	if err := encoder.CheckCanonical(at(vec, len(vec), 0x58, 0x01), md, encoder.Canonical); err != nil {
		t.Fatalf("Canonical, unknown field last: %v", err)
	}
}

// testMessage returns the dynamic twin of a random message of tw, for
// profile p: without maps or unknown fields under Signing.
func testMessage(tw protobuftest.Twin, seed uint64, p encoder.Profile) protoreflect.Message {
	opts := protobuftest.RandOptions{MaxDepth: 3, Unknown: p == encoder.Canonical && seed%3 == 0, NoMaps: p == encoder.Signing, Extensions: tw.DynExts}
	m := tw.Dyn.New()
	protobuftest.Fill(m, seed, opts)
	return m
}

// TestCheckCanonicalRandom checks that the checker accepts the reference
// canonical encoding of seeded random messages of every test schema
// message, under both profiles, against the dynamic descriptor and the
// generated one, and that the bytes decode to the message.
func TestCheckCanonicalRandom(t *testing.T) {
	n := reloadtest.Seeds() / 5
	for _, tw := range protobuftest.Twins() {
		t.Run(string(tw.Name), func(t *testing.T) {
			t.Parallel()
			for seed := range n {
				for _, p := range profiles {
					m := testMessage(tw, seed, p)
					b, err := refCanonical(m, p)
					if err != nil {
						t.Fatalf("seed %d %v: reference: %v", seed, p, err)
					}
					if err := checkDyn(b, tw.Dyn.Descriptor(), p); err != nil {
						t.Fatalf("seed %d %v: %v\n%s", seed, p, err, protobuftest.FirstDiff(b, b, tw.Gen.Descriptor()))
					}
					if err := encoder.CheckCanonical(b, tw.Gen.Descriptor(), p); err != nil {
						t.Fatalf("seed %d %v, generated descriptor: %v", seed, p, err)
					}
					back := tw.Dyn.New()
					if err := (proto.UnmarshalOptions{Resolver: protobuftest.DynamicTypes()}).Unmarshal(b, back.Interface()); err != nil {
						t.Fatalf("seed %d %v: decoding: %v", seed, p, err)
					}
					if again, _ := refCanonical(back, p); !bytes.Equal(again, b) {
						t.Fatalf("seed %d %v: decoded and encoded again, the bytes differ", seed, p)
					}
				}
			}
		})
	}
}

// record is one top-level record of an encoding.
type record struct {
	num        protowire.Number
	typ        protowire.Type
	start, end int
	tagLen     int
	fd         protoreflect.FieldDescriptor // nil: unknown
}

// records splits b, a message of md, into its top-level records.
func records(t testing.TB, b []byte, md protoreflect.MessageDescriptor) []record {
	t.Helper()
	var rs []record
	for i := 0; i < len(b); {
		num, typ, n := protowire.ConsumeTag(b[i:])
		m := protowire.ConsumeFieldValue(num, typ, b[i+n:])
		if n < 0 || m < 0 {
			t.Fatalf("bad record at %d", i)
		}
		fd := md.Fields().ByNumber(num)
		if fd == nil {
			if xt, err := protobuftest.DynamicTypes().FindExtensionByNumber(md.FullName(), num); err == nil {
				fd = xt.TypeDescriptor()
			}
		}
		rs = append(rs, record{num, typ, i, i + n + m, n, fd})
		i += n + m
	}
	return rs
}

// TestCheckCanonicalMutations applies single mutations to the reference
// canonical encoding of random messages of every test schema message and
// checks that the checker rejects each, naming the rule, the field and
// the offset: adjacent fields swapped, a field duplicated, a tag, a length
// or a value made one byte longer, a packed list written unpacked, an
// implicit-presence field written at its default, an unknown field
// (Signing), a map entry (Signing).
func TestCheckCanonicalMutations(t *testing.T) {
	n := reloadtest.Seeds() / 10
	for _, tw := range protobuftest.Twins() {
		t.Run(string(tw.Name), func(t *testing.T) {
			t.Parallel()
			md := tw.Dyn.Descriptor()
			for seed := range n {
				for _, p := range profiles {
					m := testMessage(tw, seed, p)
					b, err := refCanonical(m, p)
					if err != nil {
						t.Fatal(err)
					}
					mutate(t, b, md, p, fmt.Sprintf("seed %d %v", seed, p))
				}
			}
			signingRefusesMaps(t, md)
		})
	}
}

func mutate(t *testing.T, b []byte, md protoreflect.MessageDescriptor, p encoder.Profile, ctx string) {
	t.Helper()
	rs := records(t, b, md)
	check := func(nb []byte, want error, fd protoreflect.FieldDescriptor, off int, what string) {
		t.Helper()
		var name protoreflect.FullName
		if fd != nil {
			name = fd.FullName()
		}
		wantViolation(t, checkDyn(nb, md, p), want, name, off, ctx+": "+what)
	}
	packed := func(fd protoreflect.FieldDescriptor) bool {
		return fd.IsList() && (fd.IsPacked() || p == encoder.Signing && refPackable(fd.Kind()))
	}
	for i, r := range rs {
		if r.fd == nil {
			continue // unknown fields are verbatim: nothing to mutate
		}
		rec := b[r.start:r.end]
		// Swapped with the next record of another known field.
		if i+1 < len(rs) && rs[i+1].fd != nil && rs[i+1].num != r.num {
			nx := b[rs[i+1].start:rs[i+1].end]
			nb := slices.Concat(b[:r.start], nx, rec, b[rs[i+1].end:])
			check(nb, encoder.ErrOutOfOrder, r.fd, r.start+len(nx), "swapped")
		}
		// Duplicated: a second record of the field right after it.
		first := i == 0 || rs[i-1].num != r.num
		switch {
		case r.fd.IsMap():
			if first {
				check(slices.Concat(b[:r.end], rec, b[r.end:]), encoder.ErrMapKeyOrder, r.fd, r.end, "map entry duplicated")
			}
		case packed(r.fd):
			check(slices.Concat(b[:r.end], rec, b[r.end:]), encoder.ErrDuplicateField, r.fd, r.end, "packed split")
		case !r.fd.IsList():
			check(slices.Concat(b[:r.end], rec, b[r.end:]), encoder.ErrDuplicateField, r.fd, r.end, "duplicated")
		}
		// The tag one byte longer.
		tag := protowire.AppendVarint(nil, protowire.EncodeTag(r.num, r.typ))
		long := append(slices.Clone(tag), 0)
		long[len(tag)-1] |= 0x80
		check(slices.Concat(b[:r.start], long, b[r.start+r.tagLen:]), encoder.ErrNonMinimalVarint, r.fd, r.start, "long tag")
		switch r.typ {
		case protowire.BytesType:
			// The length one byte longer.
			l, ln := protowire.ConsumeVarint(b[r.start+r.tagLen:])
			ll := protowire.AppendVarint(nil, l)
			ll[len(ll)-1] |= 0x80
			ll = append(ll, 0)
			at := r.start + r.tagLen
			check(slices.Concat(b[:at], ll, b[at+ln:]), encoder.ErrNonMinimalVarint, r.fd, at, "long length")
			// Unpacked where packed is required.
			if packed(r.fd) {
				body, _ := protowire.ConsumeBytes(b[at:])
				var un []byte
				for len(body) > 0 {
					w := protowire.ConsumeFieldValue(r.num, refWireType(r.fd.Kind()), body)
					un = protowire.AppendTag(un, r.num, refWireType(r.fd.Kind()))
					un = append(un, body[:w]...)
					body = body[w:]
				}
				check(slices.Concat(b[:r.start], un, b[r.end:]), encoder.ErrWireType, r.fd, r.start, "unpacked")
			}
		case protowire.VarintType:
			// The value one byte longer.
			at := r.start + r.tagLen
			v, vn := protowire.ConsumeVarint(b[at:])
			if vn < 10 {
				lv := protowire.AppendVarint(nil, v)
				lv[len(lv)-1] |= 0x80
				lv = append(lv, 0)
				check(slices.Concat(b[:at], lv, b[at+vn:]), encoder.ErrNonMinimalVarint, r.fd, at, "long value")
			}
		}
	}
	// A second member of a oneof, where it would stand.
	for _, r := range rs {
		od := (protoreflect.OneofDescriptor)(nil)
		if r.fd != nil && !r.fd.IsExtension() {
			od = r.fd.ContainingOneof()
		}
		if od == nil || od.IsSynthetic() {
			continue
		}
		for j := range od.Fields().Len() {
			o := od.Fields().Get(j)
			if o.Number() <= r.num {
				continue
			}
			at := len(b)
			for _, x := range rs {
				if x.fd == nil || x.num > o.Number() {
					at = x.start
					break
				}
			}
			var rec []byte
			switch o.Kind() {
			case protoreflect.GroupKind:
				rec = protowire.AppendTag(protowire.AppendTag(nil, o.Number(), protowire.StartGroupType), o.Number(), protowire.EndGroupType)
			case protoreflect.MessageKind:
				rec = append(protowire.AppendTag(nil, o.Number(), protowire.BytesType), 0)
			default:
				rec = protowire.AppendTag(nil, o.Number(), refWireType(o.Kind()))
				rec = refScalar(rec, o.Kind(), o.Default())
			}
			check(slices.Concat(b[:at], rec, b[at:]), encoder.ErrOneofConflict, o, at, "second oneof member")
			break
		}
	}
	// An implicit-presence field written at its default, where it would
	// stand.
	fds := md.Fields()
	for i := range fds.Len() {
		fd := fds.Get(i)
		if fd.HasPresence() || fd.IsList() || fd.IsMap() || fd.Kind() == protoreflect.MessageKind {
			continue
		}
		at := len(b)
		for _, r := range rs {
			if r.fd == nil || r.num > fd.Number() {
				at = r.start
				break
			}
			if r.num == fd.Number() {
				at = -1 // set
				break
			}
		}
		if at < 0 {
			continue
		}
		zero := protowire.AppendTag(nil, fd.Number(), refWireType(fd.Kind()))
		zero = append(zero, make([]byte, map[protowire.Type]int{protowire.VarintType: 1, protowire.Fixed32Type: 4, protowire.Fixed64Type: 8, protowire.BytesType: 1}[refWireType(fd.Kind())])...)
		check(slices.Concat(b[:at], zero, b[at:]), encoder.ErrDefaultPresent, fd, at, "default present")
	}
	// An unknown field: refused by Signing; by Canonical when first.
	if u := unknownNumber(md); u > 0 {
		rec := protowire.AppendVarint(protowire.AppendTag(nil, u, protowire.VarintType), 1)
		if p == encoder.Signing {
			check(slices.Concat(b, rec), encoder.ErrUnknownField, nil, len(b), "unknown last")
		} else if err := checkDyn(slices.Concat(b, rec), md, p); err != nil {
			t.Fatalf("%s: unknown field last: %v", ctx, err)
		}
		if len(rs) > 0 && rs[0].fd != nil {
			check(slices.Concat(rec, b), encoder.ErrUnknownField, nil, 0, "unknown first")
		}
	}
}

// unknownNumber returns a field number md neither declares nor reserves
// for extensions, or 0.
func unknownNumber(md protoreflect.MessageDescriptor) protowire.Number {
	for n := protowire.Number(1); n < 100000; n++ {
		if md.Fields().ByNumber(n) == nil && !md.ExtensionRanges().Has(n) && !md.ReservedRanges().Has(n) {
			return n
		}
	}
	return 0
}

// signingRefusesMaps checks that Signing refuses an entry of each map
// field of md that Canonical accepts.
func signingRefusesMaps(t *testing.T, md protoreflect.MessageDescriptor) {
	fds := md.Fields()
	for i := range fds.Len() {
		fd := fds.Get(i)
		if !fd.IsMap() {
			continue
		}
		m := dynamicpb.NewMessage(md)
		protobuftest.Fill(m, 0, protobuftest.RandOptions{MaxDepth: 1, NoMaps: true, MaxList: 1})
		mp := m.Mutable(fd).Map()
		v := mp.NewValue()
		if fd.MapValue().Message() != nil {
			protobuftest.Fill(v.Message(), 1, protobuftest.RandOptions{MaxDepth: 1})
		}
		mp.Set(fd.MapKey().Default().MapKey(), v)
		b, err := refCanonical(m, encoder.Canonical)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkDyn(b, md, encoder.Canonical); err != nil {
			t.Fatalf("%s: %v", fd.FullName(), err)
		}
		var at = -1
		for _, r := range records(t, b, md) {
			if r.fd == fd {
				at = r.start
				break
			}
		}
		err = checkDyn(b, md, encoder.Signing)
		var ce *encoder.CanonicalError
		if errors.As(err, &ce) && ce.Offset < at {
			continue // an earlier violation of Signing (an unpacked list, say)
		}
		wantViolation(t, err, encoder.ErrMapField, fd.FullName(), at, "Signing, map "+string(fd.Name()))
	}
}
