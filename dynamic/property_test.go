package dynamic_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/dynamic"
	"github.com/protolayout/protolayout/protobuftest"
)

// side is one of the two implementations a property test drives: how it
// makes messages and extension types.
type side struct {
	newMessage func(protoreflect.MessageDescriptor) protoreflect.Message
	extType    func(protoreflect.ExtensionDescriptor) protoreflect.ExtensionType
	// usedExt records that an extension was set somewhere in the
	// messages (proto.Equal cannot compare the two sides' extensions,
	// whose descriptors differ).
	usedExt bool
}

var (
	dynamicpbSide = func() *side {
		return &side{
			newMessage: func(md protoreflect.MessageDescriptor) protoreflect.Message { return dynamicpb.NewMessage(md) },
			extType:    dynamicpb.NewExtensionType,
		}
	}
	dynamicSide = func() *side {
		return &side{
			newMessage: func(md protoreflect.MessageDescriptor) protoreflect.Message { return dynamic.NewMessage(md) },
			extType:    dynamic.NewExtensionType,
		}
	}
)

var (
	testTypesOnce sync.Once
	testTypes     *dynamic.Types
	extensionsMu  sync.Mutex
	extensionsBy  = make(map[protoreflect.MessageDescriptor][]protoreflect.ExtensionDescriptor)
)

// extensionsOf returns the extensions of the test schemas that extend md,
// by ascending number.
func extensionsOf(md protoreflect.MessageDescriptor) []protoreflect.ExtensionDescriptor {
	testTypesOnce.Do(func() { testTypes = dynamic.NewTypes(protobuftest.DynamicFiles()) })
	extensionsMu.Lock()
	defer extensionsMu.Unlock()
	if xds, ok := extensionsBy[md]; ok {
		return xds
	}
	var xds []protoreflect.ExtensionDescriptor
	testTypes.RangeExtensionsByMessage(md.FullName(), func(xt protoreflect.ExtensionType) bool {
		xds = append(xds, xt.TypeDescriptor().Descriptor())
		return true
	})
	slices.SortFunc(xds, func(a, b protoreflect.ExtensionDescriptor) int { return int(a.Number()) - int(b.Number()) })
	extensionsBy[md] = xds
	return xds
}

// driver applies random operations to one side's message. Two drivers
// with equal random sources make the same choices as long as the
// messages they drive read the same (choices depend only on the source,
// the descriptors, and Has and Len, which the test compares).
type driver struct {
	r    *rand.Rand
	side *side
}

// op applies one random operation to m, maybe descending into a nested
// message, list or map.
func (d *driver) op(m protoreflect.Message, depth int) {
	fd := d.pickField(m)
	if fd == nil {
		d.unknown(m)
		return
	}
	composite := fd.IsList() || fd.IsMap() || fd.Message() != nil
	switch c := d.r.IntN(10); {
	case c == 0:
		m.Clear(fd)
	case c == 1:
		d.unknown(m)
	case c == 2 && d.r.IntN(3) == 0:
		d.merge(m, depth)
	case c < 6 && composite && depth < 4:
		v := m.Mutable(fd)
		switch {
		case fd.IsList():
			d.listOp(v.List(), fd, depth)
		case fd.IsMap():
			d.mapOp(v.Map(), fd, depth)
		default:
			for range 1 + d.r.IntN(3) {
				d.op(v.Message(), depth+1)
			}
		}
	default:
		m.Set(fd, d.value(m, fd, depth))
	}
}

// merge merges into m, with proto.Merge: m itself (doubling its lists
// and unknown fields), a clone of it, or a new message of its type given
// a few operations.
func (d *driver) merge(m protoreflect.Message, depth int) {
	var src proto.Message
	switch d.r.IntN(3) {
	case 0:
		src = m.Interface()
	case 1:
		src = proto.Clone(m.Interface())
	default:
		n := d.side.newMessage(m.Descriptor())
		for range 1 + d.r.IntN(3) {
			d.op(n, depth+1)
		}
		src = n.Interface()
	}
	proto.Merge(m.Interface(), src)
}

