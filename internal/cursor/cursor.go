// Package cursor walks a protobuf message over its layouts without
// recursion. A Walker keeps an explicit stack of frames, each a cursor over
// one message's layout (which field is next, which list element, which map
// entry), and hands out the message's contents as a flat sequence of Items
// in the order proto.Marshal writes them. The encoder's size pass consumes
// the sequence and records what it read for the write pass, which never
// walks the message again, so the traversal rules (field order, presence,
// oneofs, extensions, map entry order, depth limit, required fields) live
// here and only here.
//
// Depth is bounded by Options.MaxDepth, never by the goroutine stack. A
// Walker is reused across calls: Release clears every message reference it
// holds and keeps at most MaxRetainedFrames frames of capacity.
//
// The package is for the sizing and encoder packages of this module; it
// knows nothing about bytes.
package cursor

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/internal/appendx"
	"github.com/protolayout/protolayout/internal/dynstore"
	"github.com/protolayout/protolayout/internal/fault"
	"github.com/protolayout/protolayout/internal/layout"
)

// DefaultMaxDepth is the nesting limit used when Options.MaxDepth is 0. It
// equals proto.Unmarshal's default recursion limit, so whatever encodes
// within it also decodes.
const DefaultMaxDepth = 10000

// MaxRetainedFrames bounds the frame capacity a Walker keeps between calls.
const MaxRetainedFrames = 64

// maxRetainedArena bounds the capacity of the map-entry and extension
// scratch slices a Walker keeps between calls.
const maxRetainedArena = 1024

// Kind says what an Item holds.
type Kind uint8

const (
	// Done means the root message has ended; the walk is over.
	Done Kind = iota
	// Value is one scalar, string or bytes value: a singular field, one
	// element of an unpacked repeated field, or a map entry's key or
	// value. Field and Value are set.
	Value
	// Packed is a whole non-empty packed repeated field. Field is set and
	// Value holds the list.
	Packed
	// Enter opens a nested message (a singular, list-element, map-value,
	// oneof or extension message, or a group). Field is set and Value
	// holds the message (see Item.Message); it may be invalid, and then
	// the message is empty. Its contents follow, closed by Exit.
	Enter
	// Entry opens one map entry of the map field Field. The key (a Value)
	// and the value (a Value, or an Enter ... Exit) follow, closed by Exit.
	Entry
	// Exit closes the innermost open message or map entry; Field is the
	// field it was opened through.
	Exit
	// Unknown is the current message's unknown bytes, as a bytes Value.
	Unknown
	// Failed reports a fault; Fault and, where one is to blame, Field are
	// set. The walk cannot continue.
	Failed
	// Map is a whole non-empty map field whose values are not messages,
	// handed out at once with Options.WholeMaps: Field is set, and
	// Walker.Entries returns the entries in the order they are to be
	// written. No Entry, key, value or Exit items follow for them.
	Map
)

// Item is one step of a walk: a kind, the field it concerns, and a value
// whose meaning depends on the kind (a scalar for Value, the list for
// Packed, the message for Enter, the raw bytes for Unknown). It is kept
// small, since every value of a message passes through one.
type Item struct {
	Kind  Kind
	Fault fault.Fault
	Field *layout.Field
	Value protoreflect.Value
}

// Message returns the message an Enter item opens, or nil when the field
// holds no valid value (it then encodes as an empty message).
func (it *Item) Message() protoreflect.Message {
	if !it.Value.IsValid() {
		return nil
	}
	return it.Value.Message()
}

// Options configure a walk.
type Options struct {
	// MaxDepth is the deepest nesting allowed below the root message (the
	// root is at depth 0; map entries do not count). 0 means
	// DefaultMaxDepth.
	MaxDepth int
	// CheckRequired makes the walk fail on the first required field that
	// is not set, in emission order, nested messages included.
	CheckRequired bool
	// Unsorted hands out map entries in the order the map's Range yields
	// them (for dynamicpb and generated maps, Go's map order, which
	// changes from one walk to the next), as proto.Marshal writes them
	// without Deterministic. By default they are sorted by key, as
	// proto.Marshal writes them with Deterministic.
	Unsorted bool
	// WholeMaps hands out each map field whose values are not messages as
	// one Map item instead of an Entry, a key, a value and an Exit item
	// per entry.
	WholeMaps bool
}

