package cursor

import "google.golang.org/protobuf/reflect/protoreflect"

// Stored is embedded, as the first field, in the messages of package
// dynamic (internal/engine), which the walker and the size pass recognise
// by it without importing that package (which imports them): the walker
// visits their set fields with one Range call, which reads their storage,
// and the size pass keys their shared subtrees by address. It takes no
// space and has no exported method.
type Stored struct{}

// stored returns s, whose address is that of the message embedding it.
func (s *Stored) stored() *Stored { return s }

// storedMessage is a message embedding Stored.
type storedMessage interface{ stored() *Stored }

// StoredOf returns the Stored of m, a non-nil message, if m embeds one
// (a message of package dynamic), else nil.
func StoredOf(m protoreflect.Message) *Stored {
	if s, ok := m.(storedMessage); ok {
		return s.stored()
	}
	return nil
}
