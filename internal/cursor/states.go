package cursor

import (
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
	"math/bits"

	"github.com/protolayout/protolayout/internal/fault"
	"github.com/protolayout/protolayout/internal/layout"
	"github.com/protolayout/protolayout/internal/wire"
)

// Next returns the next item of the walk. The item belongs to the Walker
// and is valid until the next call.
func (w *Walker) Next() *Item {
	// Run the state of the innermost frame (see the frame states in
	// walker.go) until one hands out an item. A state method returns the
	// item, or nil when it only moved on (to another state, past an empty
	// list or map, or into a list or map whose contents the following
	// steps hand out); a state that ends without an item calls the next
	// state's method itself where it can, rather than taking another turn
	// of this loop. A state that enters a message or a map entry pushes a
	// frame, which the next call runs.
	for {
		f := w.top
		if f == nil {
			w.item = Item{Kind: Done}
			return &w.item
		}
		var it *Item
		switch f.state {
		case stateStart:
			it = w.start(f)
		case stateExtensions:
			it = w.nextExtension(f)
		case stateRanged:
			// The common step inlines (rangedScalar); the others take
			// a call.
			if it = w.rangedScalar(f); it == nil {
				it = w.rangedField(f)
			}
		case stateFields:
			it = w.nextField(f)
		case stateOneofs:
			it = w.nextOneof(f)
		case stateExit:
			it = w.exit(f)
		case stateList:
			it = w.nextElement(f)
		case stateMap:
			it = w.nextEntry(f)
		case stateKey:
			it = w.entryKey(f)
		case stateValue:
			it = w.entryValue(f)
		case stateCanonical:
			it = w.nextCanonical(f)
		}
		if it != nil {
			return it
		}
	}
}

// start begins a message frame and decides, once for the frame, how its
// fields are read. A valid *dynamicpb.Message other than a message set is
// ranged: its set fields are read here, from dynamicpb's storage or with
// one Range call, into Walker.set[f.setFrom:f.setTo] in emission order,
// and its set extensions into Walker.exts; stateRanged then hands them
// out. So is a valid *dynamic.Message (of this module's package dynamic),
// whose Range reads its storage. dynamicpb keeps set fields in a map: reading it once visits
// exactly those, cheaper than Has and Get per declared field, and sorting
// by position gives emission order, oneof members included. A message
// holding a field its layout lacks fails. Any other frame goes to
// startFields. Without extensions, start goes on to the first field at
// once.
func (w *Walker) start(f *frame) *Item {
	lay := f.lay
	if lay.MessageSet {
		return w.startFields(f)
	}
	if w.canonical {
		return w.startCanonical(f)
	}
	f.extFrom = len(w.exts)
	f.setFrom = len(w.set)
	var sorted bool
	if dm, ok := f.msg.(*dynamicpb.Message); ok {
		if !dm.IsValid() {
			return w.startFields(f)
		}
		var stored bool
		stored, sorted = w.collectStored(dm, lay)
		if !stored {
			w.ranging = lay
			dm.Range(w.collectSet)
			w.ranging = nil
		}
	} else if _, ok := f.msg.(storedMessage); !ok || !f.msg.IsValid() {
		return w.startFields(f)
	} else {
		// A message of package dynamic: one Range visits its set fields
		// straight from its storage.
		w.ranging = lay
		f.msg.Range(w.collectSet)
		w.ranging = nil
	}
	f.fields, f.req = stateRanged, 0
	if !w.required {
		f.req = len(lay.RequiredFields) // none to check
	}
	w.setUsed = max(w.setUsed, len(w.set))
	if w.foreign {
		w.foreign = false
		return w.fail(fault.ForeignField, nil)
	}
	f.setTo = len(w.set)
	if !sorted {
		sortSet(w.set[f.setFrom:f.setTo])
	}
	f.i = f.setFrom
	if w.openExtensions(f) {
		return nil
	}
	// stateRanged's first step, as Next takes it.
	if it := w.rangedScalar(f); it != nil {
		return it
	}
	return w.rangedField(f)
}

// startFields begins a frame that start does not range over. An absent
// message (invalid, or nil) has no contents: the frame goes to
// stateExit, after failing on its first required field when required
// fields are checked. A message set fails. Any other message is read
// field by field through protoreflect, by stateFields then stateOneofs,
// after its set extensions; without extensions startFields goes on to
// the first field at once.
func (w *Walker) startFields(f *frame) *Item {
	lay := f.lay
	if f.msg == nil || !f.msg.IsValid() {
		f.state = stateExit
		if r := lay.Absent(); r != nil && w.required {
			return w.fail(fault.RequiredNotSet, r)
		}
		return nil
	}
	if lay.MessageSet {
		return w.fail(fault.MessageSetUnsupported, nil)
	}
	f.fields, f.i = stateFields, 0
	f.fds = f.msg.Descriptor().Fields()
	f.extFrom = len(w.exts)
	if lay.Extendable {
		f.msg.Range(w.collectExt)
	}
	if w.openExtensions(f) {
		return nil
	}
	return w.nextField(f)
}

