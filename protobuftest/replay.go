package protobuftest

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/encoder"
)

// Op names a method of encoder.Writer.
type Op uint8

// The Writer methods a Call can make.
const (
	OpInt32 Op = iota + 1
	OpInt64
	OpUint32
	OpUint64
	OpFloat32
	OpFloat64
	OpBool
	OpEnum
	OpEnumName
	OpString
	OpBytes
	OpInt32s
	OpInt64s
	OpUint32s
	OpUint64s
	OpFloat32s
	OpFloat64s
	OpBools
	OpEnums
	OpStrings
	OpBegin
	OpEnd
	OpMessage
	OpRaw
	OpUnknown
	OpFinish
	// BeginEntryString and the like: Begin on a map field and the entry's
	// key, in one call (the key in Str, Int, Uint or Bool).
	OpBeginEntryString
	OpBeginEntryInt
	OpBeginEntryUint
	OpBeginEntryBool
)

var opNames = [...]string{"?", "Int32", "Int64", "Uint32", "Uint64", "Float32", "Float64", "Bool", "Enum", "EnumName",
	"String", "Bytes", "Int32s", "Int64s", "Uint32s", "Uint64s", "Float32s", "Float64s", "Bools", "Enums", "Strings",
	"Begin", "End", "Message", "Raw", "Unknown", "Finish",
	"BeginEntryString", "BeginEntryInt", "BeginEntryUint", "BeginEntryBool"}

// String returns the method's name.
func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// Call is one call of an encoder.Writer method. Which value fields are
// used depends on Op: Int for the signed and enum methods, Uint for the
// unsigned ones, Float for the float methods (Float32 takes
// float32(Float)), Bool, Str for String and EnumName, Raw for Bytes, Raw
// and Unknown, List for the slice methods (a []int32, []int64, ...), Msg
// for Message.
type Call struct {
	Op    Op               // the method
	Num   protowire.Number // the field number (none for End and Finish)
	Int   int64            // the value of the signed and enum methods
	Uint  uint64           // the value of the unsigned methods
	Float float64          // the value of the float methods
	Bool  bool             // the value of Bool
	Str   string           // the value of String and EnumName
	Raw   []byte           // the value of Bytes, Raw and Unknown
	List  any              // the slice of the slice methods
	Msg   proto.Message    // the message of Message
}

// String describes the call, for failure messages.
func (c Call) String() string {
	switch c.Op {
	case OpEnd, OpFinish:
		return c.Op.String() + "()"
	case OpUnknown:
		return fmt.Sprintf("Unknown(% x)", c.Raw)
	case OpBegin:
		return fmt.Sprintf("Begin(%d)", c.Num)
	case OpBeginEntryString:
		return fmt.Sprintf("BeginEntryString(%d, %q)", c.Num, c.Str)
	case OpBeginEntryInt:
		return fmt.Sprintf("BeginEntryInt(%d, %d)", c.Num, c.Int)
	case OpBeginEntryUint:
		return fmt.Sprintf("BeginEntryUint(%d, %d)", c.Num, c.Uint)
	case OpBeginEntryBool:
		return fmt.Sprintf("BeginEntryBool(%d, %v)", c.Num, c.Bool)
	case OpInt32, OpInt64, OpEnum:
		return fmt.Sprintf("%s(%d, %d)", c.Op, c.Num, c.Int)
	case OpUint32, OpUint64:
		return fmt.Sprintf("%s(%d, %d)", c.Op, c.Num, c.Uint)
	case OpFloat32, OpFloat64:
		return fmt.Sprintf("%s(%d, %v)", c.Op, c.Num, c.Float)
	case OpBool:
		return fmt.Sprintf("Bool(%d, %v)", c.Num, c.Bool)
	case OpString, OpEnumName:
		return fmt.Sprintf("%s(%d, %q)", c.Op, c.Num, c.Str)
	case OpBytes, OpRaw:
		return fmt.Sprintf("%s(%d, % x)", c.Op, c.Num, c.Raw)
	case OpMessage:
		return fmt.Sprintf("Message(%d, %v)", c.Num, c.Msg)
	}
	return fmt.Sprintf("%s(%d, %v)", c.Op, c.Num, c.List)
}