// pickField returns a field or extension of m's type, or nil when it has
// none. Oneof members come up more often, so that oneofs switch.
func (d *driver) pickField(m protoreflect.Message) protoreflect.FieldDescriptor {
	md := m.Descriptor()
	fds := md.Fields()
	xds := extensionsOf(md)
	if ods := md.Oneofs(); ods.Len() > 0 && d.r.IntN(3) == 0 {
		od := ods.Get(d.r.IntN(ods.Len()))
		return od.Fields().Get(d.r.IntN(od.Fields().Len()))
	}
	n := fds.Len() + len(xds)
	if n == 0 {
		return nil
	}
	i := d.r.IntN(n)
	if i < fds.Len() {
		return fds.Get(i)
	}
	d.side.usedExt = true
	return d.side.extType(xds[i-fds.Len()]).TypeDescriptor()
}

func (d *driver) listOp(l protoreflect.List, fd protoreflect.FieldDescriptor, depth int) {
	switch c := d.r.IntN(6); {
	case c == 0 && l.Len() > 0:
		l.Truncate(d.r.IntN(l.Len()))
	case c == 1 && l.Len() > 0:
		l.Set(d.r.IntN(l.Len()), d.element(l.NewElement, fd, depth))
	case c == 2 && fd.Message() != nil:
		d.op(l.AppendMutable().Message(), depth+1)
	case c == 3 && l.Len() > 0 && fd.Message() != nil:
		d.op(l.Get(d.r.IntN(l.Len())).Message(), depth+1)
	default:
		l.Append(d.element(l.NewElement, fd, depth))
	}
}

func (d *driver) mapOp(mp protoreflect.Map, fd protoreflect.FieldDescriptor, depth int) {
	k := d.scalar(fd.MapKey()).MapKey()
	switch c := d.r.IntN(5); {
	case c == 0:
		mp.Clear(k)
	case c == 1 && fd.MapValue().Message() != nil:
		d.op(mp.Mutable(k).Message(), depth+1)
	default:
		mp.Set(k, d.element(mp.NewValue, fd.MapValue(), depth))
	}
}

// value returns a random value for fd, built through m.
func (d *driver) value(m protoreflect.Message, fd protoreflect.FieldDescriptor, depth int) protoreflect.Value {
	switch {
	case fd.IsList():
		l := m.NewField(fd).List()
		for range d.r.IntN(4) {
			l.Append(d.element(l.NewElement, fd, depth))
		}
		return protoreflect.ValueOfList(l)
	case fd.IsMap():
		mp := m.NewField(fd).Map()
		for range d.r.IntN(4) {
			mp.Set(d.scalar(fd.MapKey()).MapKey(), d.element(mp.NewValue, fd.MapValue(), depth))
		}
		return protoreflect.ValueOfMap(mp)
	case fd.Message() != nil:
		v := m.NewField(fd)
		d.fill(v.Message(), depth)
		return v
	default:
		return d.scalar(fd)
	}
}

// element returns a random element of a list or map value of kind fd.
func (d *driver) element(newValue func() protoreflect.Value, fd protoreflect.FieldDescriptor, depth int) protoreflect.Value {
	if fd.Message() == nil {
		return d.scalar(fd)
	}
	v := newValue()
	d.fill(v.Message(), depth)
	return v
}

// fill applies a few operations to a new message.
func (d *driver) fill(m protoreflect.Message, depth int) {
	if depth >= 3 {
		return
	}
	for range d.r.IntN(4) {
		d.op(m, depth+1)
	}
}

// unknown stores random unknown fields in m, of numbers m's type does
// not declare.
func (d *driver) unknown(m protoreflect.Message) {
	md := m.Descriptor()
	if d.r.IntN(4) == 0 {
		m.SetUnknown(nil)
		return
	}
	var b []byte
	for range 1 + d.r.IntN(3) {
		n := protowire.Number(20000 + d.r.IntN(3))
		if md.Fields().ByNumber(n) != nil || md.ExtensionRanges().Has(n) {
			continue
		}
		if d.r.IntN(2) == 0 {
			b = protowire.AppendTag(b, n, protowire.VarintType)
			b = protowire.AppendVarint(b, d.r.Uint64())
		} else {
			b = protowire.AppendTag(b, n, protowire.BytesType)
			b = protowire.AppendBytes(b, []byte("unknown"))
		}
	}
	m.SetUnknown(append(m.GetUnknown()[:len(m.GetUnknown()):len(m.GetUnknown())], b...))
}

