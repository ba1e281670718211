package engine

import (
	"encoding/binary"
	"math"
	"math/bits"
	"reflect"
	"sync"
	"sync/atomic"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/slots"
	"github.com/protolayout/protolayout/internal/strview"
	"github.com/protolayout/protolayout/internal/wire"
)

// An arena hands out the storage of the messages, lists, strings and
// bytes one Unmarshal call creates, cut from chunks it allocates, so
// that a call makes a few allocations per kind of storage rather than
// several per message. A chunk holds at most chunkBytes (a value too
// large for that is allocated on its own), so that whatever one value
// keeps alive besides itself is bounded: a value cut from a chunk keeps
// the whole chunk alive, and a message dropped while a sibling from the
// same call is kept costs its storage until both are gone.
//
// Chunks grow with use, doubling from a few values, so that a small
// input allocates little; and a call sizes its first chunk of each kind
// by what the last call into the same message type used of it (see
// arenaHint), so that a steady stream of like messages takes one chunk
// of each kind per call. Those hints size chunks ahead of need only
// within room, a budget of 16 bytes per byte of input (and a quarter of
// the call's memory limit at most): a small message decoded after a
// large one allocates at most that much more than it would without
// hints. An input under hintMinInput bytes neither takes nor leaves
// hints.
//
// Strings and bytes are copied one after the other into data chunks,
// and sliced from them (strings through internal/strview, without a
// copy: no one writes the bytes a string covers, since a bytes value
// spans only its own copy). A string or bytes value so keeps up to
// chunkBytes of other values alive, never the caller's buffer.
//
// A message's header and its storage block are cut side by side from a
// chunk of its shape (slots.TakeHeaded): blocks holds the chunks of the
// first arenaShapes shapes met, found by a scan, and more those of the
// others.
type arena struct {
	words slab[uint64]
	ls    slab[list]
	// lstrs, lbytes and lmsgs hold the elements of decoded lists of
	// strings, bytes and messages (see grow).
	lstrs  slab[string]
	lbytes slab[[]byte]
	lmsgs  slab[*Message]
	// heads holds the headers of the messages whose records are empty,
	// which share their shape's zero block (emptyOf), but in a
	// Decoder's arena, whose headers are its own.
	heads slab[Message]
	// types holds the types of the call's messages, one a shape met,
	// and those of its lists, which listTypes caches by field: one slab
	// for both (see callType).
	types slab[callType]
	// tab holds the chunks of the first shapes met and the list types,
	// from the first message or list the call makes on (tables); nblock
	// counts its chunks in use.
	tab    *arenaTables
	nblock int
	more   map[*shape]*shapeChunk
	// valueShape is the shape of the map values newMessage made last,
	// whose chunk is tab.blocks[valueIndex]: a map's entries come one after
	// the other.
	valueShape *shape
	valueIndex int

	// data is the current data chunk: the copies made so far, and
	// room for more; dataNext is the size of the next one, dataExpect
	// the bytes the next ones are to hold first (as a slab's expect),
	// and dataTaken counts the bytes of the copies made.
	data       []byte
	dataNext   int
	dataExpect int
	dataTaken  int

	// room is the bytes of chunks that hints may still size ahead of
	// need; 0 when the arena takes no hints (a Merge's).
	room int64

	// required is set once the arena has made a message of a type with
	// required fields.
	required bool

	// reuse is set in a Decoder's arena (decode_reuse.go), nil in
	// another: its messages' headers are apart from their blocks.
	reuse *reuse

	// used counts the bytes of the values handed out: each message's
	// header and block, each list's header and elements' arrays, each
	// copy, and estimates for map entries, extensions and unknown fields
	// (see UnmarshalOptions.MaxMemory). Chunks' room not yet handed out
	// is not counted.
	used int64
}