// Apply makes the call on w. OpFinish calls Finish and drops its result.
func (c Call) Apply(w *encoder.Writer) {
	switch c.Op {
	case OpInt32:
		w.Int32(c.Num, int32(c.Int))
	case OpInt64:
		w.Int64(c.Num, c.Int)
	case OpUint32:
		w.Uint32(c.Num, uint32(c.Uint))
	case OpUint64:
		w.Uint64(c.Num, c.Uint)
	case OpFloat32:
		w.Float32(c.Num, float32(c.Float))
	case OpFloat64:
		w.Float64(c.Num, c.Float)
	case OpBool:
		w.Bool(c.Num, c.Bool)
	case OpEnum:
		w.Enum(c.Num, protoreflect.EnumNumber(c.Int))
	case OpEnumName:
		w.EnumName(c.Num, c.Str)
	case OpString:
		w.String(c.Num, c.Str)
	case OpBytes:
		w.Bytes(c.Num, c.Raw)
	case OpInt32s:
		w.Int32s(c.Num, c.List.([]int32))
	case OpInt64s:
		w.Int64s(c.Num, c.List.([]int64))
	case OpUint32s:
		w.Uint32s(c.Num, c.List.([]uint32))
	case OpUint64s:
		w.Uint64s(c.Num, c.List.([]uint64))
	case OpFloat32s:
		w.Float32s(c.Num, c.List.([]float32))
	case OpFloat64s:
		w.Float64s(c.Num, c.List.([]float64))
	case OpBools:
		w.Bools(c.Num, c.List.([]bool))
	case OpEnums:
		w.Enums(c.Num, c.List.([]protoreflect.EnumNumber))
	case OpStrings:
		w.Strings(c.Num, c.List.([]string))
	case OpBegin:
		w.Begin(c.Num)
	case OpBeginEntryString:
		w.BeginEntryString(c.Num, c.Str)
	case OpBeginEntryInt:
		w.BeginEntryInt(c.Num, c.Int)
	case OpBeginEntryUint:
		w.BeginEntryUint(c.Num, c.Uint)
	case OpBeginEntryBool:
		w.BeginEntryBool(c.Num, c.Bool)
	case OpEnd:
		w.End()
	case OpMessage:
		w.Message(c.Num, c.Msg)
	case OpRaw:
		w.Raw(c.Num, c.Raw)
	case OpUnknown:
		w.Unknown(c.Raw)
	case OpFinish:
		_, _ = w.Finish()
	}
}

// Replay makes calls on w in order, then returns w.Finish().
func Replay(w *encoder.Writer, calls []Call) ([]byte, error) {
	for _, c := range calls {
		c.Apply(w)
	}
	return w.Finish()
}

// ReplayOptions chooses among the equivalent ways of writing a message.
type ReplayOptions struct {
	// Seed drives the choices: element by element or whole slices (or
	// both, split), Int64 or Int32 for a 32-bit field, Float64 or Float32
	// for a float, Enum or EnumName, String or Bytes, Begin/End, Message
	// or Raw for a nested message, zero values written or left out where
	// the Writer skips or supplies them.
	Seed uint64
	// NoEmbeds never uses Message or Raw (everything nests with Begin).
	NoEmbeds bool
	// Canonical, when not zero, writes for a Writer with the same
	// encoder.WriterOptions.Canonical: fields and extensions merged in
	// ascending field number, and Raw's bytes encoded by
	// encoder.MarshalOptions with that profile.
	Canonical encoder.Profile
}

// Calls returns the Writer calls that describe m (without Finish): set
// extensions by ascending number, then fields in proto.Marshal's order
// (computed here from the descriptor, independently of package layout),
// map entries by ascending key, then m's unknown bytes. Writing them to a
// Writer for m's descriptor (with m's extension types resolvable) must give
// proto.MarshalOptions{Deterministic: true}.Marshal(m). With
// o.Canonical, fields and extensions come merged by number, and writing
// them to a Writer of that profile must give
// encoder.MarshalOptions{Canonical: o.Canonical}.Marshal(m).
func Calls(m proto.Message, o ReplayOptions) []Call {
	r := &replayer{r: rand.New(rand.NewPCG(o.Seed, o.Seed^0x5eed)), o: o}
	r.message(m.ProtoReflect())
	return r.calls
}

type replayer struct {
	r     *rand.Rand
	o     ReplayOptions
	calls []Call
}

