package cursor

import (
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/internal/appendx"
	"github.com/protolayout/protolayout/internal/dynstore"
	"github.com/protolayout/protolayout/internal/layout"
)

func (w *Walker) appendEntry(k protoreflect.MapKey, v protoreflect.Value) bool {
	e := appendx.One(&w.entries)
	e.Key, e.Value = k, v
	return true
}

func (w *Walker) appendExt(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
	if fd.IsExtension() {
		w.exts = append(w.exts, extField{FD: fd, V: v})
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
					sf.Pos, sf.V = int32(i), v
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
					w.exts = append(w.exts, extField{FD: xd, V: v})
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
			sf.Pos, sf.V = int32(p), v
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
		w.exts = append(w.exts, extField{FD: fd, V: v})
		return true
	}
	p := w.ranging.Position(fd)
	if p < 0 {
		w.foreign = true
		return false
	}
	sf := appendx.One(&w.set)
	sf.Pos, sf.V = int32(p), v
	return true
}
