package dynmsg

import (
	"encoding/binary"
	"reflect"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/slots"
	"github.com/protolayout/protolayout/internal/strview"
)

// An arena hands out the storage of the messages, lists, strings and
// bytes one Unmarshal call creates, cut from chunks it allocates, so
// that a call makes a few allocations per kind of storage rather than
// several per message. Chunks grow with use (up to a bound), so that a
// small input allocates little. A value cut from a chunk keeps the whole
// chunk alive: a message dropped while a sibling from the same call is
// kept costs its storage until both are gone.
//
// Strings and bytes are copied one after the other into data chunks,
// and sliced from them (strings through internal/strview, without a copy: no one writes
// the bytes a string covers, since a bytes value spans only its own
// copy). A string or bytes value so keeps up to dataChunk bytes of other
// values alive, never the caller's buffer.
//
// A message's header comes from a chunk of Messages, and its storage
// block from a chunk of blocks of its shape (internal/slots): blocks
// holds the chunks of the first arenaShapes shapes met, found by a scan,
// and more those of the others.
type arena struct {
	msgs  slab[Message]
	words slab[uint64]
	ls    slab[list]
	// lstrs, lbytes and lmsgs hold the elements of decoded lists of
	// strings, bytes and messages (see grow).
	lstrs  slab[string]
	lbytes slab[[]byte]
	lmsgs  slab[*Message]
	blocks [arenaShapes]shapeChunk
	nblock int
	more   map[*shape]*slots.Chunk
	// last is the shape whose chunk chunk found last in blocks, at
	// index lastIndex: a list's messages, and a message's like fields,
	// take their blocks one after the other. (An index, not a pointer
	// into the arena, which would make every arena escape to the heap.)
	last      *shape
	lastIndex int

	// data is the current data chunk: the copies made so far, and
	// room for more; dataNext is the size of the next one.
	data     []byte
	dataNext int

	// used counts the bytes of the values handed out: each message's
	// header and block, each list's header and elements' arrays, each
	// copy, and estimates for map entries, extensions and unknown fields
	// (see UnmarshalOptions.MaxMemory). Chunks' room not yet handed out
	// is not counted.
	used int64
}

// The sizes the arena counts in used.
var (
	messageBytes = int64(reflect.TypeFor[Message]().Size())
	listBytes    = int64(reflect.TypeFor[list]().Size())
	mapBytes     = int64(reflect.TypeFor[dmap]().Size())
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

// arenaShapes is how many shapes' block chunks an arena finds by a scan.
const arenaShapes = 16

// blockChunk is the most bytes of blocks a chunk holds (but one block at
// least).
const blockChunk = 4 << 10

// shapeChunk is the chunk of blocks of one shape.
type shapeChunk struct {
	s *shape
	c slots.Chunk
}

// dataChunk is the most bytes a string or bytes chunk holds.
const dataChunk = 4 << 10

// dataAlone is the length beyond which a string or bytes value that does
// not fit in the current chunk is copied on its own.
const dataAlone = 256

// slab is a chunk of Ts to cut from, and the size of the next one.
type slab[T any] struct {
	free []T
	next int
}

// take returns n zero Ts, with no spare capacity, from the slab's chunk,
// allocating a new chunk (first of size first, doubling up to limit)
// when the chunk has fewer than n left; more than half a chunk of the
// limit's size is allocated on its own, leaving the chunk as it is.
func (s *slab[T]) take(n, first, limit int) []T {
	if n > limit/2 {
		return make([]T, n)
	}
	if len(s.free) < n {
		size := s.next
		if size == 0 {
			size = first
		}
		s.next = min(2*size, limit)
		s.free = make([]T, max(n, size))
	}
	r := s.free[:n:n]
	s.free = s.free[n:]
	return r
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

// newMessage returns a new empty message of md, whose shape is s.
func (a *arena) newMessage(md protoreflect.MessageDescriptor, s *shape) *Message {
	a.used += messageBytes + int64(s.slots.Bytes())
	m := &a.msgs.take(1, 4, 64)[0]
	m.desc, m.shape = md, s
	m.block = a.chunk(s).Take(&s.slots, 2, 64, blockChunk)
	return m
}

// chunk returns the chunk of s's blocks.
func (a *arena) chunk(s *shape) *slots.Chunk {
	if s == a.last {
		return &a.blocks[a.lastIndex].c
	}
	for i := range a.nblock {
		if a.blocks[i].s == s {
			a.last, a.lastIndex = s, i
			return &a.blocks[i].c
		}
	}
	if a.nblock < len(a.blocks) {
		a.blocks[a.nblock].s = s
		a.last, a.lastIndex = s, a.nblock
		a.nblock++
		return &a.blocks[a.nblock-1].c
	}
	c := a.more[s]
	if c == nil {
		if a.more == nil {
			a.more = make(map[*shape]*slots.Chunk)
		}
		c = new(slots.Chunk)
		a.more[s] = c
	}
	return c
}

// newList returns a new empty list for fd, of elements of kind k.
func (a *arena) newList(fd protoreflect.FieldDescriptor, k protoreflect.Kind) *list {
	a.used += listBytes
	l := &a.ls.take(1, 4, 64)[0]
	l.fd, l.kind, l.valid = fd, k, true
	return l
}

// string returns a copy of v as a string.
func (a *arena) string(v []byte) string {
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
// to dataChunk) when v does not fit. A value longer than dataAlone that
// does not fit gets an allocation of its own, and the current chunk
// keeps its room.
func (a *arena) copy(v []byte) []byte {
	a.used += int64(len(v))
	if cap(a.data)-len(a.data) < len(v) {
		if len(v) > dataAlone {
			// append copies into memory it does not clear first, where
			// a chunk is cleared by make and then written again.
			return append([]byte(nil), v...)[:len(v):len(v)]
		}
		size := a.dataNext
		if size == 0 {
			size = 512
		}
		a.dataNext = min(2*size, dataChunk)
		a.data = make([]byte, 0, size)
	}
	i := len(a.data)
	a.data = append(a.data, v...)
	return a.data[i:len(a.data):len(a.data)]
}
