package engine

import (
	"google.golang.org/protobuf/reflect/protoreflect"
)

// dmap is the protoreflect.Map of a map field: a Go map keyed by the
// key's word (see toWord) for integer and bool keys, or by the string for
// string keys, to the entry's value. Values are checked to be of the map
// value's type; message values are *Message.
type dmap struct {
	fd protoreflect.FieldDescriptor
	// kd and vd are fd's entry key and value fields; nil in a read-only
	// map.
	kd, vd protoreflect.FieldDescriptor
	// One of words and strs is set, the other nil; both are nil in the
	// read-only empty map Get returns for an unset field.
	words map[uint64]protoreflect.Value
	strs  map[string]protoreflect.Value
}

// newMap returns a new empty map for fd.
func newMap(fd protoreflect.FieldDescriptor) *dmap {
	return newMapSized(fd, 0)
}

// newMapSized returns a new empty map for fd with room for n entries.
func newMapSized(fd protoreflect.FieldDescriptor, n int) *dmap {
	mp := &dmap{fd: fd, kd: fd.MapKey(), vd: fd.MapValue()}
	if mp.kd.Kind() == protoreflect.StringKind {
		mp.strs = make(map[string]protoreflect.Value, n)
	} else {
		mp.words = make(map[uint64]protoreflect.Value, n)
	}
	return mp
}

// mapOf returns v's map if it is one of this package's.
func mapOf(v protoreflect.Value) (*dmap, bool) {
	if !v.IsValid() {
		return nil, false
	}
	mp, ok := v.Interface().(*dmap)
	return mp, ok
}

// key returns the word of k, or its string, and reports whether k has the
// Go type of the map's keys. A k of another category panics in
// protoreflect's accessor.
func (mp *dmap) key(k protoreflect.MapKey) (uint64, string, bool) {
	v := k.Value()
	if mp.strs != nil {
		return 0, k.String(), isString(v)
	}
	w, ok := toWord(mp.kd.Kind(), v)
	return w, "", ok
}

// mapKey returns the key kept as w.
func (mp *dmap) mapKey(w uint64) protoreflect.MapKey {
	return fromWord(mp.kd.Kind(), w).MapKey()
}

// Len reports the number of entries.
func (mp *dmap) Len() int {
	if mp.strs != nil {
		return len(mp.strs)
	}
	return len(mp.words)
}

// Range calls f for each entry, in no particular order, until f returns
// false.
func (mp *dmap) Range(f func(protoreflect.MapKey, protoreflect.Value) bool) {
	if mp.strs != nil {
		for k, v := range mp.strs {
			if !f(protoreflect.ValueOfString(k).MapKey(), v) {
				return
			}
		}
		return
	}
	for k, v := range mp.words {
		if !f(mp.mapKey(k), v) {
			return
		}
	}
}

// Has reports whether the map has an entry for k.
func (mp *dmap) Has(k protoreflect.MapKey) bool { return mp.Get(k).IsValid() }

// Get returns the value of k's entry, or an invalid value if there is
// none.
func (mp *dmap) Get(k protoreflect.MapKey) protoreflect.Value {
	if !mp.IsValid() {
		return protoreflect.Value{}
	}
	w, s, ok := mp.key(k)
	switch {
	case !ok:
		return protoreflect.Value{}
	case mp.strs != nil:
		return mp.strs[s]
	default:
		return mp.words[w]
	}
}

// Set stores v as k's entry. It panics if k or v is not of the map's key
// or value type, or if the map is read-only.
func (mp *dmap) Set(k protoreflect.MapKey, v protoreflect.Value) {
	if !mp.IsValid() {
		panic(errorf("%v: modification of read-only map", mp.fd.FullName()))
	}
	w, s, ok := mp.key(k)
	if !ok {
		wrongType(mp.kd, k.Value())
	}
	checkSingular(mp.vd, v)
	if mp.strs != nil {
		mp.strs[s] = v
	} else {
		mp.words[w] = v
	}
}

// Clear removes k's entry, if any.
func (mp *dmap) Clear(k protoreflect.MapKey) {
	if !mp.IsValid() {
		return
	}
	w, s, ok := mp.key(k)
	switch {
	case !ok:
	case mp.strs != nil:
		delete(mp.strs, s)
	default:
		delete(mp.words, w)
	}
}

// Mutable returns the message of k's entry, storing a new empty one first
// if there is none. It panics for a map of scalar values.
func (mp *dmap) Mutable(k protoreflect.MapKey) protoreflect.Value {
	if mp.fd.MapValue().Message() == nil {
		panic(errorf("%v: invalid Mutable on map with non-message value type", mp.fd.FullName()))
	}
	v := mp.Get(k)
	if !v.IsValid() {
		v = mp.NewValue()
		mp.Set(k, v)
	}
	return v
}

// NewValue returns a new value for an entry: the map value's default, or
// a new empty message.
func (mp *dmap) NewValue() protoreflect.Value {
	vd := mp.fd.MapValue()
	if md := vd.Message(); md != nil {
		return protoreflect.ValueOfMessage(NewMessage(md))
	}
	return vd.Default()
}

// IsValid reports whether the map can be modified: false for the
// read-only empty map of an unset field.
func (mp *dmap) IsValid() bool { return mp.words != nil || mp.strs != nil }
