package sizing

import (
	"github.com/protolayout/protolayout/internal/cursor"
	"github.com/protolayout/protolayout/internal/fault"
	"github.com/protolayout/protolayout/internal/layout"
	"github.com/protolayout/protolayout/internal/wire"
)

// sizeMap sizes the whole map of field f, whose values are not messages,
// that a Map item of w just handed out, into the open part top. For each
// entry it does what the Entry, key, value and Exit items of the entry
// would do, with the same checks, the same ops recorded (an OpEnter, the
// key's OpValue, the value's OpValue) and the same content units counted.
//
// On failure it returns the fault and the field to blame, with the
// entry's frame opened in w when the entry is at fault, so that the path
// names its key.
func (s *Sizer) sizeMap(w *cursor.Walker, top *level, f *layout.Field, validate, rec bool, limit int) (fault.Fault, *layout.Field) {
	kf, vf := f.MapKey, f.MapValue
	for i, e := range w.Entries() {
		s.Stats.Steps++
		k, v := e.Key.Value(), e.Value
		kn, ku, ok := sizeValue(kf, k, validate)
		if !ok {
			w.OpenEntry(i)
			return fault.InvalidUTF8, kf
		}
		if kn > limit {
			w.OpenEntry(i)
			return fault.SizeExceeded, kf
		}
		vn, vu, ok := sizeValue(vf, v, validate)
		if !ok {
			w.OpenEntry(i)
			return fault.InvalidUTF8, vf
		}
		body, ok := wire.AddSize(kn, vn, limit)
		if !ok {
			w.OpenEntry(i)
			return fault.SizeExceeded, vf
		}
		s.recordEnter(rec, f, body)
		s.recordValue(rec, kf, k)
		s.recordValue(rec, vf, v)
		n, ok := wrapped(f, body, limit)
		if ok {
			top.size, ok = wire.AddSize(top.size, n, limit)
		}
		if !ok {
			return fault.SizeExceeded, f
		}
		top.units += ku + vu + 1
	}
	return fault.OK, nil
}