// what a frame has open of its current field
const (
	collNone uint8 = iota
	collList
	collMap
)

// frame states
const (
	stateStart uint8 = iota
	stateExtensions
	stateFields
	stateOneofs
	stateUnknown
	stateExit
	// map entry frames
	stateKey
	stateValue
)

// frame is one open message or map entry. Frames are reused without
// being cleared: open sets what is read before being written,
// and Release clears every frame used.
type frame struct {
	lay   *layout.Layout
	msg   protoreflect.Message // nil for map entries and absent messages
	via   *layout.Field        // the field the frame was entered through; nil for the root
	index int                  // list element index within via, or -1
	state uint8
	entry bool // a map entry frame
	// position within the state; for a map entry frame, the index of its
	// key and value in Walker.entries
	i int

	// coll says whether an unpacked list or a map of the current field is
	// open (the fields below are stale otherwise)
	coll uint8

	// an open unpacked list field
	list     protoreflect.List
	listF    *layout.Field
	j, listN int

	// an open map field: entries in Walker.entries[mapFrom:mapTo], next at mapPos
	mapF                   *layout.Field
	mapFrom, mapPos, mapTo int

	// the set extensions, in Walker.exts[extFrom:extTo]
	extFrom, extTo int

	// ranged frames read their set fields with one Range call into
	// Walker.set[setFrom:setTo], sorted into emission order; req is the
	// next entry of the layout's RequiredFields to check
	ranged         bool
	setFrom, setTo int
	req            int

	// the message's field descriptors, for the frames that read it field
	// by field through protoreflect (layouts hold no descriptors)
	fds protoreflect.FieldDescriptors
}

// MapEntry is one entry of a map field: its key and value.
type MapEntry struct {
	Key   protoreflect.MapKey
	Value protoreflect.Value
}

// extField is a set extension and its value.
type extField struct {
	fd protoreflect.FieldDescriptor
	v  protoreflect.Value
}

// setField is a set field, by position in its layout, and its value.
type setField struct {
	pos int32
	v   protoreflect.Value
}

// Walker walks one message at a time. The zero Walker is ready to use. A
// Walker belongs to one goroutine at a time.
type Walker struct {
	frames   []frame
	top      *frame // the innermost frame, or nil
	used     int    // frames used since the last Release, to be cleared
	depth    int    // message frames on the stack, the root included
	maxDepth int
	required bool
	unsorted bool
	whole    bool

	item Item // the item Next last returned

	entries []MapEntry
	exts    []extField
	// scratch space of sortEntries, empty between calls
	keys    []sortKey
	sorted  []MapEntry
	set     []setField
	setUsed int            // the longest set has been since Release, to be cleared
	ranging *layout.Layout // the layout of the message being ranged over
	foreign bool           // Range reported a field the layout lacks

	// callbacks bound once, so that Range does not allocate a closure per call
	collectEntry func(protoreflect.MapKey, protoreflect.Value) bool
	collectExt   func(protoreflect.FieldDescriptor, protoreflect.Value) bool
	collectSet   func(protoreflect.FieldDescriptor, protoreflect.Value) bool
}

// Reset starts a walk over m. Call Release when the walk is over, whether
// it reached Done or not.
func (w *Walker) Reset(m protoreflect.Message, o Options) {
	if w.collectEntry == nil {
		w.collectEntry = w.appendEntry
		w.collectExt = w.appendExt
		w.collectSet = w.appendSet
	}
	if w.used > 0 { // else released since the last walk: nothing to clear
		w.Release()
	}
	w.maxDepth = o.MaxDepth
	if w.maxDepth <= 0 {
		w.maxDepth = DefaultMaxDepth
	}
	w.required = o.CheckRequired
	w.unsorted = o.Unsorted
	w.whole = o.WholeMaps
	w.open(layout.Of(m.Descriptor()), m, nil, -1)
	w.depth = 1
}