// arenaTables are an arena's tables: its chunks of the first arenaShapes
// shapes met, found by a scan or by the index, and its list types by
// field. They take 3.5 KiB: rather than clear them in every call, an
// arena takes them from a pool once its call makes a message or a list
// (tables), and clears what it used as it gives them back (release).
type arenaTables struct {
	listTypes [arenaListTypes]listTypeEntry
	// listUsed has a bit per entry of listTypes set.
	listUsed uint64
	blocks   [arenaShapes]shapeChunk
	// index holds, by a table's id modulo its length, the index in
	// blocks plus one of the chunk of that table's shape, or of another
	// one's: indexed checks. (A byte, not a pointer: small to clear,
	// and stored without a write barrier.)
	index [arenaIndex]uint8
}

// listTypeEntry is an entry of an arena's list types: the type of the
// call's lists of field df.
type listTypeEntry struct {
	df *decField
	t  *listType
}

// pooledTables holds arenaTables between calls, cleared.
var pooledTables = sync.Pool{New: func() any { return new(arenaTables) }}

// tables returns a's tables, taken from the pool on first use.
func (a *arena) tables() *arenaTables {
	if a.tab == nil {
		a.tab = pooledTables.Get().(*arenaTables)
	}
	return a.tab
}

// release gives a's tables back to the pool, cleared, once its call is
// over: the chunks and list types hold the call's types and arrays. A
// Decoder's arena keeps its own.
func (a *arena) release() {
	t := a.tab
	if t == nil || a.reuse != nil {
		return
	}
	a.tab = nil
	t.clearListTypes()
	clear(t.blocks[:a.nblock])
	clear(t.index[:])
	a.nblock, a.valueShape = 0, nil
	pooledTables.Put(t)
}

// clearListTypes clears the entries of t's list types in use.
func (t *arenaTables) clearListTypes() {
	for u := t.listUsed; u != 0; u &= u - 1 {
		t.listTypes[bits.TrailingZeros64(u)] = listTypeEntry{}
	}
	t.listUsed = 0
}

// The sizes the arena counts in used.
var (
	messageBytes  = int64(reflect.TypeFor[Message]().Size())
	typeBytes     = int64(reflect.TypeFor[msgType]().Size())
	listTypeBytes = int64(reflect.TypeFor[listType]().Size())
	callTypeBytes = int64(reflect.TypeFor[callType]().Size())
	listBytes     = int64(reflect.TypeFor[list]().Size())
	mapBytes      = int64(reflect.TypeFor[dmap]().Size())
)

// The sizes of list elements, by class, that the arena counts.
const (
	wordBytes  = 8
	strBytes   = 16
	bytesBytes = 24
	ptrBytes   = 8
)

// entryBytes is what the arena counts for a map entry or an extension
// besides the copies of its strings and bytes and its messages: a
// protoreflect.Value and its key in a Go map, with the map's overhead.
const entryBytes = 64

// arenaListTypes is how many fields' list types an arena caches.
const arenaListTypes = 64

// arenaShapes is how many shapes' block chunks an arena finds by a scan.
const arenaShapes = 24

// arenaIndex is the length of an arena's index of its chunks: a power of
// two (a mask finds a table's entry) over twice arenaShapes.
const arenaIndex = 64

// chunkBytes is the most bytes a chunk holds (but one value at least).
const chunkBytes = 64 << 10

// chunkLimit returns how many Ts a chunk holds at most.
func chunkLimit[T any]() int {
	return chunkBytes / int(reflect.TypeFor[T]().Size())
}

// Each slab's most values a chunk holds.
var (
	wordsLimit   = chunkLimit[uint64]()
	listsLimit   = chunkLimit[list]()
	strsLimit    = chunkLimit[string]()
	bytesLimit   = chunkLimit[[]byte]()
	msgPtrLimit  = chunkLimit[*Message]()
	headersLimit = chunkLimit[Message]()
	typesLimit   = chunkLimit[callType]()
)

// callType is an element of the arena's slab of types: the type of the
// call's messages of one shape, or of its lists of one field, whichever
// it is taken for, so that the two kinds share the slab's allocations.
type callType struct {
	m msgType
	l listType
}

// shapeChunk is the chunk of headers and blocks of one shape; n counts
// the messages the call took, and t is the type of those messages once
// the first one is made (a shape is built for one descriptor).
type shapeChunk struct {
	s *shape
	t *msgType
	c slots.Chunk
	n int
}

