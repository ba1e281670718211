package engine

import (
	"reflect"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/fault"
	"github.com/protolayout/protolayout/internal/wire"
)

// State is what an Encoder keeps for the engine between calls, for both
// storages. For generated messages: the sizes of nested messages, the
// map entries and the set extensions of one call, the table of visited
// messages and the map scratch values. For dynamic messages: a block of
// epochs and the scratch of deterministic map order. Between calls it
// holds no reference to a message (entries and extensions are cleared);
// what it keeps is bounded (see genRelease and release).
type State struct {
	sizes []int32
	recs  []entry
	exts  []ext
	// seen is the table of visited messages; seenEpoch the current
	// call's.
	seen      [seenSlots]seen
	seenEpoch uint32
	// last is the program of the generated type last encoded.
	last *program
	// iter and scratch read maps: an iterator, and a settable value per
	// Go type of key and value (at most maxScratch), zeroed between calls.
	iter    reflect.MapIter
	scratch []scratch

	// next and end delimit the block of epochs the state has left (see
	// epochs).
	next, end uint64
	// entries are a dynamic map's entries being sorted.
	entries []entry
	// keys are the keys of a map's entries being sorted (sortEntries),
	// for either storage.
	keys []sortKey
}

// enc is one call of the engine: the options and the progress both
// storages' passes share, and what each keeps of its own.
type enc struct {
	// st is the caller's state. A call of dynamic's fast-path methods
	// has none: it takes epochs from the shared counter, and the map
	// scratch from statePool if it needs it (pooled is then set).
	st      *State
	pooled  bool
	det     bool
	partial bool
	// levels checks the depth limit and cycles past levels.Deep, and
	// holds the deepest level followed (levels.Limit); messages are
	// told apart by their addresses.
	levels  fault.Levels[uintptr]
	maxSize int
	// utf8 asks the size pass to check strings (not for SizeOnly), and
	// trail is where it records the fault it fails with (Options.Trail;
	// nil in dynamic's write pass, whose give-ups go to the walk).
	// recheck asks dynamic's write pass to check strings: in
	// appendCached, after a size pass that did not.
	utf8    bool
	recheck bool
	trail   *fault.Trail
	// canon and signing are Options.Canonical and Signing: the
	// passes write field-number order (generated: the program's
	// canonical variant; dynamic: encProgram.canon, extensions merged)
	// and check a message's required fields as they enter it; a
	// non-empty map and unknown fields under Signing are faults.
	canon, signing bool
	// packs is set, under Signing, once the size pass has counted an
	// unpacked repeated scalar extension, which the profile packs and
	// the passes do not (encProgram.signing packs the fields): the size
	// pass goes on, to name a fault after it, and then the call leaves
	// the message to the walk. Such an extension is counted unpacked
	// plus the most a packed length adds (packedMargin): no less than
	// the walk counts for it, as the trail's bound needs.
	packs bool

	// Generated messages: repeats counts visits of messages seen before
	// (see seen); mapped is set once the call has read a map (and so
	// filled the map scratch values, which genRelease clears); next,
	// nextEntry and nextExt are the write pass's cursors in st.sizes,
	// st.recs and st.exts, which the size pass filled in the same order.
	// generated is set once the call has readied the scratch of
	// generated messages (a call on one, or one that met one in an
	// extension: generatedScratch).
	repeats                  int
	mapped                   bool
	next, nextEntry, nextExt int
	generated                bool

	// Dynamic messages: stamp is the call's epoch, shifted left by one.
	stamp uint32
	// inMaps counts the dynamic maps whose entries the passes are in:
	// the size pass and the write pass may visit their entries in other
	// orders (map order, or sorted), so that a generated message reached
	// there, whose sizes and map entries the write pass takes in the
	// order the size pass recorded them, is left to the walk.
	inMaps int

	// limit is the size limit, maxSize but while exceeded counts;
	// sizeFaults says the size pass names it (size_limit.go): the
	// limit is within maxSize, outside the canonical profiles, with a
	// trail. locating is set while exceeded counts.
	limit                int
	sizeFaults, locating bool
	// gaveUp is set, where int has 32 bits, once a message's count gave
	// up without a fault (nameGiveUp).
	gaveUp bool
}