func (r *replayer) add(c Call) { r.calls = append(r.calls, c) }

func (r *replayer) chance(n, d int) bool { return r.r.IntN(d) < n }

// EmissionOrder returns md's fields in proto.Marshal's order: fields
// outside real oneofs by number, then real oneof members by oneof
// declaration index, then by number.
func EmissionOrder(md protoreflect.MessageDescriptor) []protoreflect.FieldDescriptor {
	fds := md.Fields()
	out := make([]protoreflect.FieldDescriptor, fds.Len())
	for i := range out {
		out[i] = fds.Get(i)
	}
	oneof := func(fd protoreflect.FieldDescriptor) int {
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			return od.Index()
		}
		return -1
	}
	slices.SortStableFunc(out, func(a, b protoreflect.FieldDescriptor) int {
		if c := cmp.Compare(oneof(a), oneof(b)); c != 0 {
			return c
		}
		return cmp.Compare(a.Number(), b.Number())
	})
	return out
}

func (r *replayer) message(m protoreflect.Message) {
	if !m.IsValid() {
		return
	}
	var exts []protoreflect.FieldDescriptor
	m.Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
		if fd.IsExtension() {
			exts = append(exts, fd)
		}
		return true
	})
	byNumber := func(a, b protoreflect.FieldDescriptor) int { return cmp.Compare(a.Number(), b.Number()) }
	slices.SortFunc(exts, byNumber)
	order := append(exts, EmissionOrder(m.Descriptor())...)
	if r.o.Canonical != 0 {
		slices.SortStableFunc(order, byNumber)
	}
	for _, fd := range order {
		if fd.IsExtension() {
			r.field(m, fd, m.Get(fd))
			continue
		}
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			if m.WhichOneof(od) == fd {
				r.field(m, fd, m.Get(fd))
			}
			continue
		}
		if m.Has(fd) {
			r.field(m, fd, m.Get(fd))
			continue
		}
		// An unset implicit-presence scalar: write its zero value now and
		// then, which the Writer must skip.
		if !fd.HasPresence() && !fd.IsList() && !fd.IsMap() && fd.Message() == nil && r.chance(1, 4) {
			r.scalar(fd, fd.Default(), false)
		}
	}
	if u := m.GetUnknown(); len(u) > 0 {
		r.add(Call{Op: OpUnknown, Raw: u})
	}
}

func (r *replayer) field(m protoreflect.Message, fd protoreflect.FieldDescriptor, v protoreflect.Value) {
	switch {
	case fd.IsMap():
		r.mapField(fd, v.Map())
	case fd.IsList():
		r.list(fd, v.List())
	case fd.Message() != nil:
		r.nested(fd, v.Message())
	default:
		r.scalar(fd, v, false)
	}
}

func (r *replayer) nested(fd protoreflect.FieldDescriptor, m protoreflect.Message) {
	if !r.o.NoEmbeds {
		switch r.r.IntN(4) {
		case 0:
			r.add(Call{Op: OpMessage, Num: fd.Number(), Msg: m.Interface()})
			return
		case 1:
			if proto.CheckInitialized(m.Interface()) == nil {
				b, err := proto.MarshalOptions{Deterministic: true, AllowPartial: true}.Marshal(m.Interface())
				if r.o.Canonical != 0 {
					b, err = encoder.MarshalOptions{Canonical: r.o.Canonical, AllowPartial: true}.Marshal(m.Interface())
				}
				if err == nil {
					r.add(Call{Op: OpRaw, Num: fd.Number(), Raw: b})
					return
				}
			}
		}
	}
	r.add(Call{Op: OpBegin, Num: fd.Number()})
	r.message(m)
	r.add(Call{Op: OpEnd})
}

func (r *replayer) list(fd protoreflect.FieldDescriptor, l protoreflect.List) {
	n := l.Len()
	if fd.Message() != nil {
		for i := range n {
			r.nested(fd, l.Get(i).Message())
		}
		return
	}
	// Elements one by one up to split, the rest as one slice (when the
	// kind has a slice method).
	split := n
	if r.chance(1, 2) {
		split = r.r.IntN(n + 1)
	}
	for i := range split {
		r.scalar(fd, l.Get(i), true)
	}
	if split < n || (n == 0 && r.chance(1, 2)) {
		r.slice(fd, l, split)
	}
}