// Release ends the walk: it clears every message reference the Walker holds
// and trims its scratch space to the retained bounds.
func (w *Walker) Release() {
	clear(w.frames[:w.used])
	w.used, w.top = 0, nil
	w.frames = w.frames[:0]
	if cap(w.frames) > MaxRetainedFrames {
		w.frames = nil
	}
	clear(w.entries) // entries past len were cleared when truncated
	w.entries = w.entries[:0]
	if cap(w.entries) > maxRetainedArena {
		w.entries = nil
	}
	clear(w.exts)
	w.exts = w.exts[:0]
	if cap(w.exts) > maxRetainedArena {
		w.exts = nil
	}
	if cap(w.keys) > maxRetainedArena { // cleared after each sort
		w.keys, w.sorted = nil, nil
	}
	clear(w.set[:w.setUsed])
	w.set, w.setUsed = w.set[:0], 0
	if cap(w.set) > maxRetainedArena {
		w.set = nil
	}
	w.ranging = nil
	w.item = Item{}
	w.depth = 0
}

// Depth reports the nesting depth of the innermost open message: 0 for the
// root.
func (w *Walker) Depth() int { return w.depth - 1 }

// Layout returns the layout of the innermost open message (the one an
// Enter item just opened), or nil inside a map entry.
func (w *Walker) Layout() *layout.Layout {
	return w.top.lay
}

// Message returns the innermost open message: after an Enter item, the
// message it opened, as Item.Message returns it (nil when the field holds
// no valid value), without converting the item's value again.
func (w *Walker) Message() protoreflect.Message {
	return w.top.msg
}

// MaxDepth reports the walk's effective depth limit.
func (w *Walker) MaxDepth() int { return w.maxDepth }

// Skip abandons the message just opened by Enter: its contents are not
// walked and no Exit follows for it. It must be called right after the
// Enter item, before the next call to Next.
func (w *Walker) Skip() {
	w.pop()
}

func (w *Walker) pop() {
	top := len(w.frames) - 1
	if !w.frames[top].entry {
		w.depth--
	}
	w.frames = w.frames[:top] // Release clears it
	w.top = nil
	if top > 0 {
		w.top = &w.frames[top-1]
	}
}

// open pushes a frame for message m (nil for a map entry) of layout lay,
// entered through field via, at element index. A reused frame keeps
// stale values in the fields every state writes before reading (the
// ranges in the arenas, the list and map positions); the others are set
// here.
func (w *Walker) open(lay *layout.Layout, m protoreflect.Message, via *layout.Field, index int) *frame {
	n := len(w.frames)
	if n < cap(w.frames) {
		w.frames = w.frames[:n+1]
	} else {
		w.frames = append(w.frames, frame{})
	}
	w.used = max(w.used, n+1)
	f := &w.frames[n]
	f.lay, f.msg, f.via, f.index = lay, m, via, index
	f.state, f.entry, f.i = stateStart, false, 0
	f.coll = collNone
	f.ranged, f.req = false, 0
	w.top = f
	return f
}