// openExtensions moves the frame to stateExtensions and reports true if
// the start gathered set extensions (sorting them into number order);
// otherwise it moves the frame to the fields state chosen at the start.
func (w *Walker) openExtensions(f *frame) bool {
	f.extTo = len(w.exts)
	if f.extTo == f.extFrom {
		f.state = f.fields
		return false
	}
	w.sortExts(f.extFrom, f.extTo)
	f.state, f.ext = stateExtensions, f.extFrom
	return true
}

// nextExtension hands out the next set extension, in number order; after
// the last it drops the frame's extensions from Walker.exts and moves on
// to the fields.
func (w *Walker) nextExtension(f *frame) *Item {
	if f.ext < f.extTo {
		return w.extension(f)
	}
	w.dropExtensions(f)
	f.state = f.fields
	return nil
}

// extension hands out the frame's next set extension.
func (w *Walker) extension(f *frame) *Item {
	x := w.exts[f.ext]
	f.ext++
	return w.value(f, layout.Extension(x.FD), x.V)
}

// dropExtensions drops the frame's set extensions from Walker.exts.
func (w *Walker) dropExtensions(f *frame) {
	clear(w.exts[f.extFrom:f.extTo])
	w.exts = w.exts[:f.extFrom]
}

// rangedScalar hands out the next set field of a ranged frame if it is
// the common case, a singular scalar with no required field left to
// check; otherwise it returns nil, and rangedField takes over. It makes
// no call, so it inlines into Next.
func (w *Walker) rangedScalar(f *frame) *Item {
	if f.i < f.setTo {
		sf := &w.set[f.i]
		fl := &f.lay.Fields[sf.Pos]
		// Not IsMessage excludes maps too: a map field's kind is
		// MessageKind.
		if !fl.List && !fl.IsMessage() && f.req == len(f.lay.RequiredFields) {
			f.i++
			// put's assignments, written out: through put, the
			// function would exceed the inlining budget.
			w.item.Kind, w.item.Field, w.item.Value = Value, fl, sf.V
			return &w.item
		}
	}
	return nil
}

// rangedField hands out the next set field of a ranged frame, in
// emission order, when rangedScalar does not: checking, when required
// fields are checked, that no required field before it is missing. After
// the last it checks the remaining required fields, drops the frame's
// fields from Walker.set and goes on to the unknown bytes: oneof members
// were among the set fields.
func (w *Walker) rangedField(f *frame) *Item {
	lay := f.lay
	if f.i < f.setTo {
		sf := &w.set[f.i]
		f.i++
		if f.req < len(lay.RequiredFields) {
			if r := lay.RequiredFields[f.req]; r < sf.Pos {
				return w.fail(fault.RequiredNotSet, &lay.Fields[r])
			} else if r == sf.Pos {
				f.req++
			}
		}
		return w.value(f, &lay.Fields[sf.Pos], sf.V)
	}
	if f.req < len(lay.RequiredFields) {
		return w.fail(fault.RequiredNotSet, &lay.Fields[lay.RequiredFields[f.req]])
	}
	w.set = w.set[:f.setFrom] // Release clears it
	return w.unknown(f)
}

// nextField hands out the next set regular field (not a oneof member) of
// a frame read through protoreflect, in layout order, failing on an unset
// required field when required fields are checked. After the last it
// moves to stateOneofs and goes on to the first oneof.
func (w *Walker) nextField(f *frame) *Item {
	lay := f.lay
	for f.i < lay.Regular {
		fl := &lay.Fields[f.i]
		f.i++
		fd := f.fds.Get(fl.Index)
		if !f.msg.Has(fd) {
			if fl.Required && w.required {
				return w.fail(fault.RequiredNotSet, fl)
			}
			continue
		}
		return w.value(f, fl, f.msg.Get(fd))
	}
	f.state, f.i = stateOneofs, 0
	return w.nextOneof(f)
}

// nextOneof hands out the set member of the next oneof that has one, of a
// frame read through protoreflect; after the last oneof it goes on to the
// unknown bytes.
func (w *Walker) nextOneof(f *frame) *Item {
	lay := f.lay
	for f.i < len(lay.Oneofs) {
		// The oneof, through its first member's descriptor.
		od := f.fds.Get(lay.Fields[lay.Oneofs[f.i].First].Index).ContainingOneof()
		f.i++
		fd := f.msg.WhichOneof(od)
		if fd == nil {
			continue
		}
		fl := lay.Lookup(fd)
		if fl == nil {
			return w.fail(fault.ForeignField, nil)
		}
		return w.value(f, fl, f.msg.Get(fd))
	}
	return w.unknown(f)
}

