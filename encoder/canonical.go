package encoder

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"strconv"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/protolayout/protolayout/internal/fault"
	"github.com/protolayout/protolayout/internal/layout"
	"github.com/protolayout/protolayout/internal/utf8x"
	"github.com/protolayout/protolayout/internal/wire"
)

// A Profile is a set of rules that makes a message's encoding unique, for
// systems that sign or hash protobuf bytes. CheckCanonical holds bytes to
// one; docs/semantics.md (#canonical) states each rule with its test.
type Profile uint8

const (
	// Canonical is strict field-number order. In every message, known
	// fields and extensions come in strictly ascending field number,
	// each once (the elements of a repeated field contiguous, in one
	// packed record when packed), oneof members and extensions at their
	// own numbers; a repeated scalar field is packed exactly when it
	// declares so (proto3 and editions PACKED pack by default, proto2 only
	// with [packed = true]), and an empty packed record is never written;
	// a field without presence (proto3 without optional, editions
	// IMPLICIT) is not written at its default (0, false, "", empty bytes,
	// enum 0, +0.0); map entries hold their key as field 1 then their
	// value as field 2, both always written, and come sorted by key in
	// the order proto.MarshalOptions{Deterministic: true} uses (false
	// before true, integers numerically, strings bytewise); tags,
	// lengths and varint values are minimal, and a varint holds exactly
	// what the field's type writes (a bool 0 or 1, a uint32 below 2^32, a
	// negative int32 or enum sign-extended to ten bytes); groups are
	// written as start tag, body, end tag. Unknown fields may follow
	// every known field, verbatim (see CheckCanonical). For messages
	// without maps and unknown fields these are the bytes protoc --encode
	// (C++) writes.
	Canonical Profile = iota + 1
	// Signing is Cosmos SDK's ADR-027 ("Deterministic Protobuf
	// Serialization"), for signed documents: the rules of Canonical, and
	// besides, no unknown fields (ADR-027 rule 2), no map entries (its
	// scope: "implementations must reject documents containing maps"),
	// and every repeated field of a scalar numeric kind (integers, enums,
	// bools, floats) packed whatever it declares (rule 4).
	Signing
)

// String returns the profile's name.
func (p Profile) String() string {
	switch p {
	case Canonical:
		return "Canonical"
	case Signing:
		return "Signing"
	}
	return "Profile(" + strconv.Itoa(int(p)) + ")"
}

// The rules a canonical check finds broken that no other error of this
// package names. A *CanonicalError wraps one of them, or one of these,
// which mean here what they mean for a Writer or Marshal: ErrOutOfOrder (a
// field after one of a higher number, which includes the elements of a
// repeated field that are not contiguous), ErrDuplicateField (a field
// that is not repeated written twice, or a packed field split into two
// records), ErrOneofConflict, ErrUnknownField (a field neither declared
// nor resolved as an extension: refused by Signing, and by Canonical when
// a known field follows it), ErrMapKeyOrder (a map entry whose key is not
// above the previous entry's), ErrInvalidUTF8, ErrRequiredNotSet,
// ErrDepthExceeded and ErrMessageSet. errors.Is(err, ErrNotCanonical)
// holds for every error of CheckCanonical.
var (
	// ErrNotCanonical is what every error of CheckCanonical is: the bytes
	// are not the canonical encoding of a message of the type under the
	// profile.
	ErrNotCanonical = errors.New("not canonical")
	// ErrMalformed: the bytes are not a protobuf encoding that
	// proto.Unmarshal reads: truncated, a varint past ten bytes or 64
	// bits, a field number of 0 or above 2^29-1, wire type 6 or 7, a
	// length past the end, an end-group key that closes nothing or
	// another group, a packed fixed-width record whose length is not a
	// multiple of the width.
	ErrMalformed = errors.New("malformed wire data")
	// ErrNonMinimalVarint: a tag, a length or a varint value longer than
	// its minimal encoding.
	ErrNonMinimalVarint = errors.New("varint longer than needed")
	// ErrVarintRange: a varint holds more than the field's type writes: a
	// uint32 or sint32 value of 2^32 or more, an int32 or enum value that
	// is not its low 32 bits sign-extended (a negative one written in
	// five bytes, say).
	ErrVarintRange = errors.New("varint out of the field type's range")
	// ErrBoolValue: a bool varint other than 0 or 1.
	ErrBoolValue = errors.New("bool varint other than 0 or 1")
	// ErrWireType: a field written with another wire type than its
	// canonical one: unpacked where packed is required, packed where it
	// is not, or a wire type the field's type does not read at all (which
	// proto.Unmarshal keeps as an unknown field).
	ErrWireType = errors.New("field not in its canonical wire type")
	// ErrDefaultPresent: a field without presence written at its default
	// value.
	ErrDefaultPresent = errors.New("field without presence written at its default")
	// ErrEmptyPacked: a packed record with no element.
	ErrEmptyPacked = errors.New("empty packed record")
	// ErrMapField: a map entry under Signing, which refuses maps (in
	// CheckCanonical's input, or in a message MarshalOptions.Canonical
	// encodes under it).
	ErrMapField = fault.ErrMapField
	// ErrMapEntry: a map entry other than its key as field 1 then its
	// value as field 2, each once.
	ErrMapEntry = errors.New("map entry not key then value")
)

