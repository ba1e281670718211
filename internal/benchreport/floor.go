package benchreport

import (
	"encoding/binary"
	"math"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protopath"
	"google.golang.org/protobuf/reflect/protorange"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// floorReader reads every populated field of a message through
// protoreflect and does nothing else: the least any encoder that reads a
// dynamicpb message through protoreflect has to do, the read floor.
//
// Every value is touched with its typed accessor (Bool, Int, Uint, Float,
// String, Bytes, Enum, Message, List, Map, and for map keys the MapKey
// accessors), never Interface, and added to a digest so that nothing can be
// optimized away. The callbacks of Range are method values bound once, so a
// read of a dynamicpb message allocates nothing (protoreflect's views of a
// generated message's lists and maps may allocate). With hasGet it calls Has
// and Get on the declared fields, and on a message that has extension
// ranges ranges over it too, for the extensions only (which cannot be found
// by declaration).
type floorReader struct {
	// hasGet selects the traversal: Has and Get on every declared field
	// (WhichOneof for each real oneof) instead of Message.Range.
	hasGet bool

	count uint64 // messages and values read (map keys not counted)
	sum   uint64 // the values read, mixed

	field     func(protoreflect.FieldDescriptor, protoreflect.Value) bool // r.readField
	extension func(protoreflect.FieldDescriptor, protoreflect.Value) bool // r.readExtension
	entry     func(protoreflect.MapKey, protoreflect.Value) bool          // r.readEntry

	// The map being ranged by readEntry.
	keyKind protoreflect.Kind
	valueFD protoreflect.FieldDescriptor

	out [16]byte
}

func newFloorReader(hasGet bool) *floorReader {
	r := &floorReader{hasGet: hasGet}
	r.field = r.readField
	r.extension = r.readExtension
	r.entry = r.readEntry
	return r
}

// read reads m and returns the digest of what it read, in a buffer the
// next call overwrites.
func (r *floorReader) read(m protoreflect.Message) []byte {
	r.count, r.sum = 0, 0
	r.readMessage(m)
	return r.digest()
}

// digest encodes count and sum.
func (r *floorReader) digest() []byte {
	binary.LittleEndian.PutUint64(r.out[:8], r.count)
	binary.LittleEndian.PutUint64(r.out[8:], r.sum)
	return r.out[:]
}

func (r *floorReader) readMessage(m protoreflect.Message) {
	r.enter(m)
	if !r.hasGet {
		m.Range(r.field)
		return
	}
	md := m.Descriptor()
	fields := md.Fields()
	for i, n := 0, fields.Len(); i < n; i++ {
		fd := fields.Get(i)
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			continue // read below, with one WhichOneof per oneof
		}
		if m.Has(fd) {
			r.readField(fd, m.Get(fd))
		}
	}
	oneofs := md.Oneofs()
	for i, n := 0, oneofs.Len(); i < n; i++ {
		if od := oneofs.Get(i); !od.IsSynthetic() {
			if fd := m.WhichOneof(od); fd != nil {
				r.readField(fd, m.Get(fd))
			}
		}
	}
	if md.ExtensionRanges().Len() > 0 {
		m.Range(r.extension) // extensions cannot be found by declaration
	}
}

// readExtension reads one populated field if it is an extension.
func (r *floorReader) readExtension(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
	if fd.IsExtension() {
		r.readField(fd, v)
	}
	return true
}

// enter counts a message and its unknown fields.
func (r *floorReader) enter(m protoreflect.Message) {
	r.count++
	r.sum += uint64(len(m.GetUnknown()))
}

// readField reads one populated field: a list element by element, a map
// entry by entry.
func (r *floorReader) readField(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
	switch {
	case fd.IsList():
		l := v.List()
		for i, n := 0, l.Len(); i < n; i++ {
			r.readValue(fd, l.Get(i))
		}
	case fd.IsMap():
		keyKind, valueFD := r.keyKind, r.valueFD
		r.keyKind, r.valueFD = fd.MapKey().Kind(), fd.MapValue()
		v.Map().Range(r.entry)
		r.keyKind, r.valueFD = keyKind, valueFD
	default:
		r.readValue(fd, v)
	}
	return true
}

func (r *floorReader) readEntry(k protoreflect.MapKey, v protoreflect.Value) bool {
	fd := r.valueFD // a message value may range maps of its own
	r.readKey(r.keyKind, k)
	r.readValue(fd, v)
	return true
}

func (r *floorReader) readKey(kind protoreflect.Kind, k protoreflect.MapKey) {
	switch kind {
	case protoreflect.BoolKind:
		if k.Bool() {
			r.sum++
		}
	case protoreflect.StringKind:
		r.sum += uint64(len(k.String()))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		r.sum += k.Uint()
	default:
		r.sum += uint64(k.Int())
	}
}

// readValue reads one value of a field (of a list element or a map value
// when fd is a list field or a map's value field).
func (r *floorReader) readValue(fd protoreflect.FieldDescriptor, v protoreflect.Value) {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		r.readMessage(v.Message())
		return
	case protoreflect.BoolKind:
		if v.Bool() {
			r.sum++
		}
	case protoreflect.EnumKind:
		r.sum += uint64(v.Enum())
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		r.sum += uint64(v.Int())
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		r.sum += v.Uint()
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		r.sum += math.Float64bits(v.Float())
	case protoreflect.StringKind:
		r.sum += uint64(len(v.String()))
	case protoreflect.BytesKind:
		r.sum += uint64(len(v.Bytes()))
	}
	r.count++
}

// floorDigest is the digest a floorReader must return for m (or for its
// dynamic twin), computed independently of the reader's traversal with
// protorange over the generated message.
func floorDigest(m proto.Message) ([]byte, error) {
	r := newFloorReader(false)
	err := protorange.Options{Resolver: (*protoregistry.Types)(nil)}.Range(m.ProtoReflect(),
		func(p protopath.Values) error {
			last := p.Index(-1)
			var fd protoreflect.FieldDescriptor
			switch last.Step.Kind() {
			case protopath.RootStep:
				r.count++
				return nil
			case protopath.UnknownAccessStep:
				r.sum += uint64(len(last.Value.Bytes()))
				return nil
			case protopath.FieldAccessStep:
				fd = last.Step.FieldDescriptor()
				if fd.IsList() || fd.IsMap() {
					return nil // their elements come as steps of their own
				}
			case protopath.ListIndexStep:
				fd = p.Index(-2).Step.FieldDescriptor()
			case protopath.MapIndexStep:
				mapFD := p.Index(-2).Step.FieldDescriptor()
				r.readKey(mapFD.MapKey().Kind(), last.Step.MapIndex())
				fd = mapFD.MapValue()
			default:
				return nil
			}
			if k := fd.Kind(); k == protoreflect.MessageKind || k == protoreflect.GroupKind {
				r.count++ // protorange visits its fields and unknown bytes
				return nil
			}
			r.readValue(fd, last.Value)
			return nil
		}, nil)
	if err != nil {
		return nil, err
	}
	return append([]byte(nil), r.digest()...), nil
}