// startCanonical begins a message frame under Options.Canonical: it
// gathers the set fields (from dynamicpb's storage, or with one Range
// call, which yields the extensions too), checks the required fields,
// and sorts the fields and the extensions by number for nextCanonical.
// An absent message goes to startFields, which checks its required
// fields and exits.
func (w *Walker) startCanonical(f *frame) *Item {
	lay := f.lay
	if f.msg == nil || !f.msg.IsValid() {
		return w.startFields(f)
	}
	f.extFrom = len(w.exts)
	f.setFrom = len(w.set)
	stored := false
	if dm, ok := f.msg.(*dynamicpb.Message); ok {
		stored, _ = w.collectStored(dm, lay)
	}
	if !stored {
		w.ranging = lay
		f.msg.Range(w.collectSet)
		w.ranging = nil
	}
	f.setTo, f.extTo = len(w.set), len(w.exts)
	w.setUsed = max(w.setUsed, len(w.set))
	f.state, f.i, f.ext = stateCanonical, f.setFrom, f.extFrom
	if w.foreign {
		w.foreign = false
		return w.fail(fault.ForeignField, nil)
	}
	set := w.set[f.setFrom:f.setTo]
	if w.required && lay.Required {
		sortSet(set)
		j := 0
		for _, r := range lay.RequiredFields {
			for j < len(set) && set[j].Pos < r {
				j++
			}
			if j == len(set) || set[j].Pos != r {
				return w.fail(fault.RequiredNotSet, &lay.Fields[r])
			}
		}
	}
	sortSetByNumber(set, lay)
	w.sortExts(f.extFrom, f.extTo)
	return nil
}

// nextCanonical hands out the next set field or extension of a frame
// started by startCanonical, whichever has the lower number; after the
// last it drops them and goes on to the unknown bytes.
func (w *Walker) nextCanonical(f *frame) *Item {
	lay := f.lay
	if f.i < f.setTo {
		sf := &w.set[f.i]
		fl := &lay.Fields[sf.Pos]
		if f.ext == f.extTo || fl.Number < protowire.Number(w.exts[f.ext].FD.Number()) {
			f.i++
			return w.value(f, fl, sf.V)
		}
	}
	if f.ext < f.extTo {
		return w.extension(f)
	}
	w.dropExtensions(f)
	w.set = w.set[:f.setFrom] // Release clears it
	return w.unknown(f)
}

// unknown ends the fields of a message frame, whichever way they were
// read: it hands out the message's unknown bytes and moves to stateExit,
// or, without any, exits at once.
func (w *Walker) unknown(f *frame) *Item {
	if raw := f.msg.GetUnknown(); len(raw) > 0 {
		if w.signing {
			return w.fail(fault.UnknownRefused, nil)
		}
		f.state = stateExit
		w.item = Item{Kind: Unknown, Value: protoreflect.ValueOfBytes(raw)}
		return &w.item
	}
	return w.exit(f)
}

// exit pops the frame: an Exit item for the field it was entered through,
// or Done for the root.
func (w *Walker) exit(f *frame) *Item {
	via := f.via
	w.pop()
	if w.top == nil { // the root
		w.item = Item{Kind: Done}
		return &w.item
	}
	w.item = Item{Kind: Exit, Field: via}
	return &w.item
}

// nextElement hands out the next element of the open unpacked list, as a
// Value or, for a message, an Enter; after the last it returns to the
// state that opened the list.
func (w *Walker) nextElement(f *frame) *Item {
	if f.j < f.listN {
		lf, j := f.listF, f.j
		v := f.list.Get(j)
		f.j++
		if lf.IsMessage() {
			return w.enter(lf, v, j)
		}
		return w.put(Value, lf, v)
	}
	f.state = f.resume
	return nil
}

// nextEntry opens the next entry of the open map: it pushes the entry's
// frame, which hands out the key and the value, and returns an Entry
// item. After the last entry (at once, for a map handed out whole) it
// drops the map's entries from Walker.entries and returns to the state
// that opened the map.
func (w *Walker) nextEntry(f *frame) *Item {
	if f.mapPos < f.mapTo {
		i, mf := f.mapPos-f.mapFrom, f.mapF
		if w.depth >= w.maxDepth { // the entry would be a level too deep
			w.item = Item{Kind: Failed, Fault: fault.DepthExceeded, Field: mf}
			return &w.item
		}
		f.mapPos++
		w.openEntry(f, i) // f is stale from here
		w.item = Item{Kind: Entry, Field: mf}
		return &w.item
	}
	clear(w.entries[f.mapFrom:f.mapTo])
	w.entries = w.entries[:f.mapFrom]
	f.state = f.resume
	return nil
}