// dataAlone is the length beyond which a string or bytes value that does
// not fit in the current chunk is copied on its own.
const dataAlone = 256

// slab is a chunk of Ts to cut from, the size of the next one, how many
// Ts its next chunks are to hold first (as slots.Chunk.Expect), and how
// many Ts were taken from its chunks.
type slab[T any] struct {
	// chunk is the current chunk, its length the Ts taken from it.
	chunk  []T
	next   int
	expect int
	taken  int
	// keep is set in a Decoder's arena (see slabKeep).
	keep *slabKeep[T]
}

// take returns n zero Ts, with no spare capacity, from the slab's chunk,
// allocating a new chunk (first of size first, or as many as the slab
// expects, doubling up to limit) when the chunk has fewer than n left;
// more than half a chunk of the limit's size is allocated on its own,
// leaving the chunk as it is.
func (s *slab[T]) take(n, first, limit int) []T {
	if n > limit/2 {
		return make([]T, n)
	}
	i := len(s.chunk)
	if cap(s.chunk)-i < n {
		size := s.next
		if size == 0 {
			size = first
		}
		if s.expect > 0 {
			size = min(s.expect, limit)
			s.expect = max(0, s.expect-max(n, size))
		}
		s.next = min(2*size, limit)
		if s.keep != nil {
			s.chunk, i = s.keep.array(max(n, size))[:0], 0
		} else {
			s.chunk, i = make([]T, 0, max(n, size)), 0
		}
	}
	s.taken += n
	// Only the length is stored back: no pointer write, so no write
	// barrier, on this path.
	s.chunk = s.chunk[:i+n]
	return s.chunk[i : i+n : i+n]
}

// grow returns s, or a copy of s with room for more elements when it has
// none left, cut from sl (in chunks first long at first, doubling up to
// limit), with twice the capacity, four at least. The old array's
// elements are cleared, so that the chunk holding it keeps nothing alive.
func grow[T any](sl *slab[T], s []T, first, limit int) []T {
	if len(s) < cap(s) {
		return s
	}
	r := sl.take(max(4, 2*len(s)), first, limit)[:len(s)]
	copy(r, s)
	clear(s)
	return r
}

// reserve returns s with room for one more element, as grow does, but
// for an empty s that the element about to be appended starts: room for
// it and the records of field num, length-delimited, that follow it in
// rest one after the other, as encoders write a list's elements, so that
// the list gets its length at once.
func reserve[T any](sl *slab[T], s []T, rest []byte, num protowire.Number, first, limit int) []T {
	if len(s) > 0 || cap(s) > 0 {
		return grow(sl, s, first, limit)
	}
	return sl.take(1+countRun(rest, num), first, limit)[:0]
}

// countRun returns how many length-delimited records of field num start
// b one after the other. It reads only their tags and lengths, and stops
// at anything else, a tag written in more bytes than it needs included.
func countRun(b []byte, num protowire.Number) int {
	if num < 16 {
		return countRun1(b, byte(num)<<3|byte(protowire.BytesType))
	}
	var buf [binary.MaxVarintLen32]byte
	tag := protowire.AppendTag(buf[:0], num, protowire.BytesType)
	n := 0
	for len(b) > len(tag) && b[0] == tag[0] && (len(tag) == 1 || string(b[1:len(tag)]) == string(tag[1:])) {
		b = b[len(tag):]
		v, k := protowire.ConsumeVarint(b)
		if k < 0 || v > uint64(len(b)-k) {
			break
		}
		b = b[k+int(v):]
		n++
	}
	return n
}

// countRun1 is countRun for a field whose tag is one byte, tag.
func countRun1(b []byte, tag byte) int {
	n := 0
	for len(b) > 1 && b[0] == tag {
		v, k := uint64(b[1]), 1
		if v >= 0x80 {
			v, k = protowire.ConsumeVarint(b[1:])
			if k < 0 {
				break
			}
		}
		if v > uint64(len(b)-1-k) {
			break
		}
		b = b[1+k+int(v):]
		n++
	}
	return n
}

