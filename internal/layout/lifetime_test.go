package layout_test

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/protolayout/protolayout/internal/layout"
)

// collect runs the collector until the cache holds at most want layouts,
// or for collections collections, and returns the count. Cleanups run on
// their own goroutine after a collection, which the pause lets run.
func collect(want int) int {
	for i := 0; ; i++ {
		runtime.GC()
		if n := layout.Cached(); n <= want || i == collections {
			return n
		}
		time.Sleep(time.Millisecond)
	}
}

// collections bounds the collections collect waits for: a count, not a
// time, which a loaded machine would stretch.
const collections = 200

// TestReleasedWithSchema checks that the layouts of a dropped schema leave
// the cache, and that those of a schema still held stay and are reused.
func TestReleasedWithSchema(t *testing.T) {
	base := collect(0)
	kept := load(t, orderProto).Messages().ByName("M")
	lk := layout.Of(kept)
	for range 50 {
		l := layout.Of(load(t, orderProto).Messages().ByName("M"))
		if l == lk {
			t.Fatal("a new load got the layout of another")
		}
	}
	// The kept schema's three layouts (M, its group, its map entry) stay;
	// the 50 dropped loads' go.
	if n := collect(base + 3); n > base+3 {
		t.Fatalf("%d layouts cached after dropping 50 loads, want at most %d", n, base+3)
	}
	before := layout.Builds()
	if layout.Of(kept) != lk || layout.Builds() != before {
		t.Fatal("the layout of a schema still held was rebuilt")
	}
	runtime.KeepAlive(kept)
}

// TestOfAllocates checks that a cached lookup allocates nothing.
func TestOfAllocates(t *testing.T) {
	md := load(t, orderProto).Messages().ByName("M")
	layout.Of(md)
	if n := testing.AllocsPerRun(100, func() { layout.Of(md) }); n != 0 {
		t.Fatalf("Of allocates %.0f times on a cached descriptor", n)
	}
	xd := load(t, extProto).Extensions().Get(0)
	layout.Extension(xd)
	if n := testing.AllocsPerRun(100, func() { layout.Extension(xd) }); n != 0 {
		t.Fatalf("Extension allocates %.0f times on a cached descriptor", n)
	}
}

const extProto = `
name: "ext.proto" package: "lx" syntax: "proto2"
message_type { name: "T" extension_range { start: 1 end: 100 } }
extension { name: "x" number: 5 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".lx.T" extendee: ".lx.T" }
`

// TestReloadUnderCollection loads, uses and drops schemas on several
// goroutines while another runs the collector without pause: a layout in
// use is never released under its user (each goroutine holds its
// descriptor while it reads the layout), and every lookup returns the
// layout of the descriptor asked for.
func TestReloadUnderCollection(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 60
	}
	stop := make(chan struct{})
	var gc sync.WaitGroup
	gc.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				runtime.GC()
			}
		}
	})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range n {
				fd := load(t, orderProto)
				md := fd.Messages().ByName("M")
				l := layout.Of(md)
				for range 20 {
					if !l.IsOf(md) || l.FullName != "lt.M" || len(l.Fields) != md.Fields().Len() {
						t.Error("a layout changed under its user")
						return
					}
					runtime.Gosched()
					if layout.Of(md) != l {
						t.Error("a descriptor still held got another layout")
						return
					}
				}
				self := l.ByNumber(2048).Message()
				if self != l {
					t.Error("the self reference lost its layout")
					return
				}
				x := load(t, extProto).Extensions().Get(0)
				if f := layout.Extension(x); f.Message() == nil || f.Message().FullName != "lx.T" {
					t.Error("an extension's record lost its message layout")
					return
				}
				runtime.KeepAlive(md)
			}
		})
	}
	wg.Wait()
	close(stop)
	gc.Wait()
}