// Encode encodes m, whose reflection is mr, straight from its storage:
// a message of package dynamic, or a generated message of a type whose
// storage map genstore builds. It appends to b (with o.SizeOnly, it
// appends nothing and returns the size as n), and reports handled false,
// with b unchanged, whenever it does not encode m: then either o.Trail
// holds the fault m fails with, as the walk names it, or (see the package
// doc: limits, nesting past wire.MaxStackDepth, a type it does not read,
// an extension holding a message of a type neither storage reads, a message
// changed during the call) the caller walks m, which gives the same bytes
// or the detailed error.
func (st *State) Encode(b []byte, m protoreflect.ProtoMessage, mr protoreflect.Message, o *Options) (out []byte, n int, handled bool) {
	if dm, ok := m.(*Message); ok {
		if dm == nil {
			return b, 0, false
		}
		return st.encode(b, dm, o)
	}
	return st.encodeGenerated(b, m, mr, o)
}

// packedMargin is the most that writing a repeated scalar packed adds to
// its size written unpacked: the length of the packed body (its keys
// but one go).
const packedMargin = 5

// start makes e, a zero enc, a call of the engine under options o, with
// the state st (nil for a call of dynamic's fast-path methods). It sets
// e in place: a call built aside and copied stalls on the copy, whose
// wide loads read what narrower stores just wrote.
func (e *enc) start(st *State, o *Options) {
	e.st, e.det, e.partial, e.utf8, e.trail = st, o.Deterministic, o.Partial || o.SizeOnly, !o.SizeOnly, o.Trail
	e.canon, e.signing = o.Canonical, o.Canonical && o.Signing
	e.levels.Init(o.MaxDepth)
	e.maxSize = min(o.MaxSize, maxSize)
	e.limit = e.maxSize
	e.sizeFaults = o.Trail != nil && !o.Canonical && o.MaxSize <= maxSize
}

// addrOf returns the address of m, which the depth and cycle checks
// (enc.levels) tell messages apart by.
func addrOf(m *Message) uintptr { return reflect.ValueOf(m).Pointer() }

// sizeUnknown ends the size pass over a message of either storage whose
// fields and extensions counted n bytes: it adds its unknown bytes u
// (refused under Signing, after the fields, where the walk refuses
// them) and checks the limit.
func (e *enc) sizeUnknown(n int, u []byte) (int, bool) {
	if len(u) > 0 {
		if e.signing {
			return 0, e.trail.Fail(fault.UnknownRefused, nil, n)
		}
		if !wire.Fits(n, len(u), e.maxSize) {
			return 0, false
		}
		n += len(u)
	}
	return n, n <= e.maxSize
}

// within reports whether n, the count of a list, a map or a message's
// extensions, may be added to the count of its message: where int has
// 32 bits, whether it is within the limit; with 64 bits always, the
// message's total being checked as it ends (sizeUnknown), where the size
// limit is named (exceeded).
func (e *enc) within(n int) bool { return !wire.Is32 || n <= e.maxSize }

// written ends a call's write pass, which appended out to b after a size
// pass that counted n bytes (ok false if it gave up): it returns out
// only if the pass wrote those n bytes and took every size, entry and
// extension the size pass recorded (consumed), and else b, as a message
// changed between the passes is never written with what was counted
// before. Called before the call's scratch is released.
func (e *enc) written(b, out []byte, n int, ok bool) ([]byte, int, bool) {
	if !ok || len(out)-len(b) != n || !e.consumed() {
		return b, 0, false
	}
	return out, n, true
}