// slice adds one slice call for elements from..Len() of l.
func (r *replayer) slice(fd protoreflect.FieldDescriptor, l protoreflect.List, from int) {
	num := fd.Number()
	n := l.Len()
	switch fd.Kind() {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		if r.chance(1, 2) {
			r.add(Call{Op: OpInt32s, Num: num, List: elems(l, from, n, func(v protoreflect.Value) int32 { return int32(v.Int()) })})
			return
		}
		fallthrough
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		r.add(Call{Op: OpInt64s, Num: num, List: elems(l, from, n, protoreflect.Value.Int)})
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		if r.chance(1, 2) {
			r.add(Call{Op: OpUint32s, Num: num, List: elems(l, from, n, func(v protoreflect.Value) uint32 { return uint32(v.Uint()) })})
			return
		}
		fallthrough
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		r.add(Call{Op: OpUint64s, Num: num, List: elems(l, from, n, protoreflect.Value.Uint)})
	case protoreflect.FloatKind:
		r.add(Call{Op: OpFloat32s, Num: num, List: elems(l, from, n, func(v protoreflect.Value) float32 { return float32(v.Float()) })})
	case protoreflect.DoubleKind:
		r.add(Call{Op: OpFloat64s, Num: num, List: elems(l, from, n, protoreflect.Value.Float)})
	case protoreflect.BoolKind:
		r.add(Call{Op: OpBools, Num: num, List: elems(l, from, n, protoreflect.Value.Bool)})
	case protoreflect.EnumKind:
		r.add(Call{Op: OpEnums, Num: num, List: elems(l, from, n, protoreflect.Value.Enum)})
	case protoreflect.StringKind:
		r.add(Call{Op: OpStrings, Num: num, List: elems(l, from, n, protoreflect.Value.String)})
	default: // bytes: no slice method
		for i := from; i < n; i++ {
			r.scalar(fd, l.Get(i), true)
		}
	}
}

// elems returns elements from..n of l, each converted by get; nil when
// there are none, as the slice calls take them.
func elems[T any](l protoreflect.List, from, n int, get func(protoreflect.Value) T) []T {
	var s []T
	for i := from; i < n; i++ {
		s = append(s, get(l.Get(i)))
	}
	return s
}

// scalar adds the call writing scalar v to fd, choosing among the methods
// that fit.
func (r *replayer) scalar(fd protoreflect.FieldDescriptor, v protoreflect.Value, elem bool) {
	num := fd.Number()
	switch fd.Kind() {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		op := OpInt32
		if r.chance(1, 2) {
			op = OpInt64
		}
		r.add(Call{Op: op, Num: num, Int: v.Int()})
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		r.add(Call{Op: OpInt64, Num: num, Int: v.Int()})
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		op := OpUint32
		if r.chance(1, 2) {
			op = OpUint64
		}
		r.add(Call{Op: op, Num: num, Uint: v.Uint()})
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		r.add(Call{Op: OpUint64, Num: num, Uint: v.Uint()})
	case protoreflect.FloatKind:
		op := OpFloat32
		if r.chance(1, 2) {
			op = OpFloat64
		}
		r.add(Call{Op: op, Num: num, Float: v.Float()})
	case protoreflect.DoubleKind:
		f := v.Float()
		if float64(float32(f)) == f && r.chance(1, 3) {
			r.add(Call{Op: OpFloat32, Num: num, Float: f})
			return
		}
		r.add(Call{Op: OpFloat64, Num: num, Float: f})
	case protoreflect.BoolKind:
		r.add(Call{Op: OpBool, Num: num, Bool: v.Bool()})
	case protoreflect.EnumKind:
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil && r.chance(1, 2) {
			r.add(Call{Op: OpEnumName, Num: num, Str: string(ev.Name())})
			return
		}
		r.add(Call{Op: OpEnum, Num: num, Int: int64(v.Enum())})
	case protoreflect.StringKind:
		if r.chance(1, 3) {
			r.add(Call{Op: OpBytes, Num: num, Raw: []byte(v.String())})
			return
		}
		r.add(Call{Op: OpString, Num: num, Str: v.String()})
	case protoreflect.BytesKind:
		if r.chance(1, 3) {
			r.add(Call{Op: OpString, Num: num, Str: string(v.Bytes())})
			return
		}
		r.add(Call{Op: OpBytes, Num: num, Raw: v.Bytes()})
	}
	_ = elem
}