// CanonicalError describes the first violation CheckCanonical found.
type CanonicalError struct {
	// Err is the rule broken: one of the Err* values listed with
	// ErrNotCanonical.
	Err error
	// Profile is the profile checked.
	Profile Profile
	// Message is the full name of the top message.
	Message protoreflect.FullName
	// Field is the full name of the field at fault, if there is one.
	Field protoreflect.FullName
	// Path locates the field from the top message, in the syntax of
	// Error.Path, such as `items[3].tags["k"].name`; empty for a
	// violation in the top message outside any field.
	Path string
	// Offset is where the violation starts in the bytes checked: the key
	// of the record at fault for the rules about records (order,
	// duplicates, wire types, defaults, unknown fields, maps), the
	// varint or value itself for the rules about values (a string's
	// length prefix for UTF-8), the end of the message for a missing
	// required field.
	Offset int
	// Detail says more where the rule alone does not; it may be empty.
	Detail string
}

// Error returns a one-line description: the rule, the field, the detail,
// the message, the path and the offset.
func (e *CanonicalError) Error() string {
	b := []byte("protolayout: not canonical (")
	b = append(b, e.Profile.String()...)
	b = append(b, "): "...)
	b = append(b, e.Err.Error()...)
	if e.Field != "" {
		b = append(b, " (field "...)
		b = append(b, e.Field...)
		b = append(b, ')')
	}
	if e.Detail != "" {
		b = append(b, ": "...)
		b = append(b, e.Detail...)
	}
	b = append(b, " in "...)
	b = append(b, e.Message...)
	if e.Path != "" {
		b = append(b, " at "...)
		b = append(b, e.Path...)
	}
	b = append(b, ", offset "...)
	b = strconv.AppendInt(b, int64(e.Offset), 10)
	return string(b)
}

// Unwrap returns the rule broken, Err.
func (e *CanonicalError) Unwrap() error { return e.Err }

// Is reports whether target is ErrNotCanonical, which every violation is.
func (e *CanonicalError) Is(target error) bool { return target == ErrNotCanonical }

// CanonicalOptions configure a canonical check.
type CanonicalOptions struct {
	// Profile is the set of rules checked; the zero value means
	// Canonical.
	Profile Profile
	// Resolver finds the extensions of extendable messages, as
	// proto.UnmarshalOptions.Resolver does; nil means
	// protoregistry.GlobalTypes. A field number that is neither declared
	// nor resolved is an unknown field.
	Resolver interface {
		FindExtensionByNumber(message protoreflect.FullName, field protoreflect.FieldNumber) (protoreflect.ExtensionType, error)
	}
}

// CheckCanonical reports whether b is the canonical encoding, under
// profile p, of a message of type md: nil if it is, else a
// *CanonicalError naming the first violation in b, with its field, path
// and offset. Extensions are resolved through protoregistry.GlobalTypes;
// CanonicalOptions.Check takes another resolver.
//
// b is accepted exactly when proto.Unmarshal reads it (into a dynamicpb
// message of md) and encoding the result under p's rules gives b again.
// So: a missing required field is a violation (ErrRequiredNotSet), since
// proto.Unmarshal refuses it and proto.Marshal would not write it;
// invalid UTF-8 where the field validates (layout's rule, protobuf-go's)
// is ErrInvalidUTF8; nesting deeper than proto.Unmarshal's default
// recursion limit (10,000 levels, counted as MarshalOptions.MaxDepth
// counts them) is ErrDepthExceeded; a MessageSet type is refused with
// ErrMessageSet. Groups (proto2 groups, editions DELIMITED fields) are
// accepted at their number, checked inside like any message. Enum values
// are not checked against the enum's values, closed enums included.
// Unknown fields, under Canonical, must be well formed (proto.Unmarshal
// refuses them otherwise) and follow every known field; inside them
// nothing is checked, since they are kept and written verbatim (their
// varints may be long, their numbers in any order). A record of a known
// field in a wire type its type cannot read is such an unknown field
// (and after every known field accepted as one); anywhere else it is
// ErrWireType. Float values are taken as their bits: every NaN and -0.0
// is canonical as written.
//
// It allocates nothing when b is canonical and never panics.
func CheckCanonical(b []byte, md protoreflect.MessageDescriptor, p Profile) error {
	return CanonicalOptions{Profile: p}.Check(b, md)
}

