package engine

import (
	"errors"
	"reflect"
	"sync/atomic"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/genstore"
	"github.com/protolayout/protolayout/internal/layout"
	"github.com/protolayout/protolayout/internal/weakcache"
	"github.com/protolayout/protolayout/internal/wire"
)

// code is how the engine reads and writes one field of a generated
// struct: the commonest pairs of storage representation and op, which the
// passes handle inline, and codeOther for the rest, handled out of line.
type code uint8

const (
	codeOther          code = iota
	codeInt32               // an int32 or enum in place, as a varint
	codeInt64               // an int64 in place, as a varint
	codeUint64              // a uint64 in place, as a varint
	codeUint32              // a uint32 in place, as a varint
	codeBool                // a bool in place
	codeFloat64             // a double in place
	codeFloat32             // a float in place
	codeString              // a string in place
	codeBytes               // bytes in place (implicit presence)
	codeSint32              // an int32 in place, zigzag-encoded
	codeSint64              // an int64 in place, zigzag-encoded
	codeFixed32             // a uint32 in place, as 4 bytes
	codeSfixed32            // an int32 in place, as 4 bytes
	codeFixed64             // a uint64 in place, as 8 bytes
	codeSfixed64            // an int64 in place, as 8 bytes
	codePtrString           // a *string (explicit presence)
	codePtrInt32            // a *int32 or *Enum, as a varint
	codePtrInt64            // a *int64, as a varint
	codePtrBool             // a *bool
	codeMessage             // a *T message, length-prefixed
	codeListMessage         // a []*T of messages, length-prefixed
	codePtrListMessage      // a *[]*T of messages, length-prefixed
	codeBitInt32            // an int32 or enum in place with a presence bit, as a varint
	codeBitInt64            // an int64 in place with a presence bit, as a varint
	codeBitBool             // a bool in place with a presence bit
	codeBitString           // a *string with a presence bit (Opaque API)
	codeList                // a list of scalars, strings or bytes in a slice in place
	codeMap                 // a map
	codeMember              // a member of a real oneof, in a canonical program (more.oneof)
	codeExts                // in a canonical program, the set extensions numbered below more.below (canon_ext.go)
)

// genField is the engine's record of one field of a generated message type:
// how it is written (from the field program, layout.Field) and where it
// is stored (genstore.Field).
type genField struct {
	code code
	// variant is set in a canonical program (program.canonical): its
	// fields link the children's programs of the same variant.
	variant variant
	layout.Rec
	sf *genstore.Field
	// child is the program of the field's message type (a map's values'),
	// linked on first use.
	child atomic.Pointer[program]
	more  *more
}

// more is the part of a field's record that only groups, packed fields,
// maps and the oneof members of a canonical program use.
type more struct {
	layout.RecMore
	lf *layout.Field
	// oneof is a member's oneof in a canonical program, and pos its
	// layout position, which oneof.Which returns when it is the one set.
	oneof *genstore.Oneof
	pos   int
	// keyType and valueType are a map's Go key and value types.
	keyType, valueType reflect.Type
	// from and below are, on a codeExts step, the numbers of the
	// extensions it merges: from from to below (below excluded).
	from, below protowire.Number
	// prog is, on a codeExts step, the program of the step's message's
	// type.
	prog *program
}

// program is the engine's program for one generated message type.
type program struct {
	st *genstore.Storage
	// err is why the type is left to the walk (its storage map was
	// refused); the other fields are then unset.
	err error
	// fields holds a record per field, by layout position.
	fields []genField
	// regular is the number of fields outside real oneofs (the leading
	// ones).
	regular int
	// oneofs holds each real oneof's storage record, in layout order.
	oneofs []*genstore.Oneof
	// required lists the positions of the required fields.
	required []int32
	// messageSet is set for a MessageSet type, which the walk refuses.
	messageSet bool
	// simple is set for a program whose type has no required field, no
	// real oneof and no extensions, and that is not a MessageSet or a
	// canonical variant: outside Canonical, the passes skip the steps
	// such types lack.
	simple bool
	// variants holds the program's canonical variants (see canonical),
	// built on first use; base is, in a variant, the program it was
	// built from.
	variants [variants]atomic.Pointer[program]
	base     *program
	// maxNumber is, in a variant, the largest field number of the type.
	// interleaved says its extension ranges start below it: the variant
	// then has codeExts steps among its fields, which merge the set
	// extensions by number (canon_ext.go); otherwise the extensions set
	// are numbered above maxNumber and follow the fields.
	maxNumber   protowire.Number
	interleaved bool
}

// variant is a canonical variant of a program.
type variant uint8

const (
	plain        variant = iota // the program itself: emission order
	canonicalVar                // Options.Canonical
	signingVar                  // Options.Canonical with Options.Signing
	variants
)

