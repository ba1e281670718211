// Package weakcache is a concurrent map from an object's identity to a
// value, which holds its keys weakly: an entry lives as long as the object
// its key points to, and is removed once the garbage collector has found
// that object unreachable. It is how the module caches what it derives
// from a schema's descriptors (layouts, extension records) without keeping
// a schema alive after the program has dropped it.
//
// A key is an interface value holding a pointer (every descriptor type of
// protobuf-go is one); its identity is its dynamic type and the object it
// points to. Keys of other types (a descriptor implemented by a
// non-pointer type, whose interface values have no identity of their own)
// are never stored: Load misses and LoadOrStore returns the value given,
// so callers rebuild what they would have cached, and nothing is kept.
// Lookups are lock-free and allocation-free: one
// sync.Map load and a check that the entry's weak pointer still points to
// the key's object (an address is reused once its object is freed, and an
// entry may outlive its object until its cleanup runs). Storing registers
// a weak pointer and a cleanup (runtime.AddCleanup) that deletes the
// entry.
//
// Values must not reference their keys, directly or through anything they
// hold: an entry's value is reachable from the cache, so a value that
// reaches its key keeps the key alive, and the entry with it, for good.
//
// This package reads the two words of an interface value with package
// unsafe (their layout is the same in every Go release and build); that
// is all it does with it, and it mirrors no library's internals.
package weakcache

import (
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
	"weak"
)

// Cache is a map from key identity to V. The zero Cache is empty and
// ready to use; a Cache must not be copied after first use.
type Cache[V any] struct {
	m sync.Map // the key's object address -> *entry[V]
	n atomic.Int64
}

type entry[V any] struct {
	typ    uintptr            // the key's dynamic type
	ref    weak.Pointer[byte] // the key's object; zero if static
	static bool               // the key's object is outside the heap
	val    V
}

// ID is a key's identity: its dynamic type and the address of its object.
type ID struct{ typ, obj uintptr }

// IDOf returns the identity of key; the zero ID for a nil key. Two live
// pointer keys have the same identity exactly when they point to the same
// object. The address of a key that is
// no longer alive may be given to another object, so an identity kept
// without keeping its key alive must be checked against something that
// is, as Cache does with a weak pointer.
func IDOf(key any) ID {
	_, id := pointer(key)
	return id
}

// eface is the layout of an interface value.
type eface struct{ typ, data unsafe.Pointer }

// pointer returns key's object as a *byte, and its identity.
func pointer(key any) (*byte, ID) {
	e := (*eface)(unsafe.Pointer(&key))
	return (*byte)(e.data), ID{uintptr(e.typ), uintptr(e.data)}
}

// Load returns the value stored for key's object, if any.
func (c *Cache[V]) Load(key any) (V, bool) {
	if p, id := pointer(key); p != nil {
		if v, ok := c.m.Load(id.obj); ok {
			if e := v.(*entry[V]); e.typ == id.typ && e.alive(p) {
				return e.val, true
			}
		}
	}
	var zero V
	return zero, false
}

// LoadOrStore returns the value stored for key's object, if there is one
// (loaded true); otherwise it stores val for it and returns val. A key
// that is nil or not a pointer stores nothing, and val is returned.
func (c *Cache[V]) LoadOrStore(key any, val V) (actual V, loaded bool) {
	if escape {
		sink = key // key's object must be on the heap or static, never on a stack
	}
	p, id := pointer(key)
	if p == nil || reflect.TypeOf(key).Kind() != reflect.Pointer {
		return val, false
	}
	if v, ok := c.Load(key); ok {
		return v, true
	}
	// A cleanup is a no-op for an object outside the heap (static
	// storage), which is never freed: its entry needs no weak pointer
	// and its address is its identity for good.
	cleanup := runtime.AddCleanup(p, c.release, id.obj)
	e := &entry[V]{typ: id.typ, val: val, static: cleanup == runtime.Cleanup{}}
	if !e.static {
		e.ref = weak.Make(p)
	}
	for {
		v, loaded := c.m.LoadOrStore(id.obj, e)
		if !loaded {
			break
		}
		old := v.(*entry[V])
		if old.alive(p) {
			// The same object (stored concurrently), or, if the types
			// differ, a static zero-size object of another type at the
			// same address: not cached.
			cleanup.Stop()
			if old.typ != id.typ {
				return val, false
			}
			return old.val, true
		}
		// The entry of an object freed at the same address, whose
		// cleanup has not run yet: replace it. That cleanup then finds
		// this entry alive and leaves it.
		if c.m.CompareAndSwap(id.obj, old, e) {
			c.n.Add(-1)
			break
		}
	}
	c.n.Add(1)
	runtime.KeepAlive(key)
	return val, false
}

// escape is never set: the assignment it guards makes LoadOrStore's key
// escape, so that a caller never passes a pointer to its stack.
var (
	escape bool
	//lint:ignore U1000 only written, so that the keys written escape
	sink any
)

// alive reports whether e is the entry of the live object p.
func (e *entry[V]) alive(p *byte) bool {
	return e.static || e.ref.Value() == p
}

// release removes the entry at addr once its object is gone. The entry
// found there may belong to a newer object at the same address, which is
// alive; it stays.
func (c *Cache[V]) release(addr uintptr) {
	v, ok := c.m.Load(addr)
	if !ok {
		return
	}
	if e := v.(*entry[V]); !e.static && e.ref.Value() == nil && c.m.CompareAndDelete(addr, e) {
		c.n.Add(-1)
	}
}

// Len reports the number of entries, released or not: an entry whose
// object is unreachable counts until its cleanup has run.
func (c *Cache[V]) Len() int { return int(c.n.Load()) }
