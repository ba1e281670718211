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
	"reflect"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/fault"
	"github.com/protolayout/protolayout/internal/layout"
	"github.com/protolayout/protolayout/internal/retain"
	"github.com/protolayout/protolayout/internal/wire"
)

// DefaultMaxDepth is the nesting limit used when Options.MaxDepth is 0. It
// equals proto.Unmarshal's default recursion limit, so whatever encodes
// within it also decodes.
const DefaultMaxDepth = wire.DefaultMaxDepth

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
	// MaxDepth is the recursion limit, counted as proto.Unmarshal counts
	// it: the root message is level 1, and every nested message, group
	// and map entry is one level more (a map entry's message value is
	// two levels below the message holding the map). A message or map
	// entry past level MaxDepth fails the walk with DepthExceeded. 0
	// means DefaultMaxDepth, proto.Unmarshal's default, so that whatever
	// the walk accepts decodes. Whatever the limit, a message that
	// contains itself fails with Cycle once the walk is deeper than
	// cycleCheckFrom levels.
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
	// Canonical hands out every message's fields in strictly ascending
	// field number, oneof members and extensions at their own numbers
	// (then the unknown bytes), instead of proto.Marshal's order
	// (extensions first, oneof members after the other fields). Required
	// fields are checked before the first field of each message, the
	// first missing one in declaration position order.
	Canonical bool
	// Signing adds, under Canonical, the rules of the Signing profile
	// (ADR-027): a message with unknown bytes fails with UnknownRefused,
	// a non-empty map with MapRefused, and every repeated field of a
	// packable kind is handed out as one Packed item whatever it
	// declares.
	Signing bool
}

// Frame states: what Next reads next from a frame. Each has its method
// (states.go), which Next calls for the innermost frame:
//
//	stateStart       start: decides, once for the frame, whether its
//	                 fields are read from dynamicpb's storage (a ranged
//	                 frame) or field by field through protoreflect
//	                 (startFields), and gathers the set extensions
//	stateExtensions  nextExtension: the set extensions, in number order
//	stateRanged      rangedScalar, rangedField: a ranged frame's set
//	                 fields, gathered at the start, in emission order
//	stateFields      nextField: the other frames' regular fields
//	stateOneofs      nextOneof: their oneofs' set members
//	stateExit        exit: the Exit item (Done for the root)
//	stateList        nextElement: the elements of an open unpacked list
//	stateMap         nextEntry: the entries of an open map
//	stateKey         entryKey: a map entry's key
//	stateValue       entryValue: a map entry's value
//	stateCanonical   nextCanonical: under Options.Canonical, a frame's
//	                 set fields and extensions, gathered at the start, in
//	                 field-number order
//
// A message frame goes from stateStart through stateExtensions, when
// extensions are set, to stateRanged, or to stateFields then stateOneofs.
// The last of these ends by calling unknown, which hands out the unknown
// bytes, if any, before stateExit, or else exits at once: the unknown
// bytes have no state of their own. A field holding an unpacked list or
// a map moves the frame to stateList or stateMap until the elements or
// entries are handed out, then back to the state that read the field
// (resume). An absent message goes from stateStart to stateExit. A map
// entry frame goes through stateKey, stateValue and stateExit.
const (
	stateStart uint8 = iota
	stateExtensions
	stateRanged
	stateFields
	stateOneofs
	stateExit
	stateList
	stateMap
	// map entry frames
	stateKey
	stateValue
	stateCanonical
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
	// the state that reads the fields, stateRanged or stateFields, which
	// stateStart chooses and stateExtensions moves on to
	fields uint8
	// the state an open list or map returns to when it is handed out
	resume uint8
	entry  bool // a map entry frame
	// position within stateRanged (an index into Walker.set), stateFields
	// (into the layout's fields) or stateOneofs (into its oneofs); for a
	// map entry frame, the index of its key and value in Walker.entries
	i int

	// the open unpacked list field, in stateList; next element at j
	list     protoreflect.List
	listF    *layout.Field
	j, listN int

	// the open map field, in stateMap: entries in
	// Walker.entries[mapFrom:mapTo], next at mapPos
	mapF                   *layout.Field
	mapFrom, mapPos, mapTo int

	// the set extensions, in Walker.exts[extFrom:extTo], next at ext
	extFrom, ext, extTo int

	// ranged frames read their set fields at the start, from dynamicpb's
	// storage or with one Range call, into Walker.set[setFrom:setTo],
	// sorted into emission order; req is the next entry of the layout's
	// RequiredFields to check, len(RequiredFields) when required fields
	// are not checked
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
	FD protoreflect.FieldDescriptor
	V  protoreflect.Value
}