// Check is CheckCanonical under o's profile, with o's resolver.
func (o CanonicalOptions) Check(b []byte, md protoreflect.MessageDescriptor) error {
	c := checkers.Get().(*checker)
	*c = checker{b: b, profile: o.Profile, resolver: o.Resolver, top: md.FullName(), frames: c.frames[:0]}
	if c.resolver == nil {
		c.resolver = protoregistry.GlobalTypes
	}
	if c.profile == 0 {
		c.profile = Canonical
	}
	err := c.run(layout.Of(md))
	// Keep the frames' array for the next check, but nothing it points to
	// (no frame past the deepest this check reached holds anything).
	if cap(c.frames) <= maxPooledFrames {
		clear(c.frames[:c.deepest])
		*c = checker{frames: c.frames[:0]}
		checkers.Put(c)
	}
	if err != nil {
		return err
	}
	return nil
}

// checkers holds checkers between calls, for their frames' arrays: a
// check allocates nothing once one is warm.
var checkers = sync.Pool{New: func() any { return &checker{frames: make([]cframe, 0, 16)} }}

// maxPooledFrames bounds the frames' array a pooled checker keeps: a
// check of deeper nesting drops its checker.
const maxPooledFrames = 256

// maxCheckDepth is the nesting limit: proto.Unmarshal's default.
const maxCheckDepth = wire.DefaultMaxDepth

// cframe is one open message (or group) of a check.
type cframe struct {
	lay   *layout.Layout
	start int // the body's first byte
	end   int // the body's end; a group's is its parent's end
	group protowire.Number
	depth int

	// via is the field that opened the frame, index its element index
	// (or -1); a map value's frame has key set and keyAt, where its key's
	// value starts, to name its entry.
	via   *layout.Field
	index int
	key   bool
	keyAt int

	// last is the number of the last known field, lastF its record, count
	// how many records of it so far; prevKey* the previous entry's key
	// when lastF is a map.
	last        protowire.Number
	lastF       *layout.Field
	count       int
	prevKeyWord uint64
	prevKeyAt   int
	prevKeyLen  int
	// unknownAt is the offset of the first unknown record, or -1.
	unknownAt int
	unknownF  *layout.Field // a known field read as unknown (wire type)
	oneofs    uint64        // the oneofs (index < 64) seen
	req       int           // the next of lay.RequiredFields not yet passed
	missing   *layout.Field // the first required field passed unseen
	missingAt int           // where it would stand
}

type checker struct {
	b        []byte
	pos      int
	profile  Profile
	resolver interface {
		FindExtensionByNumber(protoreflect.FullName, protoreflect.FieldNumber) (protoreflect.ExtensionType, error)
	}
	top    protoreflect.FullName
	frames []cframe
	// deepest is the most frames open at once so far.
	deepest int
	err     *CanonicalError

	// For the path of a failure: entryF is the map field whose entry is
	// being checked, once its key (at entryKeyAt) is read; noLeaf leaves
	// the field out, for a failure of the innermost frame's own field.
	entryF     *layout.Field
	entryKeyAt int
	noLeaf     bool
}

// run checks the whole input against the layout of the top message.
func (c *checker) run(lay *layout.Layout) error {
	if lay.MessageSet {
		c.fail(ErrMessageSet, nil, 0, "")
		return c.err
	}
	c.frames = append(c.frames, cframe{lay: lay, end: len(c.b), depth: 1, index: -1, unknownAt: -1})
	c.deepest = 1
	for len(c.frames) > 0 {
		fr := &c.frames[len(c.frames)-1]
		if c.pos >= fr.end {
			if fr.group != 0 {
				c.noLeaf = true
				c.fail(ErrMalformed, fr.via, c.pos, "group not closed")
				return c.err
			}
			if !c.closeFrame(fr, c.pos) {
				return c.err
			}
			continue
		}
		if !c.records(fr) {
			return c.err
		}
	}
	return nil
}

