package engine

import (
	"bytes"
	"math"
	"math/bits"
	"reflect"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/runtime/protoiface"
)

// Equal, over the storage: proto.Equal of two Messages (which calls the
// Equal method when both messages offer one) compares their storage
// field by field, with the rules of protoreflect's Value.Equal, which the
// proto package applies otherwise: the same descriptor, the same
// populated fields and extensions with equal values (floating-point
// values with ==, but NaN equal to NaN; bytes with bytes.Equal; lists
// element by element; maps entry by entry; messages recursively), and
// the same unknown fields, byte for byte or, failing that, as the same
// records for each field number in the same order.

// equal implements protoiface.Methods.Equal.
func equal(in protoiface.EqualInput) protoiface.EqualOutput {
	x, okx := in.MessageA.(*Message)
	y, oky := in.MessageB.(*Message)
	if !okx || !oky || x == nil || y == nil {
		// Not both of this package (the proto package calls Equal only
		// when both have it): protoreflect's comparison, which calls no
		// fast path.
		return protoiface.EqualOutput{Equal: protoreflect.ValueOfMessage(in.MessageA).Equal(protoreflect.ValueOfMessage(in.MessageB))}
	}
	return protoiface.EqualOutput{Equal: equalMessages(x, y, 0)}
}

// equalMessages reports whether x and y, at level depth, are equal.
func equalMessages(x, y *Message, depth int) bool {
	if x == y {
		return true
	}
	if x.t.desc != y.t.desc {
		return false
	}
	if depth > maxMergeDepth {
		panic(errorf("%v: comparing messages nested more than %d levels deep: they contain themselves", x.t.desc.FullName(), maxMergeDepth))
	}
	if !x.IsValid() || !y.IsValid() {
		// A read-only message has nothing set: the other must not either.
		return empty(x) && empty(y)
	}
	s := x.t.shape
	xw, yw := x.words(), y.words()
	for k := range s.touchedWords() {
		for t := s.touchedBits(xw, k) | s.touchedBits(yw, k); t != 0; t &= t - 1 {
			i := k*64 + bits.TrailingZeros64(t)
			f := &s.fields[i]
			hx, hy := x.has(f, i), y.has(f, i)
			if hx != hy || hx && !equalFields(x, y, f, depth) {
				return false
			}
		}
	}
	return equalExtensions(x.exts(), y.exts(), depth) && equalUnknown(x.GetUnknown(), y.GetUnknown())
}

// empty reports whether m has no populated field, extension or unknown
// field.
func empty(m *Message) bool {
	nothing := true
	m.Range(func(protoreflect.FieldDescriptor, protoreflect.Value) bool {
		nothing = false
		return false
	})
	return nothing && len(m.GetUnknown()) == 0
}

// equalFields reports whether the field of record f, set in both x and
// y (of one shape), has equal values in them.
func equalFields(x, y *Message, f *field, depth int) bool {
	switch f.class {
	case classScalar:
		return equalWords(f.kind, x.words()[f.slot], y.words()[f.slot])
	case classString:
		return x.strs()[f.slot] == y.strs()[f.slot]
	case classBytes:
		return bytes.Equal(x.bytesAt(f.slot), y.bytesAt(f.slot))
	case classMessage:
		return equalMessages(x.msgAt(f.slot), y.msgAt(f.slot), depth+1)
	case classList:
		return equalLists(x.lists()[f.slot], y.lists()[f.slot], depth)
	default:
		return equalMaps(x.maps()[f.slot], y.maps()[f.slot], depth)
	}
}

// equalWords reports whether two scalars of kind k, kept as words (see
// toWord), are equal: floating-point values by value, NaN equal to NaN.
func equalWords(k protoreflect.Kind, a, b uint64) bool {
	switch k {
	case protoreflect.FloatKind:
		return equalFloat(float64(math.Float32frombits(uint32(a))), float64(math.Float32frombits(uint32(b))))
	case protoreflect.DoubleKind:
		return equalFloat(math.Float64frombits(a), math.Float64frombits(b))
	}
	return a == b
}

// equalFloat reports whether x and y are equal, NaN equal to NaN.
func equalFloat(x, y float64) bool {
	if math.IsNaN(x) || math.IsNaN(y) {
		return math.IsNaN(x) && math.IsNaN(y)
	}
	return x == y
}