// mapField adds one entry per key of mp, keys ascending.
func (r *replayer) mapField(fd protoreflect.FieldDescriptor, mp protoreflect.Map) {
	keys := make([]protoreflect.MapKey, 0, mp.Len())
	mp.Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool {
		keys = append(keys, k)
		return true
	})
	kd, vd := fd.MapKey(), fd.MapValue()
	slices.SortFunc(keys, func(a, b protoreflect.MapKey) int { return compareKeys(kd.Kind(), a, b) })
	for _, k := range keys {
		v := mp.Get(k)
		switch {
		case r.chance(1, 2):
			// The helper that begins the entry and writes its key.
			r.add(entryCall(fd.Number(), kd, k))
		default:
			r.add(Call{Op: OpBegin, Num: fd.Number()})
			// A zero key may be left out: the value brings it, or End does.
			if !isZeroKey(kd.Kind(), k) || r.chance(1, 2) {
				r.scalar(kd, k.Value(), false)
			}
		}
		switch {
		case vd.Message() != nil:
			m := v.Message()
			if !m.IsValid() || (proto.Size(m.Interface()) == 0 && r.chance(1, 2)) {
				if r.chance(1, 2) {
					break // End writes the empty value
				}
			}
			r.nested(vd, m)
		case isDefaultValue(vd, v) && r.chance(1, 2):
			// End writes the default value.
		default:
			r.scalar(vd, v, false)
		}
		r.add(Call{Op: OpEnd})
	}
}

// entryCall is the BeginEntry call of map field num for key k, whose
// field is kd.
func entryCall(num protowire.Number, kd protoreflect.FieldDescriptor, k protoreflect.MapKey) Call {
	switch kd.Kind() {
	case protoreflect.StringKind:
		return Call{Op: OpBeginEntryString, Num: num, Str: k.String()}
	case protoreflect.BoolKind:
		return Call{Op: OpBeginEntryBool, Num: num, Bool: k.Bool()}
	case protoreflect.Uint32Kind, protoreflect.Uint64Kind, protoreflect.Fixed32Kind, protoreflect.Fixed64Kind:
		return Call{Op: OpBeginEntryUint, Num: num, Uint: k.Uint()}
	}
	return Call{Op: OpBeginEntryInt, Num: num, Int: k.Int()}
}

func compareKeys(k protoreflect.Kind, a, b protoreflect.MapKey) int {
	switch k {
	case protoreflect.BoolKind:
		return cmp.Compare(b2i(a.Bool()), b2i(b.Bool()))
	case protoreflect.StringKind:
		return strings.Compare(a.String(), b.String())
	case protoreflect.Uint32Kind, protoreflect.Uint64Kind, protoreflect.Fixed32Kind, protoreflect.Fixed64Kind:
		return cmp.Compare(a.Uint(), b.Uint())
	}
	return cmp.Compare(a.Int(), b.Int())
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func isZeroKey(k protoreflect.Kind, key protoreflect.MapKey) bool {
	switch k {
	case protoreflect.BoolKind:
		return !key.Bool()
	case protoreflect.StringKind:
		return key.String() == ""
	case protoreflect.Uint32Kind, protoreflect.Uint64Kind, protoreflect.Fixed32Kind, protoreflect.Fixed64Kind:
		return key.Uint() == 0
	}
	return key.Int() == 0
}

// isDefaultValue reports whether v is what End writes for a missing map
// value of field vd: zero, empty, or the enum's default.
func isDefaultValue(vd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
	switch vd.Kind() {
	case protoreflect.EnumKind:
		return v.Enum() == vd.Default().Enum()
	case protoreflect.BoolKind:
		return !v.Bool()
	case protoreflect.StringKind:
		return v.String() == ""
	case protoreflect.BytesKind:
		return len(v.Bytes()) == 0
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return math.Float64bits(v.Float()) == 0
	case protoreflect.Uint32Kind, protoreflect.Uint64Kind, protoreflect.Fixed32Kind, protoreflect.Fixed64Kind:
		return v.Uint() == 0
	}
	return v.Int() == 0
}