// newMessage returns a new empty message of md, whose shape is s: with
// empty set, a header alone that shares s's zero block (emptyOf).
func (a *arena) newMessage(md protoreflect.MessageDescriptor, s *shape, empty bool) *Message {
	var c *shapeChunk
	if s == a.valueShape {
		c = &a.tab.blocks[a.valueIndex]
	} else if i := a.indexOf(s); i >= 0 {
		a.valueShape, a.valueIndex = s, i
		c = &a.tab.blocks[i]
	} else {
		c = a.find(s)
	}
	if c.t == nil {
		a.typeOf(c, md)
	}
	if empty {
		return a.emptyOf(c)
	}
	return a.take(c)
}

// newMessageOf returns a new empty message of type t, which it shares
// with the call's other messages of t's shape (a record of their own
// when t is a message's own, which holds its extensions and unknown
// fields).
func (a *arena) newMessageOf(t *msgType) *Message {
	c := a.chunk(t.shape)
	if c.t == nil {
		if t.rare != nil {
			// A message's own record: not to be shared.
			a.typeOf(c, t.desc)
		} else {
			c.t = t
		}
	}
	return a.take(c)
}

// typeOf makes the type of c's messages, of descriptor md.
func (a *arena) typeOf(c *shapeChunk, md protoreflect.MessageDescriptor) {
	a.used += typeBytes
	c.t = &a.types.take(1, 2, typesLimit)[0].m
	c.t.desc, c.t.shape = md, c.s
}

// newChild returns a new empty message for the message field (or list of
// messages) df of a message of md, and its table, looking the field's
// message descriptor up once per call and shape rather than once per
// message.
//
// With empty set (the message's record is empty), the message is a
// header alone that shares its shape's zero block (emptyOf).
func (a *arena) newChild(md protoreflect.MessageDescriptor, df *decField, empty bool) (*Message, *decodeTable) {
	s := df.rec.child.Load()
	if s == nil {
		s = df.rec.childShape(md.Fields().Get(int(df.index)))
	}
	t := s.dec.Load()
	if t == nil {
		t = s.decodeTable()
	}
	c := a.indexed(s, t)
	if c == nil {
		c = a.find(s)
	}
	if c.t == nil {
		a.typeOf(c, md.Fields().Get(int(df.index)).Message())
	}
	if empty {
		return a.emptyOf(c), t
	}
	// take, inlined: a call less for every message a decode makes.
	a.used += messageBytes + int64(s.slots.Bytes())
	c.n++
	if a.reuse != nil {
		return a.reuse.cut(c), t
	}
	if c.c.Spent() {
		slots.RefillHeaded[Message](&c.c, &s.slots, 2, chunkBytes, chunkBytes)
	}
	m, b := slots.CutHeaded[Message](&c.c, &s.slots)
	m.t, m.block = c.t, b
	return m, t
}

// emptyOf returns a new empty message of c's type that shares its
// shape's zero block, a header alone (from the arena's headers, or a
// Decoder's): for a message whose record is empty, which nothing writes
// to until own gives it a block.
func (a *arena) emptyOf(c *shapeChunk) *Message {
	a.used += messageBytes
	var m *Message
	if a.reuse != nil {
		m = a.reuse.header()
	} else {
		m = &a.heads.take(1, 8, headersLimit)[0]
	}
	m.t, m.block = c.t, c.s.zero
	return m
}

// take returns a new empty message from c, the chunk of its shape, whose
// type c has.
func (a *arena) take(c *shapeChunk) *Message {
	s := c.s
	a.used += messageBytes + int64(s.slots.Bytes())
	c.n++
	if a.reuse != nil {
		return a.reuse.cut(c)
	}
	if c.c.Spent() {
		slots.RefillHeaded[Message](&c.c, &s.slots, 2, chunkBytes, chunkBytes)
	}
	m, b := slots.CutHeaded[Message](&c.c, &s.slots)
	m.t, m.block = c.t, b
	return m
}

