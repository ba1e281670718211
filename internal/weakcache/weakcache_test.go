package weakcache

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

type object struct {
	name string
	_    [48]byte
}

// valueType is a key that is not a pointer.
type valueType string

// settle runs the collector until the cache holds want entries, or for
// collections collections, and returns the last count. Cleanups run on
// their own goroutine after a collection, so one GC call is not enough;
// the pause lets them run.
func settle(c *Cache[int], want int) int {
	for i := 0; ; i++ {
		runtime.GC()
		if n := c.Len(); n == want || i == collections {
			return n
		}
		time.Sleep(time.Millisecond)
	}
}

// collections bounds the collections settle waits for: a count, not a
// time, which a loaded machine would stretch.
const collections = 200

func TestReleasedWithKeys(t *testing.T) {
	var c Cache[int]
	keep := make([]*object, 100)
	for i := range keep {
		keep[i] = &object{name: "kept"}
		c.LoadOrStore(keep[i], i)
	}
	for i := range 1000 {
		c.LoadOrStore(&object{name: "dropped"}, i)
	}
	if n := settle(&c, len(keep)); n != len(keep) {
		t.Fatalf("after the dropped keys were collected: %d entries, want %d", n, len(keep))
	}
	for i, k := range keep {
		if v, ok := c.Load(k); !ok || v != i {
			t.Fatalf("kept key %d: Load = %d, %v; want %d, true", i, v, ok, i)
		}
	}
	runtime.KeepAlive(keep)
	keep = nil
	if n := settle(&c, 0); n != 0 {
		t.Fatalf("after every key was dropped: %d entries, want 0", n)
	}
}

func TestLoadOrStore(t *testing.T) {
	var c Cache[string]
	a, b := &object{}, &object{}
	if v, loaded := c.LoadOrStore(a, "a"); loaded || v != "a" {
		t.Fatalf("first LoadOrStore(a) = %q, %v", v, loaded)
	}
	if v, loaded := c.LoadOrStore(a, "other"); !loaded || v != "a" {
		t.Fatalf("second LoadOrStore(a) = %q, %v; want the first value", v, loaded)
	}
	if _, ok := c.Load(b); ok {
		t.Fatal("Load(b) found an entry never stored")
	}
	// An interface of another type holding the same pointer is the same key.
	var k any = a
	if v, ok := c.Load(k); !ok || v != "a" {
		t.Fatalf("Load through any = %q, %v", v, ok)
	}
	runtime.KeepAlive(a)
	runtime.KeepAlive(b)
}

func TestNilKeys(t *testing.T) {
	var c Cache[int]
	for _, k := range []any{nil, (*object)(nil)} {
		if v, loaded := c.LoadOrStore(k, 3); loaded || v != 3 {
			t.Errorf("LoadOrStore(%#v) = %d, %v; want 3, false", k, v, loaded)
		}
		if _, ok := c.Load(k); ok {
			t.Errorf("Load(%#v) found an entry", k)
		}
	}
	if c.Len() != 0 {
		t.Fatalf("Len = %d after nil keys, want 0", c.Len())
	}
}

// TestValueKeys checks that keys which are not pointers are never stored.
func TestValueKeys(t *testing.T) {
	var c Cache[string]
	type small uint8
	for _, k := range []any{valueType("x"), small(1), 7, struct{}{}, [2]int{1, 2}} {
		if v, loaded := c.LoadOrStore(k, "v"); loaded || v != "v" {
			t.Errorf("LoadOrStore(%#v) = %q, %v; want the value given, false", k, v, loaded)
		}
		if v, ok := c.Load(k); ok {
			t.Errorf("Load(%#v) = %q, found an entry", k, v)
		}
	}
	if c.Len() != 0 {
		t.Fatalf("Len = %d after value keys, want 0", c.Len())
	}
}

// TestStaticKeys checks a pointer outside the heap, to a package-level
// variable, which is never freed.
func TestStaticKeys(t *testing.T) {
	var c Cache[string]
	c.LoadOrStore(&global, "global")
	settle2 := func() {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	settle2()
	if v, ok := c.Load(&global); !ok || v != "global" {
		t.Fatalf("Load(&global) = %q, %v", v, ok)
	}
}

var global object

// TestStaleEntry checks that an entry whose object is gone is never
// returned for a new object at the same address, whether or not its
// cleanup has run: the weak pointer decides, not the address.
func TestStaleEntry(t *testing.T) {
	var c Cache[int]
	addrs := map[uintptr]bool{}
	for i := range 2000 {
		o := &object{}
		addrs[IDOf(o).obj] = true
		if v, loaded := c.LoadOrStore(o, i); loaded {
			t.Fatalf("object %d: a new object got the value %d of an earlier one", i, v)
		}
		if i%100 == 0 {
			runtime.GC() // free the earlier objects, so their addresses come back
		}
	}
	if len(addrs) == 2000 {
		t.Log("no address was reused; the replacement path was not exercised")
	}
	settle(&c, 0)
}

func TestConcurrentStore(t *testing.T) {
	var c Cache[*int]
	keys := make([]*object, 64)
	for i := range keys {
		keys[i] = &object{}
	}
	var wg sync.WaitGroup
	got := make([][]*int, 8)
	for g := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, k := range keys {
				v, _ := c.LoadOrStore(k, new(int))
				got[g] = append(got[g], v)
			}
		}()
	}
	wg.Wait()
	for g := 1; g < len(got); g++ {
		for i := range keys {
			if got[g][i] != got[0][i] {
				t.Fatalf("key %d: goroutines got different values", i)
			}
		}
	}
	if c.Len() != len(keys) {
		t.Fatalf("Len = %d, want %d", c.Len(), len(keys))
	}
	runtime.KeepAlive(keys)
}

func TestLoadAllocates(t *testing.T) {
	var c Cache[int]
	var k any = &object{}
	c.LoadOrStore(k, 1)
	if n := testing.AllocsPerRun(100, func() { c.Load(k) }); n != 0 {
		t.Fatalf("Load allocates %.0f times", n)
	}
}

func BenchmarkLoad(b *testing.B) {
	var c Cache[int]
	var k any = &object{}
	c.LoadOrStore(k, 1)
	b.ReportAllocs()
	for b.Loop() {
		c.Load(k)
	}
}

func BenchmarkSyncMapLoad(b *testing.B) {
	var m sync.Map
	var k any = &object{}
	m.Store(k, 1)
	b.ReportAllocs()
	for b.Loop() {
		m.Load(k)
	}
}