// setField is a set field, by position in its layout, and its value.
type setField struct {
	Pos int32
	V   protoreflect.Value
}

// Walker walks one message at a time. The zero Walker is ready to use. A
// Walker belongs to one goroutine at a time.
type Walker struct {
	frames   []frame
	top      *frame // the innermost frame, or nil
	used     int    // frames used since the last Release, to be cleared
	depth    int    // open levels (message and map entry frames), the root included
	maxDepth int
	required bool
	unsorted bool
	whole    bool
	// canonical and signing are Options.Canonical and Options.Signing.
	canonical bool
	signing   bool

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
	w.canonical = o.Canonical
	w.signing = o.Canonical && o.Signing
	w.open(layout.Of(m.Descriptor()), m, nil, -1)
	w.depth = 1
}

// Release ends the walk: it clears every message reference the Walker holds
// and trims its scratch space to the retained bounds (MaxRetainedFrames
// frames, and a bounded arena for map entries and set fields).
func (w *Walker) Release() {
	budget := retain.Max
	w.ReleaseKeeping(&budget)
	if cap(w.frames) > MaxRetainedFrames {
		w.frames = nil
	}
	if cap(w.entries) > maxRetainedArena {
		w.entries = nil
	}
	if cap(w.exts) > maxRetainedArena {
		w.exts = nil
	}
	if cap(w.keys) > maxRetainedArena {
		w.keys, w.sorted = nil, nil
	}
	if cap(w.set) > maxRetainedArena {
		w.set = nil
	}
}

// ReleaseKeeping ends the walk as Release does, keeping each piece of
// scratch space (frames, map entries, extensions, sort keys, set fields)
// only while it fits in budget (in bytes), which it decreases by what it
// keeps.
func (w *Walker) ReleaseKeeping(budget *int) {
	clear(w.frames[:w.used])
	w.used, w.top = 0, nil
	w.frames = w.frames[:0]
	if !retain.Keep(budget, cap(w.frames)*frameBytes) {
		w.frames = nil
	}
	clear(w.entries) // entries past len were cleared when truncated
	w.entries = w.entries[:0]
	if !retain.Keep(budget, cap(w.entries)*entryBytes) {
		w.entries = nil
	}
	clear(w.exts)
	w.exts = w.exts[:0]
	if !retain.Keep(budget, cap(w.exts)*extBytes) {
		w.exts = nil
	}
	// cleared after each sort
	if !retain.Keep(budget, cap(w.keys)*sortKeyBytes+cap(w.sorted)*entryBytes) {
		w.keys, w.sorted = nil, nil
	}
	clear(w.set[:w.setUsed])
	w.set, w.setUsed = w.set[:0], 0
	if !retain.Keep(budget, cap(w.set)*setBytes) {
		w.set = nil
	}
	w.ranging = nil
	w.item = Item{}
	w.depth = 0
}

// The sizes of the Walker's scratch elements, for the retention budget.
var (
	frameBytes   = int(reflect.TypeFor[frame]().Size())
	entryBytes   = int(reflect.TypeFor[MapEntry]().Size())
	extBytes     = int(reflect.TypeFor[extField]().Size())
	sortKeyBytes = int(reflect.TypeFor[sortKey]().Size())
	setBytes     = int(reflect.TypeFor[setField]().Size())
)

// Depth reports the nesting depth of the innermost open message or map
// entry: 0 for the root, each nested message and map entry one more.
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

// MaxDepth reports the walk's effective recursion limit (see
// Options.MaxDepth): the deepest level allowed, the root being level 1.
func (w *Walker) MaxDepth() int { return w.maxDepth }

// Skip abandons the message just opened by Enter: its contents are not
// walked and no Exit follows for it. It must be called right after the
// Enter item, before the next call to Next.
func (w *Walker) Skip() {
	w.pop()
}

func (w *Walker) pop() {
	top := len(w.frames) - 1
	w.depth--
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
	w.top = f
	return f
}