// records checks the records of frame fr from c.pos, the commonest ones
// (a declared field with a key of one or two bytes, in order, of the
// wire type the profile asks, with a valid value) here, any other by
// record, which checks every rule and names the first violation. It
// opens the frames of nested messages and closes those that end with
// nothing left to check, and returns after a record it leaves to record,
// or at the end of a frame that closeFrame must check (a group, a
// message with required fields, the top message): false if the input is
// refused.
func (c *checker) records(fr *cframe) bool {
	b := c.b
	pos := c.pos
frames:
	for {
		end, lay := fr.end, fr.lay
		for pos < end {
			c.pos = pos
			// The key, in one or two bytes (both then minimal).
			tag := uint64(b[pos])
			next := pos + 1
			if tag >= 0x80 {
				if next >= end || b[next] == 0 || b[next] >= 0x80 {
					return c.record(fr)
				}
				tag = tag&0x7f | uint64(b[next])<<7
				next++
			}
			num, typ := protowire.Number(tag>>3), protowire.Type(tag&7)
			f := lay.ByNumber(num)
			if f == nil || f.Map || fr.unknownAt >= 0 {
				return c.record(fr)
			}
			packed := f.List && c.profile.packs(f)
			if packed && typ != protowire.BytesType || !packed && typ != f.WireType {
				return c.record(fr)
			}
			repeat := false
			switch {
			case num > fr.last:
				if fr.req < len(lay.RequiredFields) || f.Oneof >= 0 && (f.Oneof >= 64 || fr.oneofs&(1<<f.Oneof) != 0) {
					return c.record(fr) // enterField's checks
				}
			case num == fr.last && f.List && !packed:
				repeat = true
			default:
				return c.record(fr)
			}
			implicit := f.Presence == layout.PresenceImplicit
			switch typ {
			case protowire.VarintType:
				v, n := uint64(0), 0
				if next < end && b[next] < 0x80 {
					v, n = uint64(b[next]), 1
				} else {
					v, n = protowire.ConsumeVarint(b[next:end])
					if n < 0 || !minimalVarint(b[next:next+n]) {
						return c.record(fr)
					}
				}
				if implicit && v == 0 || !fitsKind(f.Kind, v) {
					return c.record(fr)
				}
				next += n
			case protowire.Fixed32Type:
				if end-next < 4 || implicit && binary.LittleEndian.Uint32(b[next:]) == 0 {
					return c.record(fr)
				}
				next += 4
			case protowire.Fixed64Type:
				if end-next < 8 || implicit && binary.LittleEndian.Uint64(b[next:]) == 0 {
					return c.record(fr)
				}
				next += 8
			case protowire.BytesType:
				if packed {
					return c.record(fr)
				}
				l, n := uint64(0), 0
				if next < end && b[next] < 0x80 {
					l, n = uint64(b[next]), 1
				} else {
					l, n = protowire.ConsumeVarint(b[next:end])
					if n < 0 || !minimalVarint(b[next:next+n]) {
						return c.record(fr)
					}
				}
				s := next + n
				if l > uint64(end-s) {
					return c.record(fr)
				}
				e := s + int(l)
				if f.IsMessage() {
					advance(fr, f, num, repeat)
					if !c.push(fr, f, s, e, 0, pos) { // too deep, or a MessageSet
						return false
					}
					fr, pos = &c.frames[len(c.frames)-1], s
					continue frames
				}
				if implicit && e == s || f.ValidateUTF8 && !utf8x.Valid(b[s:e]) {
					return c.record(fr)
				}
				next = e
			default: // a group, or a key that ends one
				return c.record(fr)
			}
			advance(fr, f, num, repeat)
			pos = next
		}
		c.pos = pos
		if fr.group != 0 || fr.missing != nil || fr.req < len(lay.RequiredFields) || len(c.frames) == 1 {
			return true // for closeFrame
		}
		c.frames = c.frames[:len(c.frames)-1]
		fr = &c.frames[len(c.frames)-1]
	}
}

// advance notes a record of field f, number num, in frame fr, checked by
// records: the first of its field (and of its oneof, if a member), or
// another of a repeated field.
func advance(fr *cframe, f *layout.Field, num protowire.Number, repeat bool) {
	if repeat {
		fr.count++
		return
	}
	if f.Oneof >= 0 {
		fr.oneofs |= 1 << f.Oneof
	}
	fr.last, fr.lastF, fr.count = num, f, 1
}

// fitsKind reports whether v, a varint, holds what a field of kind k
// writes (varintFits without the failure).
func fitsKind(k protoreflect.Kind, v uint64) bool {
	switch k {
	case protoreflect.BoolKind:
		return v <= 1
	case protoreflect.Int32Kind, protoreflect.EnumKind:
		return v == uint64(int64(int32(v)))
	case protoreflect.Uint32Kind, protoreflect.Sint32Kind:
		return v>>32 == 0
	}
	return true
}

// closeFrame ends the innermost frame at offset at: its required fields
// must all have been seen.
func (c *checker) closeFrame(fr *cframe, at int) bool {
	if fr.missing != nil {
		c.fail(ErrRequiredNotSet, fr.missing, fr.missingAt, "")
		return false
	}
	if fr.req < len(fr.lay.RequiredFields) {
		f := &fr.lay.Fields[fr.lay.RequiredFields[fr.req]]
		c.fail(ErrRequiredNotSet, f, at, "")
		return false
	}
	c.frames = c.frames[:len(c.frames)-1]
	return true
}

// packedRequired reports whether the profile writes repeated field f
// packed.
func (c *checker) packedRequired(f *layout.Field) bool {
	return c.profile.packs(f)
}

// packs reports whether profile p writes repeated field f packed: as it
// declares, or, under Signing, whenever its kind is packable
// (layout.Field.SigningPacks). The checker and the Writer ask it.
func (p Profile) packs(f *layout.Field) bool {
	return f.Packed || p == Signing && f.SigningPacks()
}

// varint reads a varint at c.pos within end, failing on malformed
// input; minimal asks for the minimal encoding. A one-byte varint, the
// commonest, is read here; longer ones by varintLong.
func (c *checker) varint(end int, f *layout.Field, what string, minimal bool) (uint64, bool) {
	if at := c.pos; at < end {
		if x := c.b[at]; x < 0x80 {
			c.pos = at + 1
			return uint64(x), true
		}
	}
	return c.varintLong(end, f, what, minimal)
}

