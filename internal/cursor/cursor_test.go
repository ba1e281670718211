package cursor_test

import (
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"
	"weak"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/protolayout/protolayout/internal/cursor"
	"github.com/protolayout/protolayout/internal/fault"
)

var (
	descMD   = (&descriptorpb.DescriptorProto{}).ProtoReflect().Descriptor()
	fileMD   = (&descriptorpb.FileDescriptorProto{}).ProtoReflect().Descriptor()
	nameFD   = descMD.Fields().ByName("name")
	nestedFD = descMD.Fields().ByName("nested_type")
)

// chain returns a dynamic DescriptorProto nested n levels deep.
func chain(n int) *dynamicpb.Message {
	root := dynamicpb.NewMessage(descMD)
	cur := root
	for range n {
		child := dynamicpb.NewMessage(descMD)
		cur.Mutable(nestedFD).List().Append(protoreflect.ValueOfMessage(child))
		cur = child
	}
	return root
}

func walkAll(w *cursor.Walker) (items []cursor.Kind, last cursor.Item) {
	for {
		it := w.Next()
		items = append(items, it.Kind)
		if it.Kind == cursor.Done || it.Kind == cursor.Failed {
			return items, *it
		}
	}
}

func TestItemSequence(t *testing.T) {
	m := dynamicpb.NewMessage(fileMD)
	m.Set(fileMD.Fields().ByName("name"), protoreflect.ValueOfString("f"))
	deps := m.Mutable(fileMD.Fields().ByName("public_dependency")).List()
	deps.Append(protoreflect.ValueOfInt32(1))
	deps.Append(protoreflect.ValueOfInt32(2))
	msg := m.Mutable(fileMD.Fields().ByName("message_type")).List()
	d := dynamicpb.NewMessage(descMD)
	d.Set(nameFD, protoreflect.ValueOfString("M"))
	msg.Append(protoreflect.ValueOfMessage(d))
	m.SetUnknown(protoreflect.RawFields{0xf8, 0x7f, 0x01})

	var w cursor.Walker
	w.Reset(m, cursor.Options{})
	defer w.Release()
	got, _ := walkAll(&w)
	want := []cursor.Kind{
		cursor.Value,                            // name (1)
		cursor.Enter, cursor.Value, cursor.Exit, // message_type (4)
		cursor.Value, cursor.Value, // public_dependency (10), proto2: unpacked
		cursor.Unknown,
		cursor.Done,
	}
	if len(got) != len(want) {
		t.Fatalf("items %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("items %v, want %v", got, want)
		}
	}
}

func TestDepthLimit(t *testing.T) {
	for _, c := range []struct {
		depth, max int
		ok         bool
	}{
		// chain(depth) is depth+1 levels, the root being level 1.
		{0, 1, true}, {1, 1, false}, {1, 2, true},
		{99, 100, true}, {100, 100, false},
		{cursor.DefaultMaxDepth - 1, 0, true}, {cursor.DefaultMaxDepth, 0, false},
	} {
		var w cursor.Walker
		w.Reset(chain(c.depth), cursor.Options{MaxDepth: c.max})
		_, last := walkAll(&w)
		if ok := last.Kind == cursor.Done; ok != c.ok {
			t.Errorf("depth %d, limit %d: got %v (fault %d), want ok=%v", c.depth, c.max, last.Kind, last.Fault, c.ok)
		}
		if !c.ok && last.Fault != fault.DepthExceeded {
			t.Errorf("depth %d, limit %d: fault %d, want DepthExceeded", c.depth, c.max, last.Fault)
		}
		w.Release()
	}
}

// A walk far deeper than any goroutine stack would allow for a recursive
// encoder completes, since frames live on the heap.
func TestVeryDeepWalk(t *testing.T) {
	const n = 200_000
	var w cursor.Walker
	w.Reset(chain(n), cursor.Options{MaxDepth: n + 1})
	items, last := walkAll(&w)
	w.Release()
	if last.Kind != cursor.Done || len(items) != 2*n+1 {
		t.Fatalf("last %v, %d items", last.Kind, len(items))
	}
}

func TestSelfContainingMessageFails(t *testing.T) {
	m := dynamicpb.NewMessage(descMD)
	m.Mutable(nestedFD).List().Append(protoreflect.ValueOfMessage(m))
	var w cursor.Walker
	w.Reset(m, cursor.Options{})
	_, last := walkAll(&w)
	if last.Fault != fault.Cycle {
		t.Fatalf("fault %d, want Cycle", last.Fault)
	}
	path := string(w.AppendPath(nil, last.Field))
	if !strings.HasPrefix(path, "nested_type[0].nested_type[0]") || !strings.Contains(path, "more)") {
		t.Errorf("path %q", path)
	}
	w.Release()
}

// After Release, nothing the caller passed is reachable from the Walker,
// even when the walk stopped in the middle of a list and a map.
func TestReleaseDropsReferences(t *testing.T) {
	var w cursor.Walker
	ptr := func() weak.Pointer[dynamicpb.Message] {
		m := chain(3)
		w.Reset(m, cursor.Options{})
		for range 3 { // stop inside the nesting
			w.Next()
		}
		return weak.Make(m)
	}()
	w.Release()
	for range 3 {
		runtime.GC()
	}
	if ptr.Value() != nil {
		t.Fatal("message still reachable after Release")
	}
}