// chunk returns the chunk of s's messages: indexed and find, for the
// callers that look a chunk up once for several messages.
func (a *arena) chunk(s *shape) *shapeChunk {
	if t := s.dec.Load(); t != nil {
		if c := a.indexed(s, t); c != nil {
			return c
		}
	}
	return a.find(s)
}

// indexed returns the chunk of s's messages, whose table is t, that the
// arena's index holds, or nil; find finds any other. The two are apart so that
// indexed, which finds nearly all, is inlined. (There is no cache of
// the shapes met last before it: a message and its fields' messages
// take turns, a KeyValue and its AnyValue, an AnyValue and its
// ArrayValue, so that such a cache misses most lookups while costing a
// test on each.)
func (a *arena) indexed(s *shape, t *decodeTable) *shapeChunk {
	if tab := a.tab; tab != nil {
		if i := int(tab.index[t.id%arenaIndex]) - 1; i >= 0 && tab.blocks[i].s == s {
			return &tab.blocks[i]
		}
	}
	return nil
}

// indexOf is indexed, returning the chunk's index in blocks, or -1.
func (a *arena) indexOf(s *shape) int {
	if t := s.dec.Load(); t != nil && a.tab != nil {
		if i := int(a.tab.index[t.id%arenaIndex]) - 1; i >= 0 && a.tab.blocks[i].s == s {
			return i
		}
	}
	return -1
}

// find returns the chunk of s's messages where indexed does not: a shape
// met first (whose chunk it tells to expect as many as s's hint says),
// one whose index entry another holds, or one whose table is not built
// yet.
func (a *arena) find(s *shape) *shapeChunk {
	tab := a.tables()
	var x *uint8
	if t := s.dec.Load(); t != nil {
		x = &tab.index[t.id%arenaIndex]
	}
	for i := range a.nblock {
		if tab.blocks[i].s == s {
			if x != nil {
				*x = uint8(i + 1)
			}
			return &tab.blocks[i]
		}
	}
	if a.nblock < len(tab.blocks) {
		c := &tab.blocks[a.nblock]
		a.nblock++
		if x != nil {
			*x = uint8(a.nblock)
		}
		a.start(c, s)
		return c
	}
	m := a.more[s]
	if m == nil {
		if a.more == nil {
			a.more = make(map[*shape]*shapeChunk)
		}
		m = new(shapeChunk)
		a.more[s] = m
		a.start(m, s)
	}
	return m
}

// start makes c the chunk of s's messages, telling it to expect as many
// as s's hint says, and notes whether s has required fields.
func (a *arena) start(c *shapeChunk, s *shape) {
	c.s = s
	if a.reuse != nil {
		c.c.Keep(&a.reuse.budget)
	}
	if len(s.decodeTable().required) > 0 {
		a.required = true
	}
	if a.room > 0 {
		c.c.Expect(a.ahead(int(s.decodeTable().made.Load()), int(messageBytes)+s.slots.Bytes()))
	}
}

// ahead returns how many values of size bytes each, of the hint's n,
// the arena's room lets chunks hold ahead of need, and takes them from
// the room.
func (a *arena) ahead(n, size int) int {
	if n <= 0 {
		return 0
	}
	if need := int64(n) * int64(size); need <= a.room {
		a.room -= need
		return n
	}
	n = int(a.room / int64(size))
	a.room -= int64(n) * int64(size)
	return n
}

// newList returns a new empty list for the repeated field df of a
// message of md, whose type it shares with the call's other lists of df:
// found in the arena's cache of list types by df's id, or made (from the
// call's chunk of them) and cached, replacing the field that had the
// entry (which is made again if it comes back).
func (a *arena) newList(md protoreflect.MessageDescriptor, df *decField) *list {
	if tab := a.tab; tab != nil {
		if e := &tab.listTypes[df.id%arenaListTypes]; e.df == df {
			return a.newListOf(e.t)
		}
	}
	return a.newListOf(a.listType(md, df))
}