// varintLong is varint for a varint of more than one byte (or none).
func (c *checker) varintLong(end int, f *layout.Field, what string, minimal bool) (uint64, bool) {
	at := c.pos
	v, n := protowire.ConsumeVarint(c.b[at:end])
	if n < 0 {
		c.fail(ErrMalformed, f, at, "bad or truncated "+what)
		return 0, false
	}
	if minimal && !minimalVarint(c.b[at:at+n]) {
		c.fail(ErrNonMinimalVarint, f, at, what)
		return 0, false
	}
	c.pos += n
	return v, true
}

// minimalVarint reports whether b, a well-formed varint, is its value's
// shortest encoding: one byte, or a last byte that is not zero (which
// would add nothing to the value).
func minimalVarint(b []byte) bool {
	return len(b) == 1 || b[len(b)-1] != 0
}

// record checks the record at c.pos in frame fr.
func (c *checker) record(fr *cframe) bool {
	at := c.pos
	tag, ok := c.varint(fr.end, nil, "tag", false)
	if !ok {
		return false
	}
	if tag>>3 < uint64(protowire.MinValidNumber) || tag>>3 > uint64(protowire.MaxValidNumber) {
		return c.fail(ErrMalformed, nil, at, "field number "+strconv.FormatUint(tag>>3, 10))
	}
	num, typ := protowire.Number(tag>>3), protowire.Type(tag&7)
	if typ == protowire.EndGroupType {
		c.noLeaf = true
		if fr.group != num {
			return c.fail(ErrMalformed, fr.via, at, "end-group key closes no open group")
		}
		if !minimalVarint(c.b[at:c.pos]) {
			return c.fail(ErrNonMinimalVarint, fr.via, at, "end-group key")
		}
		c.noLeaf = false
		return c.closeFrame(fr, at)
	}
	f := c.field(fr.lay, num)
	if f == nil || !readable(f, typ) {
		return c.unknown(fr, f, num, typ, at)
	}
	if !minimalVarint(c.b[at:c.pos]) {
		return c.fail(ErrNonMinimalVarint, f, at, "tag")
	}
	if fr.unknownAt >= 0 {
		// A known field after unknown records: the first of those is out
		// of place.
		if fr.unknownF != nil {
			return c.fail(ErrWireType, fr.unknownF, fr.unknownAt, "read as an unknown field, before "+string(f.FullName))
		}
		return c.fail(ErrUnknownField, nil, fr.unknownAt, "before field "+string(f.FullName)+" at offset "+strconv.Itoa(at))
	}
	switch {
	case num < fr.last:
		return c.fail(ErrOutOfOrder, f, at, "after field "+strconv.Itoa(int(fr.last)))
	case num == fr.last:
		if !f.Map && !f.List {
			return c.fail(ErrDuplicateField, f, at, "")
		}
		if c.packedRequired(f) && typ == protowire.BytesType {
			return c.fail(ErrDuplicateField, f, at, "a packed field split into two records")
		}
		fr.count++
	default:
		if !c.enterField(fr, f, num, at) {
			return false
		}
	}
	if f.Map {
		return c.mapEntry(fr, f, at)
	}
	want := f.WireType
	if f.List && c.packedRequired(f) {
		want = protowire.BytesType
	}
	if typ != want {
		detail := "unpacked, the profile packs it"
		if want != protowire.BytesType {
			detail = "packed, the field is not packed"
		}
		return c.fail(ErrWireType, f, at, detail)
	}
	if typ == protowire.BytesType && f.List && wire.Packable(f.Kind) {
		return c.packed(fr, f, at)
	}
	return c.value(fr, f, typ, fr.end, f.Presence == layout.PresenceImplicit, at)
}

// enterField checks the first record of field f, number num, at offset
// at: required fields skipped, a second oneof member.
func (c *checker) enterField(fr *cframe, f *layout.Field, num protowire.Number, at int) bool {
	lay := fr.lay
	for fr.req < len(lay.RequiredFields) {
		r := &lay.Fields[lay.RequiredFields[fr.req]]
		if r.Number > num {
			break
		}
		if r.Number < num && fr.missing == nil {
			// Reported when the message ends, so that a field out of
			// order (the required one coming later) is named instead.
			fr.missing, fr.missingAt = r, at
		}
		fr.req++
	}
	if f.Oneof >= 0 && !f.Extension {
		seen := false
		if f.Oneof < 64 {
			seen = fr.oneofs&(1<<f.Oneof) != 0
			fr.oneofs |= 1 << f.Oneof
		} else {
			seen = c.oneofSeen(fr, f.Oneof, at)
		}
		if seen {
			return c.fail(ErrOneofConflict, f, at, "oneof "+string(lay.Oneofs[f.Oneof].Name))
		}
	}
	fr.last, fr.lastF, fr.count = num, f, 1
	return true
}