func TestRetainedFramesBounded(t *testing.T) {
	var w cursor.Walker
	w.Reset(chain(1000), cursor.Options{})
	for range 1001 {
		w.Next() // descend to the bottom
	}
	if cursor.FrameCap(&w) < 1000 {
		t.Fatalf("frame capacity %d during a 1000-deep walk", cursor.FrameCap(&w))
	}
	w.Release()
	if c := cursor.FrameCap(&w); c > cursor.MaxRetainedFrames {
		t.Fatalf("%d frames retained after Release, limit %d", c, cursor.MaxRetainedFrames)
	}
	w.Reset(chain(2), cursor.Options{})
	if items, last := walkAll(&w); last.Kind != cursor.Done || len(items) != 5 {
		t.Fatalf("walk after trim: %v", items)
	}
	w.Release()
}

// Map entries come sorted by key, or with Unsorted in the order the map
// yields them, which Go varies from one walk to the next.
func TestMapEntryOrder(t *testing.T) {
	fields := make(map[string]any)
	for _, k := range []string{"d", "b", "h", "a", "f", "c", "g", "e"} {
		fields[k] = 1.0
	}
	m, err := structpb.NewStruct(fields)
	if err != nil {
		t.Fatal(err)
	}
	keys := func(o cursor.Options) string {
		var w cursor.Walker
		w.Reset(m.ProtoReflect(), o)
		defer w.Release()
		var ks []string
		for {
			it := w.Next()
			switch it.Kind {
			case cursor.Done:
				return strings.Join(ks, "")
			case cursor.Value:
				if it.Field.Name == "key" {
					ks = append(ks, it.Value.String())
				}
			}
		}
	}
	orders := make(map[string]bool)
	for range 100 {
		if got := keys(cursor.Options{}); got != "abcdefgh" {
			t.Fatalf("sorted walk gave keys %s", got)
		}
		got := keys(cursor.Options{Unsorted: true})
		if string(slices.Sorted(slices.Values([]byte(got)))) != "abcdefgh" {
			t.Fatalf("unsorted walk gave keys %s", got)
		}
		orders[got] = true
	}
	if len(orders) < 2 {
		t.Errorf("unsorted walks gave one order in 100: %v", orders)
	}
}

// TestCycleWhateverTheLimit checks that a message that contains itself is
// reported as a cycle with an unbounded depth limit, wherever the cycle
// starts and however long it is, within 3*max(start, length, 64) levels.
func TestCycleWhateverTheLimit(t *testing.T) {
	for _, c := range []struct{ start, length int }{
		{0, 1}, {0, 2}, {0, 3}, {5, 7}, {63, 1}, {64, 1}, {65, 3}, {500, 1}, {1000, 300}, {3, 1000},
	} {
		root := chain(c.start)
		cur := root
		for range c.start {
			cur = cur.Get(nestedFD).List().Get(0).Message().(*dynamicpb.Message)
		}
		ring := chain(c.length - 1)
		last := ring
		for range c.length - 1 {
			last = last.Get(nestedFD).List().Get(0).Message().(*dynamicpb.Message)
		}
		last.Mutable(nestedFD).List().Append(protoreflect.ValueOfMessage(ring)) // back to the ring's start
		cur.Mutable(nestedFD).List().Append(protoreflect.ValueOfMessage(ring))
		var w cursor.Walker
		w.Reset(root, cursor.Options{MaxDepth: math.MaxInt})
		n := 0
		var it *cursor.Item
		for it = w.Next(); it.Kind != cursor.Done && it.Kind != cursor.Failed; it = w.Next() {
			n++
		}
		bound := 3 * max(c.start+1, c.length, 64)
		if it.Fault != fault.Cycle || w.Depth() > bound {
			t.Errorf("cycle of %d from level %d: fault %d at depth %d (bound %d)", c.length, c.start, it.Fault, w.Depth(), bound)
		}
		w.Release()
	}
}

// TestSharedIsNotACycle checks that a message shared by every level of a
// deep chain, which is no ancestor of itself, is not taken for a cycle.
func TestSharedIsNotACycle(t *testing.T) {
	shared := dynamicpb.NewMessage(descMD)
	shared.Set(descMD.Fields().ByName("name"), protoreflect.ValueOfString("leaf"))
	root := chain(0)
	cur := root
	for range 300 {
		child := dynamicpb.NewMessage(descMD)
		l := cur.Mutable(nestedFD).List()
		l.Append(protoreflect.ValueOfMessage(shared))
		l.Append(protoreflect.ValueOfMessage(child))
		cur = child
	}
	cur.Mutable(nestedFD).List().Append(protoreflect.ValueOfMessage(shared))
	var w cursor.Walker
	w.Reset(root, cursor.Options{})
	_, last := walkAll(&w)
	if last.Kind != cursor.Done {
		t.Fatalf("walk of a chain sharing one leaf: %v (fault %d)", last.Kind, last.Fault)
	}
	w.Release()
}
