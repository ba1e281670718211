package cursor

import (
	"slices"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/internal/fault"
	"github.com/protolayout/protolayout/internal/layout"
)

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