// listType makes the type of the lists of df, a field of md, and caches
// it in the arena's list types (newList).
func (a *arena) listType(md protoreflect.MessageDescriptor, df *decField) *listType {
	tab := a.tables()
	tab.listUsed |= 1 << (df.id % arenaListTypes)
	a.used += listTypeBytes
	t := &a.types.take(1, 2, typesLimit)[0].l
	t.init(md.Fields().Get(int(df.index)), df.kind, true)
	e := &tab.listTypes[df.id%arenaListTypes]
	e.df, e.t = df, t
	return t
}

// newListOf returns a new empty list of type t.
func (a *arena) newListOf(t *listType) *list {
	a.used += listBytes
	var l *list
	// take's common case, written out: a call through slab's generic
	// code costs more than the rest of this function.
	if c := a.ls.chunk; len(c) < cap(c) {
		a.ls.taken++
		a.ls.chunk = c[:len(c)+1]
		l = &c[:len(c)+1][len(c)]
	} else {
		l = &a.ls.take(1, 4, listsLimit)[0]
	}
	l.listType = t
	return l
}

// reserveMsgs is reserve for a list of messages, take's common case
// written out (see newListOf).
func (a *arena) reserveMsgs(s []*Message, rest []byte, num protowire.Number) []*Message {
	if len(s) > 0 || cap(s) > 0 {
		return grow(&a.lmsgs, s, 8, msgPtrLimit)
	}
	n := 1 + countRun(rest, num)
	if c := a.lmsgs.chunk; cap(c)-len(c) >= n && n <= msgPtrLimit/2 {
		i := len(c)
		a.lmsgs.taken += n
		a.lmsgs.chunk = c[:i+n]
		return c[i : i : i+n]
	}
	return a.lmsgs.take(n, 8, msgPtrLimit)[:0]
}

// growScalars is grow for the elements of a list of scalars, cut from the
// arena's words.
func growScalars[T wire.Scalars](a *arena, s []T) []T {
	if len(s) < cap(s) {
		return s
	}
	r := slots.Elems[T](a.words.take(wordsFor[T](max(4, 2*len(s))), 32, wordsLimit))[:len(s)]
	copy(r, s)
	return r
}

// narrow reports whether T is one of the 32-bit element types
// (T(1<<32) == 0).
func narrow[T wire.Scalars]() bool {
	big := uint64(math.MaxUint32) + 1
	return T(big) == 0
}

// wordsFor returns how many words hold n elements of type T: n/2
// rounded up for the 32-bit types, n for words.
func wordsFor[T wire.Scalars](n int) int {
	if narrow[T]() {
		return (n + 1) / 2
	}
	return n
}

// scalarBytes returns the bytes of an element of type T, as the arena
// counts them: 4 for the 32-bit types, 8 for words.
func scalarBytes[T wire.Scalars]() int64 {
	if narrow[T]() {
		return wordBytes / 2
	}
	return wordBytes
}

// takeWords returns n zero words, as a.words.take(n, 32, wordsLimit), its
// common case written out (see newListOf).
func (a *arena) takeWords(n int) []uint64 {
	if c := a.words.chunk; cap(c)-len(c) >= n && n <= wordsLimit/2 {
		i := len(c)
		a.words.taken += n
		a.words.chunk = c[:i+n]
		return c[i : i+n : i+n]
	}
	return a.words.take(n, 32, wordsLimit)
}

// string returns a copy of v as a string: one of at most dataAlone
// bytes that fits in the current data chunk as copy would place it,
// inline, and any other through stringCopy.
func (a *arena) string(v []byte) string {
	if i, n := len(a.data), len(v); !strview.Copies && uint(n-1) < dataAlone && n <= cap(a.data)-i {
		a.used += int64(n)
		a.dataTaken += n
		// As in slab.take, only the length is stored back.
		a.data = a.data[:i+n]
		c := a.data[i : i+n : i+n]
		copy(c, v)
		return strview.String(c)
	}
	return a.stringCopy(v)
}