// Next returns the next item of the walk. The item belongs to the Walker
// and is valid until the next call.
func (w *Walker) Next() *Item {
	for {
		f := w.top
		if f == nil {
			w.item = Item{Kind: Done}
			return &w.item
		}

		// An open unpacked list or map of the current field goes first.
		switch f.coll {
		case collList:
			if f.j < f.listN {
				lf, j := f.listF, f.j
				v := f.list.Get(j)
				f.j++
				if lf.IsMessage() {
					return w.enter(lf, v, j)
				}
				return w.put(Value, lf, v)
			}
			f.coll = collNone
		case collMap:
			if f.mapPos < f.mapTo {
				i, mf := f.mapPos-f.mapFrom, f.mapF
				f.mapPos++
				w.openEntry(f, i) // f is stale from here
				w.item = Item{Kind: Entry, Field: mf}
				return &w.item
			}
			clear(w.entries[f.mapFrom:f.mapTo])
			w.entries = w.entries[:f.mapFrom]
			f.coll = collNone
		}

		lay := f.lay
		switch f.state {
		case stateKey:
			f.state = stateValue
			return w.put(Value, f.via.MapKey, w.entries[f.i].Key.Value())

		case stateValue:
			f.state = stateExit
			vf := f.via.MapValue
			if vf.IsMessage() {
				return w.enter(vf, w.entries[f.i].Value, -1)
			}
			return w.put(Value, vf, w.entries[f.i].Value)

		case stateStart:
			if f.msg == nil || !f.msg.IsValid() {
				f.state = stateExit
				if w.required && lay.Required {
					for i := range lay.Fields {
						if lay.Fields[i].Required {
							w.item = Item{Kind: Failed, Fault: fault.RequiredNotSet, Field: &lay.Fields[i]}
							return &w.item
						}
					}
				}
				continue
			}
			if lay.MessageSet {
				w.item = Item{Kind: Failed, Fault: fault.MessageSetUnsupported}
				return &w.item
			}
			f.state = stateFields
			f.extFrom = len(w.exts)
			if dm, ok := f.msg.(*dynamicpb.Message); ok {
				// dynamicpb keeps set fields in a map: reading it once
				// visits exactly those, cheaper than Has and Get per
				// declared field. Sorting by position gives emission
				// order, oneof members included.
				f.ranged = true
				f.setFrom = len(w.set)
				stored, sorted := w.collectStored(dm, lay)
				if !stored {
					w.ranging = lay
					f.msg.Range(w.collectSet)
					w.ranging = nil
				}
				w.setUsed = max(w.setUsed, len(w.set))
				if w.foreign {
					w.foreign = false
					w.item = Item{Kind: Failed, Fault: fault.ForeignField}
					return &w.item
				}
				f.setTo = len(w.set)
				if !sorted {
					sortSet(w.set[f.setFrom:f.setTo])
				}
			} else {
				f.fds = f.msg.Descriptor().Fields()
				if lay.Extendable {
					f.msg.Range(w.collectExt)
				}
			}
			f.extTo = len(w.exts)
			if f.extTo > f.extFrom {
				slices.SortFunc(w.exts[f.extFrom:f.extTo], byNumber)
				f.state = stateExtensions
				f.i = f.extFrom
			} else if f.ranged {
				f.i = f.setFrom
			}

		case stateExtensions:
			if f.i < f.extTo {
				x := w.exts[f.i]
				f.i++
				if w.value(f, layout.Extension(x.fd), x.v) {
					return &w.item
				}
				continue
			}
			clear(w.exts[f.extFrom:f.extTo])
			w.exts = w.exts[:f.extFrom]
			f.state, f.i = stateFields, 0
			if f.ranged {
				f.i = f.setFrom
			}

		case stateFields:
			if f.ranged {
				for f.i < f.setTo {
					sf := &w.set[f.i]
					f.i++
					if w.required && f.req < len(lay.RequiredFields) {
						if r := lay.RequiredFields[f.req]; r < sf.pos {
							w.item = Item{Kind: Failed, Fault: fault.RequiredNotSet, Field: &lay.Fields[r]}
							return &w.item
						} else if r == sf.pos {
							f.req++
						}
					}
					fl := &lay.Fields[sf.pos]
					if !fl.List && !fl.Map && !fl.IsMessage() {
						// A singular scalar, the common case: value's
						// last case, without the call.
						return w.put(Value, fl, sf.v)
					}
					if w.value(f, fl, sf.v) {
						return &w.item
					}
					break // a list or map was opened
				}
				if f.coll == collNone && f.i >= f.setTo {
					if w.required && f.req < len(lay.RequiredFields) {
						w.item = Item{Kind: Failed, Fault: fault.RequiredNotSet, Field: &lay.Fields[lay.RequiredFields[f.req]]}
						return &w.item
					}
					w.set = w.set[:f.setFrom] // Release clears it
					f.state = stateUnknown
				}
				continue
			}
			for f.i < lay.Regular {
				fl := &lay.Fields[f.i]
				f.i++
				fd := f.fds.Get(fl.Index)
				if !f.msg.Has(fd) {
					if fl.Required && w.required {
						w.item = Item{Kind: Failed, Fault: fault.RequiredNotSet, Field: fl}
						return &w.item
					}
					continue
				}
				if w.value(f, fl, f.msg.Get(fd)) {
					return &w.item
				}
				// A list or map was opened (or was empty): the loop
				// head hands out its contents.
				break
			}
			if f.coll == collNone && f.i >= lay.Regular {
				f.state, f.i = stateOneofs, 0
			}

		case stateOneofs:
			if f.i < len(lay.Oneofs) {
				// The oneof, through its first member's descriptor.
				od := f.fds.Get(lay.Fields[lay.Oneofs[f.i].First].Index).ContainingOneof()
				f.i++
				fd := f.msg.WhichOneof(od)
				if fd == nil {
					continue
				}
				fl := lay.Lookup(fd)
				if fl == nil {
					w.item = Item{Kind: Failed, Fault: fault.ForeignField}
					return &w.item
				}
				if w.value(f, fl, f.msg.Get(fd)) {
					return &w.item
				}
				continue
			}
			f.state = stateUnknown

		case stateUnknown:
			f.state = stateExit
			if raw := f.msg.GetUnknown(); len(raw) > 0 {
				w.item = Item{Kind: Unknown, Value: protoreflect.ValueOfBytes(raw)}
				return &w.item
			}

		case stateExit:
			via := f.via
			w.pop()
			if w.top == nil { // the root
				w.item = Item{Kind: Done}
				return &w.item
			}
			w.item = Item{Kind: Exit, Field: via}
			return &w.item
		}
	}
}