// oneofSeen reports whether a member of oneof o of the frame's message
// comes before offset at, reading the frame's records again (for the
// rare messages of more than 64 oneofs; they were checked already).
func (c *checker) oneofSeen(fr *cframe, o int, at int) bool {
	b := c.b[:at]
	for i := fr.start; i < at; {
		num, typ, n := protowire.ConsumeTag(b[i:])
		if n < 0 {
			return false
		}
		i += n
		if f := fr.lay.ByNumber(num); f != nil && f.Oneof == o {
			return true
		}
		m := protowire.ConsumeFieldValue(num, typ, b[i:])
		if m < 0 {
			return false
		}
		i += m
	}
	return false
}

// field returns the record of field num of lay: declared, or an extension
// the resolver knows; nil for an unknown field.
func (c *checker) field(lay *layout.Layout, num protowire.Number) *layout.Field {
	if f := lay.ByNumber(num); f != nil {
		return f
	}
	if !lay.Extendable {
		return nil
	}
	xt, err := c.resolver.FindExtensionByNumber(lay.FullName, num)
	if err != nil || xt == nil {
		return nil
	}
	xd := xt.TypeDescriptor()
	if xd.ContainingMessage().FullName() != lay.FullName || xd.Number() != num {
		return nil
	}
	return layout.Extension(xd)
}

// readable reports whether proto.Unmarshal reads a record of wire type typ
// as field f (else it keeps it as an unknown field).
func readable(f *layout.Field, typ protowire.Type) bool {
	switch {
	case f.Map:
		return typ == protowire.BytesType
	case f.List && wire.Packable(f.Kind):
		return typ == protowire.BytesType || typ == f.WireType
	}
	return typ == f.WireType
}

// unknown checks an unknown record (f is set for a known field in a wire
// type it cannot read), whose key, of number num and type typ, is at at.
func (c *checker) unknown(fr *cframe, f *layout.Field, num protowire.Number, typ protowire.Type, at int) bool {
	n := protowire.ConsumeFieldValue(num, typ, c.b[c.pos:fr.end])
	if n < 0 {
		return c.fail(ErrMalformed, f, at, "bad or truncated field "+strconv.Itoa(int(num)))
	}
	if c.profile == Signing {
		if f != nil {
			return c.fail(ErrWireType, f, at, "a wire type the field does not read")
		}
		return c.fail(ErrUnknownField, nil, at, "field number "+strconv.Itoa(int(num)))
	}
	if fr.unknownAt < 0 {
		fr.unknownAt, fr.unknownF = at, f
	}
	c.pos += n
	return true
}

// value checks one value of field f, of wire type typ, at c.pos within
// end; implicit asks for a value other than the default. at is the
// record's key.
func (c *checker) value(fr *cframe, f *layout.Field, typ protowire.Type, end int, implicit bool, at int) bool {
	switch typ {
	case protowire.VarintType:
		vat := c.pos
		v, ok := c.varint(end, f, "value", true)
		if !ok {
			return false
		}
		if !c.varintFits(f.Kind, f, v, vat) {
			return false
		}
		if implicit && v == 0 {
			return c.fail(ErrDefaultPresent, f, at, "")
		}
	case protowire.Fixed32Type, protowire.Fixed64Type:
		w := 4
		if typ == protowire.Fixed64Type {
			w = 8
		}
		if end-c.pos < w {
			return c.fail(ErrMalformed, f, c.pos, "truncated value")
		}
		if implicit {
			var x uint64
			if w == 4 {
				x = uint64(binary.LittleEndian.Uint32(c.b[c.pos:]))
			} else {
				x = binary.LittleEndian.Uint64(c.b[c.pos:])
			}
			if x == 0 {
				return c.fail(ErrDefaultPresent, f, at, "")
			}
		}
		c.pos += w
	case protowire.BytesType:
		lat := c.pos
		e, ok := c.length(end, f)
		if !ok {
			return false
		}
		s := c.pos
		if f.IsMessage() {
			return c.push(fr, f, s, e, 0, at)
		}
		if implicit && e == s {
			return c.fail(ErrDefaultPresent, f, at, "")
		}
		if f.ValidateUTF8 && !utf8x.Valid(c.b[s:e]) {
			return c.fail(ErrInvalidUTF8, f, lat, "")
		}
		c.pos = e
	case protowire.StartGroupType:
		return c.push(fr, f, c.pos, fr.end, f.Number, at)
	}
	return true
}

// varintFits checks that v, a varint read at vat for field f (blamed), of
// kind k, holds what k writes.
func (c *checker) varintFits(k protoreflect.Kind, f *layout.Field, v uint64, vat int) bool {
	if fitsKind(k, v) {
		return true
	}
	switch k {
	case protoreflect.BoolKind:
		return c.fail(ErrBoolValue, f, vat, "")
	case protoreflect.Int32Kind, protoreflect.EnumKind:
		return c.fail(ErrVarintRange, f, vat, "not a sign-extended 32-bit value")
	}
	return c.fail(ErrVarintRange, f, vat, "past 32 bits")
}