// equalLists reports whether the lists x and y, of one field of messages
// at level depth, hold equal elements.
func equalLists(x, y *list, depth int) bool {
	if x.Len() != y.Len() {
		return false
	}
	switch classOfKind(x.kind) {
	case classScalar:
		for i := range x.Len() {
			if !equalWords(x.kind, x.word(i), y.word(i)) {
				return false
			}
		}
	case classString:
		sy := y.strs()
		for i, s := range x.strs() {
			if s != sy[i] {
				return false
			}
		}
	case classBytes:
		by := y.bytes()
		for i, b := range x.bytes() {
			if !bytes.Equal(b, by[i]) {
				return false
			}
		}
	default:
		my := y.msgs()
		for i, m := range x.msgs() {
			if !equalMessages(m, my[i], depth+1) {
				return false
			}
		}
	}
	return true
}

// equalMaps reports whether the maps x and y, of one field of messages
// at level depth, hold the same keys with equal values.
func equalMaps(x, y *dmap, depth int) bool {
	if x.Len() != y.Len() {
		return false
	}
	messages := x.vd.Message() != nil
	value := func(a, b protoreflect.Value) bool {
		if messages {
			ma, oka := a.Message().(*Message)
			mb, okb := b.Message().(*Message)
			if oka && okb {
				return equalMessages(ma, mb, depth+1)
			}
		}
		return a.Equal(b)
	}
	if x.strs != nil {
		for k, a := range x.strs {
			b, ok := y.strs[k]
			if !ok || !value(a, b) {
				return false
			}
		}
		return true
	}
	for k, a := range x.words {
		b, ok := y.words[k]
		if !ok || !value(a, b) {
			return false
		}
	}
	return true
}

// equalExtensions reports whether the extensions of two messages at
// level depth (each in ascending number) are the same populated
// extensions, set with the same descriptors (as Has tells), with equal
// values.
func equalExtensions(xs, ys []extension, depth int) bool {
	i, j := 0, 0
	for {
		for i < len(xs) && !extensionSet(xs[i].fd, xs[i].v) {
			i++
		}
		for j < len(ys) && !extensionSet(ys[j].fd, ys[j].v) {
			j++
		}
		if i == len(xs) || j == len(ys) {
			return i == len(xs) && j == len(ys)
		}
		x, y := &xs[i], &ys[j]
		if x.num != y.num || x.fd != y.fd || !equalExtension(x.fd, x.v, y.v, depth) {
			return false
		}
		i, j = i+1, j+1
	}
}

// equalExtension reports whether a and b, values of the extension fd of
// messages at level depth, are equal: over the storage when both are
// this package's, else as protoreflect compares values.
func equalExtension(fd protoreflect.FieldDescriptor, a, b protoreflect.Value, depth int) bool {
	switch {
	case fd.IsList():
		la, oka := a.List().(*list)
		lb, okb := b.List().(*list)
		if oka && okb {
			return equalLists(la, lb, depth)
		}
	case fd.Message() != nil:
		ma, oka := a.Message().(*Message)
		mb, okb := b.Message().(*Message)
		if oka && okb {
			return equalMessages(ma, mb, depth+1)
		}
	}
	return a.Equal(b)
}

// equalUnknown reports whether two messages' unknown fields are equal:
// the same bytes, or the same records for each field number, in the same
// order (records of different numbers may interleave differently).
func equalUnknown(x, y protoreflect.RawFields) bool {
	if len(x) != len(y) {
		return false
	}
	if bytes.Equal(x, y) {
		return true
	}
	gx, okx := byNumber(x)
	gy, oky := byNumber(y)
	return okx && oky && reflect.DeepEqual(gx, gy)
}

// byNumber groups the records of raw by field number, each group's
// records in their order; false if raw does not parse.
func byNumber(raw protoreflect.RawFields) (map[protoreflect.FieldNumber][]byte, bool) {
	g := make(map[protoreflect.FieldNumber][]byte)
	for len(raw) > 0 {
		num, _, n := protowire.ConsumeField(raw)
		if n < 0 {
			return nil, false
		}
		g[num] = append(g[num], raw[:n]...)
		raw = raw[n:]
	}
	return g, true
}