// entryKey hands out a map entry's key and moves to stateValue.
func (w *Walker) entryKey(f *frame) *Item {
	f.state = stateValue
	return w.put(Value, f.via.MapKey, w.entries[f.i].Key.Value())
}

// entryValue hands out a map entry's value, a Value or, for a message, an
// Enter, and moves to stateExit.
func (w *Walker) entryValue(f *frame) *Item {
	f.state = stateExit
	vf := f.via.MapValue
	if vf.IsMessage() {
		return w.enter(vf, w.entries[f.i].Value, -1)
	}
	return w.put(Value, vf, w.entries[f.i].Value)
}

// value turns the value v of field fl of the message in frame f into an
// item. For a list or map it opens the field in f, moving f to stateList
// or stateMap until the following steps have handed out the contents,
// and returns nil; it returns nil too for an empty list or map, which is
// skipped. f must not be used after value returns, since entering a
// message may grow the frame stack.
func (w *Walker) value(f *frame, fl *layout.Field, v protoreflect.Value) *Item {
	switch {
	case fl.Map:
		m := v.Map()
		if m.Len() == 0 {
			return nil
		}
		if w.signing {
			return w.fail(fault.MapRefused, fl)
		}
		f.mapFrom = len(w.entries)
		m.Range(w.collectEntry)
		f.mapTo = len(w.entries)
		f.mapPos = f.mapFrom
		f.mapF = fl
		f.resume, f.state = f.state, stateMap
		if !w.unsorted {
			w.sortEntries(w.entries[f.mapFrom:f.mapTo], fl.MapKey.Kind)
		}
		if w.whole && !fl.MapValue.IsMessage() {
			// Handed out whole: the next step finds the map consumed
			// and drops the entries. Its entries are a level below.
			f.mapPos = f.mapTo
			if w.depth >= w.maxDepth {
				w.item = Item{Kind: Failed, Fault: fault.DepthExceeded, Field: fl}
				return &w.item
			}
			w.item = Item{Kind: Map, Field: fl}
			return &w.item
		}
		return nil
	case fl.List:
		l := v.List()
		n := l.Len()
		if n == 0 {
			return nil
		}
		if fl.Packed || w.signing && fl.SigningPacks() {
			w.item = Item{Kind: Packed, Field: fl, Value: v}
			return &w.item
		}
		f.list, f.listF, f.j, f.listN = l, fl, 0, n
		f.resume, f.state = f.state, stateList
		return nil
	case fl.IsMessage():
		return w.enter(fl, v, -1)
	}
	return w.put(Value, fl, v)
}

// fail sets the item Next returns to a Failed item for fault c, blaming
// field fl (nil when no field is to blame).
func (w *Walker) fail(c fault.Fault, fl *layout.Field) *Item {
	w.item = Item{Kind: Failed, Fault: c, Field: fl}
	return &w.item
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
	w.depth++
}

// cycleCheckFrom is the depth, in frames, past which enter checks whether
// the message it opens is one of its own ancestors (wire.CycleLevel, the
// rule the recursive encoders share): a walk that deep is rare, so
// ordinary trees pay nothing, and a message that contains itself is found
// as such whatever the depth limit (MaxDepth far above the memory a cycle
// can be followed into would otherwise exhaust it).
const cycleCheckFrom = wire.CycleLevel - 1

// isAncestor reports whether m is the message of the frame at the highest
// power of two below n, the number of frames open (or of the frame after
// it, when that one is a map entry, whose value it is). Comparing with
// one ancestor at a time keeps the check to one comparison per level; a
// message that contains itself, whose path repeats with period p from
// frame s on, is found by the time the walk is 3*max(s, p, 64) frames
// deep: the smallest power of two q >= max(s, p, 64) is below twice that,
// and frame q+p, compared with frame q, holds the same message.
func (w *Walker) isAncestor(m protoreflect.Message, n int) bool {
	q := 1 << (bits.Len(uint(n-1)) - 1)
	if w.frames[q].entry {
		q++
		if q >= n {
			return false
		}
	}
	return w.frames[q].msg == m
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
	if w.depth >= w.maxDepth { // the message would be a level too deep
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
	if n := len(w.frames); n > cycleCheckFrom && m != nil && w.isAncestor(m, n) {
		w.item = Item{Kind: Failed, Fault: fault.Cycle, Field: fl}
		return &w.item
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