// push opens the frame of a message or group value of field f, body from
// s (end e, or a group's bound), key at at.
func (c *checker) push(fr *cframe, f *layout.Field, s, e int, group protowire.Number, at int) bool {
	child := f.Message()
	if fr.depth+1 > maxCheckDepth {
		return c.fail(ErrDepthExceeded, f, at, "")
	}
	if child.MessageSet {
		return c.fail(ErrMessageSet, f, at, "")
	}
	index := -1
	if f.List {
		index = fr.count - 1
	}
	c.pos = s
	c.frames = append(c.frames, cframe{
		lay: child, start: s, end: e, group: group, depth: fr.depth + 1,
		via: f, index: index, unknownAt: -1,
	})
	c.deepest = max(c.deepest, len(c.frames))
	return true
}

// length reads the length prefix at c.pos of a record of field f that
// must end by end, and returns where the record's body ends.
func (c *checker) length(end int, f *layout.Field) (int, bool) {
	at := c.pos
	n, ok := c.varint(end, f, "length", true)
	if !ok {
		return 0, false
	}
	if n > uint64(end-c.pos) {
		return 0, c.fail(ErrMalformed, f, at, "length past the end")
	}
	return c.pos + int(n), true
}

// packed checks the body of a packed record of field f at c.pos (its
// length prefix), whose key is at at.
func (c *checker) packed(fr *cframe, f *layout.Field, at int) bool {
	lat := c.pos
	e, ok := c.length(fr.end, f)
	if !ok {
		return false
	}
	n := uint64(e - c.pos)
	if n == 0 {
		return c.fail(ErrEmptyPacked, f, at, "")
	}
	switch f.WireType {
	case protowire.Fixed32Type, protowire.Fixed64Type:
		w := uint64(4)
		if f.WireType == protowire.Fixed64Type {
			w = 8
		}
		if n%w != 0 {
			return c.fail(ErrMalformed, f, lat, "packed length not a multiple of the width")
		}
		c.pos = e
		return true
	}
	for c.pos < e {
		vat := c.pos
		v, ok := c.varint(e, f, "value", true)
		if !ok || !c.varintFits(f.Kind, f, v, vat) {
			return false
		}
	}
	return true
}

// mapEntry checks a map entry of map field f at c.pos (its length
// prefix), whose key is at at.
func (c *checker) mapEntry(fr *cframe, f *layout.Field, at int) bool {
	if c.profile == Signing {
		return c.fail(ErrMapField, f, at, "")
	}
	if fr.depth+1 > maxCheckDepth {
		return c.fail(ErrDepthExceeded, f, at, "")
	}
	e, ok := c.length(fr.end, f)
	if !ok {
		return false
	}
	k, v := f.MapKey, f.MapValue

	// The key: field 1, always written.
	if !c.entryTag(e, f, k.Tag[0], "key") {
		return false
	}
	kat := c.pos
	var kw uint64
	ks, kn := 0, 0 // a string key's bytes
	switch k.WireType {
	case protowire.VarintType:
		x, ok := c.varint(e, f, "map key", true)
		if !ok || !c.varintFits(k.Kind, k, x, kat) {
			return false
		}
		kw = wire.WireWord(k.Kind, x)
	case protowire.Fixed32Type, protowire.Fixed64Type:
		if k.WireType == protowire.Fixed32Type {
			if e-c.pos < 4 {
				return c.fail(ErrMalformed, f, c.pos, "truncated map key")
			}
			x, _ := protowire.ConsumeFixed32(c.b[c.pos:])
			kw = wire.WireWord(k.Kind, uint64(x))
			c.pos += 4
		} else {
			if e-c.pos < 8 {
				return c.fail(ErrMalformed, f, c.pos, "truncated map key")
			}
			kw, _ = protowire.ConsumeFixed64(c.b[c.pos:])
			c.pos += 8
		}
	default: // string
		l, ok := c.varint(e, f, "map key length", true)
		if !ok {
			return false
		}
		if l > uint64(e-c.pos) {
			return c.fail(ErrMalformed, f, kat, "length past the end")
		}
		ks, kn = c.pos, int(l)
		c.pos += kn
		if k.ValidateUTF8 && !utf8x.Valid(c.b[ks:c.pos]) {
			return c.fail(ErrInvalidUTF8, k, kat, "map key")
		}
	}
	c.entryF, c.entryKeyAt = f, kat
	if fr.count > 1 {
		var cmp int
		if k.WireType == protowire.BytesType {
			cmp = bytes.Compare(c.b[ks:ks+kn], c.b[fr.prevKeyAt:fr.prevKeyAt+fr.prevKeyLen])
		} else {
			r, pr := f.KeyOrder.Rank(kw), f.KeyOrder.Rank(fr.prevKeyWord)
			cmp = 1
			if r < pr {
				cmp = -1
			} else if r == pr {
				cmp = 0
			}
		}
		if cmp <= 0 {
			detail := "below the previous key"
			if cmp == 0 {
				detail = "the previous key again"
			}
			return c.fail(ErrMapKeyOrder, f, at, detail)
		}
	}
	fr.prevKeyWord, fr.prevKeyAt, fr.prevKeyLen = kw, ks, kn

	// The value: field 2, always written, last.
	if !c.entryTag(e, v, v.Tag[0], "value") {
		return false
	}
	if v.IsMessage() {
		if fr.depth+2 > maxCheckDepth {
			return c.fail(ErrDepthExceeded, v, at, "")
		}
		l, ok := c.varint(e, v, "length", true)
		if !ok {
			return false
		}
		if l != uint64(e-c.pos) {
			if l > uint64(e-c.pos) {
				return c.fail(ErrMalformed, v, c.pos, "length past the end")
			}
			return c.fail(ErrMapEntry, v, c.pos+int(l), "data after the value")
		}
		if v.Message().MessageSet {
			return c.fail(ErrMessageSet, v, at, "")
		}
		c.entryF = nil
		c.frames = append(c.frames, cframe{
			lay: v.Message(), start: c.pos, end: e, depth: fr.depth + 2,
			via: f, index: -1, key: true, keyAt: kat, unknownAt: -1,
		})
		c.deepest = max(c.deepest, len(c.frames))
		return true
	}
	if !c.value(fr, v, v.WireType, e, false, at) {
		return false
	}
	if c.pos != e {
		return c.fail(ErrMapEntry, v, c.pos, "data after the value")
	}
	c.entryF = nil
	return true
}