// value turns the value v of field fl of the message in frame f into an
// item. For a list or map it opens the field in f and reports false: the
// contents come from the following calls. f must not be used after value
// returns, since entering a message may grow the frame stack.
func (w *Walker) value(f *frame, fl *layout.Field, v protoreflect.Value) bool {
	switch {
	case fl.Map:
		m := v.Map()
		if m.Len() == 0 {
			return false
		}
		f.mapFrom = len(w.entries)
		m.Range(w.collectEntry)
		f.mapTo = len(w.entries)
		f.mapPos = f.mapFrom
		f.mapF, f.coll = fl, collMap
		if !w.unsorted {
			w.sortEntries(w.entries[f.mapFrom:f.mapTo], fl.MapKey.Kind)
		}
		if w.whole && !fl.MapValue.IsMessage() {
			// Handed out whole: the next call finds the map consumed
			// and drops the entries.
			f.mapPos = f.mapTo
			w.item = Item{Kind: Map, Field: fl}
			return true
		}
		return false
	case fl.List:
		l := v.List()
		n := l.Len()
		if n == 0 {
			return false
		}
		if fl.Packed {
			w.item = Item{Kind: Packed, Field: fl, Value: v}
			return true
		}
		f.list, f.listF, f.j, f.listN, f.coll = l, fl, 0, n, collList
		return false
	case fl.IsMessage():
		w.enter(fl, v, -1)
		return true
	}
	w.put(Value, fl, v)
	return true
}

// Entries returns the entries of the map a Map item just handed out, in
// the order they are to be written. The slice belongs to the Walker and
// is valid until the next call to Next.
func (w *Walker) Entries() []MapEntry {
	f := w.top
	return w.entries[f.mapFrom:f.mapTo]
}

// OpenEntry opens the entry at index i of Entries, after a Map item, so
// that AppendPath names its key: for reporting a fault of that entry,
// after which the walk does not continue.
func (w *Walker) OpenEntry(i int) {
	w.openEntry(w.top, i)
}

// openEntry pushes the frame of entry i of the map open in frame f, which
// is stale once it returns.
func (w *Walker) openEntry(f *frame, i int) {
	mf, e := f.mapF, f.mapFrom+i
	ef := w.open(nil, nil, mf, i)
	ef.entry, ef.state, ef.i = true, stateKey, e
}

// put sets the item Next returns to a Value or Enter item, field by field:
// cheaper than assigning a whole Item, and Fault, which only Failed items
// carry, is read from no other kind.
func (w *Walker) put(k Kind, f *layout.Field, v protoreflect.Value) *Item {
	it := &w.item
	it.Kind, it.Field, it.Value = k, f, v
	return it
}

// enter pushes a frame for the message value v of field fl.
func (w *Walker) enter(fl *layout.Field, v protoreflect.Value, index int) *Item {
	if w.depth > w.maxDepth {
		w.item = Item{Kind: Failed, Fault: fault.DepthExceeded, Field: fl}
		return &w.item
	}
	var m protoreflect.Message
	if v.IsValid() {
		m = v.Message()
		if dm, ok := m.(*dynamicpb.Message); ok && dm == nil {
			m = nil // no descriptor to read: an absent message
		}
	}
	lay := fl.Message()
	if m != nil {
		// A field may hold a message of an equivalent descriptor from
		// another load (same full name); read it with its own.
		if md := m.Descriptor(); !lay.IsOf(md) {
			lay = layout.Of(md)
		}
	}
	w.open(lay, m, fl, index)
	w.depth++
	return w.put(Enter, fl, v)
}