// canonical returns the variant v of p (canonicalVar or signingVar): the
// same fields in field-number order, with no required fields of its own
// (the size pass checks them through base first) and children linked to
// their variants v. A type whose emission order is number order, and
// whose extension ranges start above its last field, keeps its oneofs
// after the other fields; any other has its oneof members among them
// (codeMember) and no oneofs. A type whose extension ranges start below
// its last field (interleaved) has a codeExts step before each field
// numbered above the first range's start, and one last, with no bound,
// after them all. In signingVar a repeated scalar that is not packed is
// written packed, as the Signing profile asks.
func (p *program) canonical(v variant) *program {
	if c := p.variants[v].Load(); c != nil {
		return c
	}
	l := p.st.Layout
	c := &program{
		st:         p.st,
		messageSet: p.messageSet,
		base:       p,
	}
	for _, pos := range l.NumberOrder {
		c.maxNumber = max(c.maxNumber, l.Fields[pos].Number)
	}
	c.interleaved = l.Extendable && l.FirstExtension < c.maxNumber
	steps := 0
	if c.interleaved {
		steps = 1 // the last
		for _, pos := range l.NumberOrder {
			if l.Fields[pos].Number > l.FirstExtension {
				steps++
			}
		}
	}
	c.fields = make([]genField, len(p.fields)+steps)
	c.regular = len(c.fields)
	inOrder := l.InNumberOrder && !c.interleaved
	if inOrder {
		// Emission order is number order: the same program, its oneofs
		// after the other fields.
		c.regular, c.oneofs = p.regular, p.oneofs
	}
	i, from := 0, protowire.Number(0)
	for _, pos := range l.NumberOrder {
		lf := &l.Fields[pos]
		if c.interleaved && lf.Number > l.FirstExtension {
			c.fields[i].extsStep(p, from, lf.Number)
			i, from = i+1, lf.Number
		}
		f := &c.fields[i]
		i++
		f.init(lf, &p.st.Fields[pos])
		f.variant = v
		if v == signingVar && lf.SigningPacks() {
			f.Op = wire.OpPacked
			f.more = &more{RecMore: layout.RecMore{PackedTag: lf.PackedTag}, lf: lf}
		}
		if lf.Oneof >= 0 && !inOrder {
			if f.more == nil {
				f.more = &more{lf: lf}
			}
			f.code, f.more.oneof, f.more.pos = codeMember, &p.st.Oneofs[lf.Oneof], int(pos)
		}
	}
	if c.interleaved {
		c.fields[i].extsStep(p, from, protowire.MaxValidNumber+1)
	}
	if !p.variants[v].CompareAndSwap(nil, c) {
		return p.variants[v].Load()
	}
	return c
}

// extsStep makes f a codeExts step of a message of program p for the
// extensions numbered from from to below (below excluded).
func (f *genField) extsStep(p *program, from, below protowire.Number) {
	f.code = codeExts
	f.more = &more{from: from, below: below, prog: p}
}

// programs caches the program of each generated message type, by its
// descriptor, released with the schema.
var programs weakcache.Cache[*program]

// programOf returns the program of the generated message type mt, of
// descriptor md, building it on first use; its err says why the type is
// left to the walk.
func programOf(md protoreflect.MessageDescriptor, mt protoreflect.MessageType) *program {
	if p, ok := programs.Load(md); ok {
		return p
	}
	st, err := genstore.Of(mt)
	p := build(st, err)
	p, _ = programs.LoadOrStore(md, p)
	return p
}

// build compiles the program of the storage map st (or records err).
func build(st *genstore.Storage, err error) *program {
	if err != nil {
		return &program{err: err}
	}
	l := st.Layout
	for _, pos := range l.RequiredFields {
		if int(pos) >= l.Regular {
			// Descriptors do not allow it; the size pass relies on it.
			return &program{err: errors.New("engine: a required oneof member")}
		}
	}
	p := &program{
		st:         st,
		fields:     make([]genField, len(l.Fields)),
		regular:    l.Regular,
		required:   l.RequiredFields,
		messageSet: l.MessageSet,
	}
	for i := range st.Oneofs {
		p.oneofs = append(p.oneofs, &st.Oneofs[i])
	}
	for pos := range l.Fields {
		p.fields[pos].init(&l.Fields[pos], &st.Fields[pos])
	}
	p.simple = !p.messageSet && len(p.required) == 0 && len(p.oneofs) == 0 && st.ExtensionsOffset < 0
	return p
}

// init fills f, the engine's record of the field lf stored as sf.
func (f *genField) init(lf *layout.Field, sf *genstore.Field) {
	var m *layout.RecMore
	f.Rec, m = lf.Rec()
	f.sf = sf
	if lf.Oneof < 0 {
		f.code = codeOf(lf, sf)
	}
	if m != nil {
		f.more = &more{RecMore: *m, lf: lf}
		if f.Op == wire.OpMap {
			f.more.keyType, f.more.valueType = sf.GoType.Key(), sf.GoType.Elem()
		}
	}
}