// scalar returns a random value of the scalar field fd, edge values
// included.
func (d *driver) scalar(fd protoreflect.FieldDescriptor) protoreflect.Value {
	r := d.r
	ints := []int64{0, 1, -1, math.MaxInt32, math.MinInt32, math.MaxInt64, math.MinInt64, r.Int64()}
	i := ints[r.IntN(len(ints))]
	floats := []float64{0, math.Copysign(0, -1), 1.5, math.NaN(), math.Inf(1), math.Inf(-1), math.SmallestNonzeroFloat64, r.Float64()}
	f := floats[r.IntN(len(floats))]
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(r.IntN(2) == 0)
	case protoreflect.EnumKind:
		vals := fd.Enum().Values()
		if !fd.Enum().IsClosed() && r.IntN(4) == 0 {
			return protoreflect.ValueOfEnum(protoreflect.EnumNumber(r.Int32N(100) + 50))
		}
		return protoreflect.ValueOfEnum(vals.Get(r.IntN(vals.Len())).Number())
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(int32(i))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(i)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(uint32(i))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(uint64(i))
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(float32(f))
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(f)
	case protoreflect.StringKind:
		strs := []string{"", "a", "b", "héllo", "x\x00y"}
		return protoreflect.ValueOfString(strs[r.IntN(len(strs))])
	case protoreflect.BytesKind:
		bs := [][]byte{nil, {}, {0}, []byte("bytes"), {0xff, 0xfe}}
		return protoreflect.ValueOfBytes(bs[r.IntN(len(bs))])
	}
	panic(fmt.Sprintf("no scalar of kind %v", fd.Kind()))
}

// TestAgainstDynamicpb applies the same random operations (merges among
// them) to a dynamicpb message and a dynamic one of every message type of
// the test schemas, and checks after each that the two read the same: Has, Get and
// WhichOneof for every field and extension, Range's contents, unknown
// fields, deterministic Marshal bytes, and proto.Equal while no extension
// is set.
func TestAgainstDynamicpb(t *testing.T) {
	steps, seeds := 150, 4
	if testing.Short() {
		steps, seeds = 50, 2
	}
	for _, md := range allMessages() {
		t.Run(string(md.FullName()), func(t *testing.T) {
			for seed := range uint64(seeds) {
				sa, sb := dynamicpbSide(), dynamicSide()
				a, b := sa.newMessage(md), sb.newMessage(md)
				da := &driver{rand.New(rand.NewPCG(seed, uint64(len(md.FullName())))), sa}
				db := &driver{rand.New(rand.NewPCG(seed, uint64(len(md.FullName())))), sb}
				for step := range steps {
					da.op(a, 0)
					db.op(b, 0)
					if diff := diffMessages(a, b, sa, sb); diff != "" {
						t.Fatalf("seed %d, step %d: %s", seed, step, diff)
					}
					if sa.usedExt != sb.usedExt {
						t.Fatalf("seed %d, step %d: the drivers diverged", seed, step)
					}
					if !sa.usedExt && !proto.Equal(a.Interface(), b.Interface()) {
						t.Fatalf("seed %d, step %d: proto.Equal is false", seed, step)
					}
					if !reachesMessageSet(md, nil) {
						wa, erra := proto.MarshalOptions{Deterministic: true, AllowPartial: true}.Marshal(a.Interface())
						wb, errb := proto.MarshalOptions{Deterministic: true, AllowPartial: true}.Marshal(b.Interface())
						if (erra == nil) != (errb == nil) || !bytes.Equal(wa, wb) {
							t.Fatalf("seed %d, step %d: Marshal differs: %v, %v\n%s", seed, step, erra, errb, protobuftest.FirstDiff(wb, wa, md))
						}
					}
				}
			}
		})
	}
}