func (w *Walker) appendEntry(k protoreflect.MapKey, v protoreflect.Value) bool {
	e := appendx.One(&w.entries)
	e.Key, e.Value = k, v
	return true
}

func (w *Walker) appendExt(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
	if fd.IsExtension() {
		w.exts = append(w.exts, extField{fd, v})
	}
	return true
}

// collectStored collects the set fields of m straight from dynamicpb's
// storage, deciding what counts as set from the layout. It reports whether
// it did (not when direct reads are disabled; the caller then uses Range),
// and whether the fields came out in emission order already.
func (w *Walker) collectStored(m *dynamicpb.Message, lay *layout.Layout) (stored, sorted bool) {
	known, ext, ok := dynstore.Fields(m)
	if !ok {
		return false, false
	}
	if len(ext) == 0 && len(lay.Fields) <= len(known)+lookupSlack {
		// Few declared fields besides the stored ones: look each up, in
		// emission order. A lookup costs far less than starting a map
		// iteration (which draws a random start), and the fields come
		// out sorted. A stored number that no declared field has is
		// foreign; the count of those found shows one (the loop stops
		// once all are found).
		found := 0
		for i := range lay.Fields {
			if found == len(known) {
				break // the rest are not stored
			}
			fl := &lay.Fields[i]
			if v, ok := known[fl.Number]; ok {
				found++
				if fl.IsSet(v) {
					sf := appendx.One(&w.set)
					sf.pos, sf.v = int32(i), v
				}
			}
		}
		if found != len(known) {
			w.foreign = true
		}
		return true, true
	}
	hasExt := len(ext) > 0
	for num, v := range known {
		if hasExt {
			if xd := ext[num]; xd != nil {
				if layout.Extension(xd).IsSet(v) {
					w.exts = append(w.exts, extField{xd, v})
				}
				continue
			}
		}
		p := lay.PositionOfNumber(num)
		if p < 0 {
			w.foreign = true
			return true, false
		}
		if lay.Fields[p].IsSet(v) {
			sf := appendx.One(&w.set)
			sf.pos, sf.v = int32(p), v
		}
	}
	return true, false
}

// lookupSlack is how many more declared fields than stored ones
// collectStored still reads by lookup rather than by iterating the
// storage: a message of up to 16 fields always, one of 24 when 8 are set.
// The lookups stop at the last stored field, so fields declared after it
// cost nothing. Measured by counted instructions per OTLP export and per
// descriptor set: slack 4, 8, 16, 32 and unbounded give 8.51M, 8.24M,
// 8.17M, 8.23M and 8.21M, and 2.373M, 2.389M, 2.377M, 2.379M and 2.389M.
// The bound keeps a message of thousands of declared fields with a few
// set from thousands of lookups.
const lookupSlack = 16

// appendSet collects one set field of the message being ranged over.
func (w *Walker) appendSet(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
	if fd.IsExtension() {
		w.exts = append(w.exts, extField{fd, v})
		return true
	}
	p := w.ranging.Position(fd)
	if p < 0 {
		w.foreign = true
		return false
	}
	sf := appendx.One(&w.set)
	sf.pos, sf.v = int32(p), v
	return true
}

func byNumber(a, b extField) int {
	return cmp.Compare(a.fd.Number(), b.fd.Number())
}