// stringCopy is string's path through copy.
func (a *arena) stringCopy(v []byte) string {
	if len(v) == 0 {
		return ""
	}
	if strview.Copies {
		a.used += int64(len(v))
		return string(v)
	}
	c := a.copy(v)
	// The chunk's bytes that c covers are never written: bytes values
	// are other regions of the chunk, and strings are read-only.
	return strview.String(c)
}

// copyBytes returns a copy of v with no spare
// capacity; empty bytes are non-nil, as proto.Unmarshal gives them.
func (a *arena) copyBytes(v []byte) []byte {
	if len(v) == 0 {
		return emptyBuf[:]
	}
	return a.copy(v)
}

// copy returns a copy of v, non-empty, with no spare capacity, from the
// current data chunk, starting a new one (first 512 bytes, doubling up
// to chunkBytes, or as many bytes as the arena expects) when v does not
// fit. A value longer than dataAlone that does not fit gets an allocation
// of its own, and the current chunk keeps its room, unless the arena
// expects more copies and v is no longer than half a chunk.
func (a *arena) copy(v []byte) []byte {
	a.used += int64(len(v))
	if len(v) <= chunkBytes/2 {
		a.dataTaken += len(v)
	}
	i := len(a.data)
	if cap(a.data)-i < len(v) {
		if len(v) > dataAlone && (a.dataExpect == 0 || len(v) > chunkBytes/2) {
			// append copies into memory it does not clear first, where
			// a chunk is cleared by make and then written again.
			return append([]byte(nil), v...)[:len(v):len(v)]
		}
		size := a.dataNext
		if size == 0 {
			size = 512
		}
		if a.dataExpect > 0 {
			size = min(max(a.dataExpect, len(v)), chunkBytes)
			a.dataExpect = max(0, a.dataExpect-size)
		}
		a.dataNext = min(2*size, chunkBytes)
		a.data, i = make([]byte, 0, max(size, len(v))), 0
	}
	// As in slab.take, only the length is stored back.
	a.data = a.data[:i+len(v)]
	c := a.data[i : i+len(v) : i+len(v)]
	copy(c, v)
	return c
}

// arenaHint is what one call into a message type used of each slab and
// of the data chunks, which the next call into that type takes as the
// sizes of its first chunks (the messages of each shape are kept in the
// shape's decodeTable, made). Calls from several goroutines overwrite
// one another's: a hint is a guess, never a bound.
type arenaHint struct {
	words, ls, lstrs, lbytes, lmsgs, data, types atomic.Int32
}

// plan sizes the arena's first chunks by the hint h, within room bytes.
func (a *arena) plan(h *arenaHint, room int64) {
	a.room = room
	a.words.expect = a.ahead(int(h.words.Load()), wordBytes)
	a.ls.expect = a.ahead(int(h.ls.Load()), int(listBytes))
	a.lstrs.expect = a.ahead(int(h.lstrs.Load()), strBytes)
	a.lbytes.expect = a.ahead(int(h.lbytes.Load()), bytesBytes)
	a.lmsgs.expect = a.ahead(int(h.lmsgs.Load()), ptrBytes)
	a.dataExpect = a.ahead(int(h.data.Load()), 1)
	a.types.expect = a.ahead(int(h.types.Load()), int(callTypeBytes))
}

// record stores in h, and in each shape's table, what the call used.
func (a *arena) record(h *arenaHint) {
	store(&h.words, a.words.taken)
	store(&h.ls, a.ls.taken)
	store(&h.lstrs, a.lstrs.taken)
	store(&h.lbytes, a.lbytes.taken)
	store(&h.lmsgs, a.lmsgs.taken)
	store(&h.data, a.dataTaken)
	store(&h.types, a.types.taken)
	for i := range a.nblock {
		c := &a.tab.blocks[i]
		store(&c.s.decodeTable().made, c.n)
	}
	for _, c := range a.more {
		store(&c.s.decodeTable().made, c.n)
	}
}

// store sets x to n (bounded), writing only when it changes, so that
// calls decoding alike from several goroutines do not contend.
func store(x *atomic.Int32, n int) {
	v := int32(min(n, math.MaxInt32))
	if x.Load() != v {
		x.Store(v)
	}
}