// diffMessages describes the first difference between a and b, messages
// of the same type from the two sides, or returns "".
func diffMessages(a, b protoreflect.Message, sa, sb *side) string {
	md := a.Descriptor()
	if b.Descriptor() != md {
		return fmt.Sprintf("descriptors %v and %v", md.FullName(), b.Descriptor().FullName())
	}
	if a.IsValid() != b.IsValid() {
		return fmt.Sprintf("%v: IsValid %v, %v", md.FullName(), a.IsValid(), b.IsValid())
	}
	if !a.IsValid() {
		// Read-only empty messages: their fields are all unset, and
		// reading them would not end on a recursive type.
		return ""
	}
	fds := md.Fields()
	check := func(fa, fb protoreflect.FieldDescriptor) string {
		if ha, hb := a.Has(fa), b.Has(fb); ha != hb {
			return fmt.Sprintf("%v: Has %v, %v", fa.FullName(), ha, hb)
		}
		return diffValues(fa, a.Get(fa), b.Get(fb), sa, sb)
	}
	for i := range fds.Len() {
		if d := check(fds.Get(i), fds.Get(i)); d != "" {
			return d
		}
	}
	for _, xd := range extensionsOf(md) {
		if d := check(sa.extType(xd).TypeDescriptor(), sb.extType(xd).TypeDescriptor()); d != "" {
			return d
		}
	}
	ods := md.Oneofs()
	for i := range ods.Len() {
		if wa, wb := a.WhichOneof(ods.Get(i)), b.WhichOneof(ods.Get(i)); wa != wb {
			return fmt.Sprintf("%v: WhichOneof %v, %v", ods.Get(i).FullName(), wa, wb)
		}
	}
	if ua, ub := a.GetUnknown(), b.GetUnknown(); !bytes.Equal(ua, ub) {
		return fmt.Sprintf("%v: unknown fields %x, %x", md.FullName(), ua, ub)
	}
	ra, rb := ranged(a), ranged(b)
	if len(ra) != len(rb) {
		return fmt.Sprintf("%v: Range visits %d and %d fields", md.FullName(), len(ra), len(rb))
	}
	for n, x := range ra {
		y, ok := rb[n]
		if !ok || x.fd.FullName() != y.fd.FullName() || !x.fd.IsExtension() && x.fd != y.fd {
			return fmt.Sprintf("%v: Range visits field %d in one only", md.FullName(), n)
		}
		if d := diffValues(x.fd, x.v, y.v, sa, sb); d != "" {
			return "Range: " + d
		}
	}
	return ""
}

type rangedField struct {
	fd protoreflect.FieldDescriptor
	v  protoreflect.Value
}

// ranged returns what Range visits, by field number.
func ranged(m protoreflect.Message) map[protoreflect.FieldNumber]rangedField {
	r := make(map[protoreflect.FieldNumber]rangedField)
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		r[fd.Number()] = rangedField{fd, v}
		return true
	})
	return r
}

// diffValues describes the first difference between two values of fd.
func diffValues(fd protoreflect.FieldDescriptor, x, y protoreflect.Value, sa, sb *side) string {
	switch {
	case fd.IsList():
		lx, ly := x.List(), y.List()
		if lx.Len() != ly.Len() || lx.IsValid() != ly.IsValid() {
			return fmt.Sprintf("%v: lists of %d (valid %v) and %d (valid %v)", fd.FullName(), lx.Len(), lx.IsValid(), ly.Len(), ly.IsValid())
		}
		for i := range lx.Len() {
			if d := diffSingular(fd, lx.Get(i), ly.Get(i), sa, sb); d != "" {
				return fmt.Sprintf("[%d] %s", i, d)
			}
		}
		return ""
	case fd.IsMap():
		mx, my := x.Map(), y.Map()
		if mx.Len() != my.Len() || mx.IsValid() != my.IsValid() {
			return fmt.Sprintf("%v: maps of %d (valid %v) and %d (valid %v)", fd.FullName(), mx.Len(), mx.IsValid(), my.Len(), my.IsValid())
		}
		var d string
		mx.Range(func(k protoreflect.MapKey, vx protoreflect.Value) bool {
			vy := my.Get(k)
			if !vy.IsValid() || !my.Has(k) {
				d = fmt.Sprintf("%v: key %v in one map only", fd.FullName(), k)
				return false
			}
			d = diffSingular(fd.MapValue(), vx, vy, sa, sb)
			return d == ""
		})
		return d
	default:
		return diffSingular(fd, x, y, sa, sb)
	}
}

// diffSingular describes the difference between two values of one
// element of fd.
func diffSingular(fd protoreflect.FieldDescriptor, x, y protoreflect.Value, sa, sb *side) string {
	if fd.Message() != nil {
		return diffMessages(x.Message(), y.Message(), sa, sb)
	}
	switch fd.Kind() {
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		if math.Float64bits(x.Float()) == math.Float64bits(y.Float()) {
			return ""
		}
	case protoreflect.BytesKind:
		if bytes.Equal(x.Bytes(), y.Bytes()) {
			return ""
		}
	default:
		if x.Equal(y) {
			return ""
		}
	}
	return fmt.Sprintf("%v: %v, %v", fd.FullName(), x, y)
}