// codeOf returns the code of a field outside real oneofs.
func codeOf(lf *layout.Field, sf *genstore.Field) code {
	if sf.PresenceBit >= 0 {
		switch {
		case sf.Rep == genstore.RepInt32 && lf.Op == wire.OpVarint:
			return codeBitInt32
		case sf.Rep == genstore.RepInt64 && lf.Op == wire.OpVarint:
			return codeBitInt64
		case sf.Rep == genstore.RepBool:
			return codeBitBool
		case sf.Rep == genstore.RepPtrString:
			return codeBitString
		}
		return codeOther
	}
	switch {
	case sf.Rep == genstore.RepInt32 && lf.Op == wire.OpVarint:
		return codeInt32
	case sf.Rep == genstore.RepInt64 && lf.Op == wire.OpVarint:
		return codeInt64
	case sf.Rep == genstore.RepUint64 && lf.Op == wire.OpVarint:
		return codeUint64
	case sf.Rep == genstore.RepUint32 && lf.Op == wire.OpVarint:
		return codeUint32
	case sf.Rep == genstore.RepInt32 && lf.Op == wire.OpZigzag32:
		return codeSint32
	case sf.Rep == genstore.RepInt64 && lf.Op == wire.OpZigzag64:
		return codeSint64
	case sf.Rep == genstore.RepUint32 && lf.Op == wire.OpFixed32:
		return codeFixed32
	case sf.Rep == genstore.RepInt32 && lf.Op == wire.OpFixed32:
		return codeSfixed32
	case sf.Rep == genstore.RepUint64 && lf.Op == wire.OpFixed64:
		return codeFixed64
	case sf.Rep == genstore.RepInt64 && lf.Op == wire.OpFixed64:
		return codeSfixed64
	case sf.Rep == genstore.RepBool:
		return codeBool
	case sf.Rep == genstore.RepPtrString:
		return codePtrString
	case sf.Rep == genstore.RepPtrInt32 && lf.Op == wire.OpVarint:
		return codePtrInt32
	case sf.Rep == genstore.RepPtrInt64 && lf.Op == wire.OpVarint:
		return codePtrInt64
	case sf.Rep == genstore.RepPtrBool:
		return codePtrBool
	case sf.Rep == genstore.RepFloat64:
		return codeFloat64
	case sf.Rep == genstore.RepFloat32:
		return codeFloat32
	case sf.Rep == genstore.RepString:
		return codeString
	case sf.Rep == genstore.RepBytes:
		return codeBytes
	case sf.Rep == genstore.RepMessage && lf.Op == wire.OpMessage:
		return codeMessage
	case sf.Rep == genstore.RepListMessage && lf.Elem == wire.OpMessage:
		return codeListMessage
	case sf.Rep == genstore.RepPtrListMessage && lf.Elem == wire.OpMessage:
		return codePtrListMessage
	case sf.Rep >= genstore.RepListBool && sf.Rep <= genstore.RepListBytes:
		return codeList
	case sf.Rep == genstore.RepMap:
		return codeMap // the only way to a map: sizeOther and appendOther take none
	}
	return codeOther
}

// childProgram returns the program of the messages f holds, linking it on
// first use; its err is set if their type is left to the walk.
func (f *genField) childProgram() *program {
	if c := f.child.Load(); c != nil {
		return c
	}
	return f.linkChild()
}

// linkChild builds and links the program childProgram returns, on its
// first use.
func (f *genField) linkChild() *program {
	var c *program
	st, err := f.sf.Child()
	if err != nil {
		c = &program{err: err}
	} else if md := descriptorOf(f.sf.Elem); md != nil {
		c = programOfStorage(md, st)
	} else {
		c = build(st, nil)
	}
	if f.variant != plain && c.err == nil {
		c = c.canonical(f.variant)
	}
	f.child.Store(c)
	return c
}

// programOfStorage returns the program of the type of descriptor md whose
// storage map is st, from the cache or built now.
func programOfStorage(md protoreflect.MessageDescriptor, st *genstore.Storage) *program {
	if p, ok := programs.Load(md); ok && p.st == st {
		return p
	}
	p, _ := programs.LoadOrStore(md, build(st, nil))
	if p.st != st {
		return build(st, nil)
	}
	return p
}

// descriptorOf returns the descriptor of the generated message type t (a
// pointer to a struct), or nil.
func descriptorOf(t reflect.Type) protoreflect.MessageDescriptor {
	m, ok := reflect.Zero(t).Interface().(protoreflect.ProtoMessage)
	if !ok {
		return nil
	}
	return m.ProtoReflect().Descriptor()
}

// rec returns the rest of a field's record, nil for a field without
// one: a group's has its end key.
func (m *more) rec() *layout.RecMore {
	if m == nil {
		return nil
	}
	return &m.RecMore
}