// sortSet orders set fields by position: an insertion sort, since most
// messages have few set fields.
func sortSet(s []setField) {
	if len(s) > 24 {
		slices.SortFunc(s, func(a, b setField) int { return cmp.Compare(a.pos, b.pos) })
		return
	}
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j].pos < s[j-1].pos; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// sortEntries orders map entries by key the way proto.Marshal does in
// deterministic mode: false before true, signed and unsigned integers
// numerically, strings bytewise. It sorts the keys, read once into a
// slice beside their positions, rather than the entries, which are
// larger and whose keys a comparison would convert every time; then it
// puts the entries in that order.
func (w *Walker) sortEntries(es []MapEntry, k protoreflect.Kind) {
	if len(es) < 2 {
		return
	}
	keys := w.keys[:0]
	switch k {
	case protoreflect.StringKind:
		for i := range es {
			s := es[i].Key.String()
			keys = append(keys, sortKey{s: s, n: prefix(s), i: int32(i)})
		}
		slices.SortFunc(keys, byStringKey)
	case protoreflect.Int32Kind, protoreflect.Int64Kind,
		protoreflect.Sint32Kind, protoreflect.Sint64Kind,
		protoreflect.Sfixed32Kind, protoreflect.Sfixed64Kind:
		for i := range es {
			// Offset so that unsigned order is signed order.
			keys = append(keys, sortKey{n: uint64(es[i].Key.Int()) ^ 1<<63, i: int32(i)})
		}
		slices.SortFunc(keys, byNumericKey)
	case protoreflect.Uint32Kind, protoreflect.Uint64Kind,
		protoreflect.Fixed32Kind, protoreflect.Fixed64Kind:
		for i := range es {
			keys = append(keys, sortKey{n: es[i].Key.Uint(), i: int32(i)})
		}
		slices.SortFunc(keys, byNumericKey)
	case protoreflect.BoolKind:
		// Two entries at most: false first.
		if es[0].Key.Bool() {
			es[0], es[1] = es[1], es[0]
		}
		return
	default:
		return
	}
	sorted := append(w.sorted[:0], es...)
	for j := range keys {
		es[j] = sorted[keys[j].i]
	}
	clear(keys) // they hold the caller's strings
	clear(sorted)
	w.keys, w.sorted = keys[:0], sorted[:0]
}

// sortKey is a map entry's key, read once for sorting, and the entry's
// position: a string key in s (and its prefix in n), a numeric one in n.
type sortKey struct {
	s string
	n uint64
	i int32
}

func byNumericKey(a, b sortKey) int { return cmp.Compare(a.n, b.n) }

// byStringKey orders string keys bytewise: by their first eight bytes,
// which tell most keys apart in one comparison, then by the whole key.
func byStringKey(a, b sortKey) int {
	if a.n != b.n {
		return cmp.Compare(a.n, b.n)
	}
	return strings.Compare(a.s, b.s)
}

// prefix returns the first eight bytes of s as a big-endian number,
// padded with zeros: prefixes compare as the strings do, or are equal.
func prefix(s string) uint64 {
	if len(s) >= 8 {
		return uint64(s[0])<<56 | uint64(s[1])<<48 | uint64(s[2])<<40 | uint64(s[3])<<32 |
			uint64(s[4])<<24 | uint64(s[5])<<16 | uint64(s[6])<<8 | uint64(s[7])
	}
	var n uint64
	for i := range 8 {
		n <<= 8
		if i < len(s) {
			n |= uint64(s[i])
		}
	}
	return n
}

// AppendPath appends the path from the root to the innermost open message,
// such as `resource_spans[0].scope_spans[2].spans[7].attributes["k"]`,
// followed by field f if it is not nil. It is meant for error messages.
func (w *Walker) AppendPath(b []byte, f *layout.Field) []byte {
	n := len(w.frames)
	if n > 0 && w.frames[n-1].entry {
		f = nil // the entry's key already locates the failure
	}
	return fault.AppendSteps(b, n-1, func(i int) fault.PathStep {
		fr := &w.frames[i+1]
		switch {
		case fr.entry:
			return fault.PathStep{Field: fr.via, Index: -1, Key: func(b []byte) []byte {
				return appendKey(b, w.entries[fr.i].Key, fr.via.MapKey.Kind)
			}}
		case w.frames[i].entry:
			return fault.PathStep{} // a map value: its entry already named it
		}
		return fault.PathStep{Field: fr.via, Index: fr.index}
	}, f)
}

func appendKey(b []byte, k protoreflect.MapKey, kind protoreflect.Kind) []byte {
	switch kind {
	case protoreflect.BoolKind:
		return strconv.AppendBool(b, k.Bool())
	case protoreflect.StringKind:
		return strconv.AppendQuote(b, k.String())
	case protoreflect.Uint32Kind, protoreflect.Uint64Kind,
		protoreflect.Fixed32Kind, protoreflect.Fixed64Kind:
		return strconv.AppendUint(b, k.Uint(), 10)
	}
	return strconv.AppendInt(b, k.Int(), 10)
}