// entryTag reads the one-byte key want of a map entry's key or value
// (what) at c.pos within the entry's end e.
func (c *checker) entryTag(e int, f *layout.Field, want byte, what string) bool {
	if c.pos < e && c.b[c.pos] == want {
		c.pos++
		return true
	}
	if c.pos >= e {
		return c.fail(ErrMapEntry, f, c.pos, what+" missing")
	}
	at := c.pos
	tag, n := protowire.ConsumeVarint(c.b[at:e])
	switch {
	case n < 0:
		return c.fail(ErrMalformed, f, at, "bad or truncated tag")
	case tag == uint64(want):
		return c.fail(ErrNonMinimalVarint, f, at, "tag")
	}
	return c.fail(ErrMapEntry, f, at, what+" expected")
}

// fail records violation err of field f (nil for none) at offset off and
// returns false.
func (c *checker) fail(err error, f *layout.Field, off int, detail string) bool {
	e := &CanonicalError{Err: err, Profile: c.profile, Message: c.top, Offset: off, Detail: detail}
	if f != nil {
		e.Field = f.FullName
	}
	e.Path = c.path(f)
	c.err = e
	return false
}

// path renders the path to field f (left out with noLeaf) from the top
// message: the frames open, then the map entry being read, if any. It
// copies what it reads, so that the checker itself stays on the stack.
func (c *checker) path(f *layout.Field) string {
	frames := slices.Clone(c.frames)
	in, entryF, entryKeyAt := c.b, c.entryF, c.entryKeyAt
	n := max(len(frames)-1, 0)
	if c.noLeaf {
		f = nil
	}
	if entryF != nil {
		n++
	}
	p := fault.AppendSteps(nil, n, func(i int) fault.PathStep {
		if i == len(frames)-1 {
			return fault.PathStep{Field: entryF, Index: -1, Key: func(b []byte) []byte { return appendMapKey(b, in, entryF.MapKey, entryKeyAt) }}
		}
		fr := &frames[i+1]
		if fr.key {
			return fault.PathStep{Field: fr.via, Index: -1, Key: func(b []byte) []byte { return appendMapKey(b, in, fr.via.MapKey, fr.keyAt) }}
		}
		return fault.PathStep{Field: fr.via, Index: fr.index}
	}, f)
	return string(p)
}

// appendMapKey appends the map key of field k read at offset at of in, as
// a path names it (fault.AppendKey).
func appendMapKey(b, in []byte, k *layout.Field, at int) []byte {
	in = in[at:]
	switch k.WireType {
	case protowire.VarintType:
		x, _ := protowire.ConsumeVarint(in)
		return fault.AppendKey(b, k.Kind, wire.WireWord(k.Kind, x), "")
	case protowire.Fixed32Type:
		x, _ := protowire.ConsumeFixed32(in)
		return fault.AppendKey(b, k.Kind, wire.WireWord(k.Kind, uint64(x)), "")
	case protowire.Fixed64Type:
		x, _ := protowire.ConsumeFixed64(in)
		return fault.AppendKey(b, k.Kind, x, "")
	}
	s, _ := protowire.ConsumeBytes(in)
	return fault.AppendKey(b, k.Kind, 0, string(s))
}
