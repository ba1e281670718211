package engine

import (
	"math"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/protolayout/protolayout/internal/wire"
)

// UnmarshalOptions are the options of Unmarshal: the fields of
// dynamic.UnmarshalOptions, which documents them and converts to this
// type.
type UnmarshalOptions struct {
	Merge          bool
	AllowPartial   bool
	DiscardUnknown bool
	Resolver       interface {
		FindExtensionByName(field protoreflect.FullName) (protoreflect.ExtensionType, error)
		FindExtensionByNumber(message protoreflect.FullName, field protoreflect.FieldNumber) (protoreflect.ExtensionType, error)
	}
	RecursionLimit int
	MaxMemory      int64
}

// ErrMemoryLimit is the error of Unmarshal when the decoded message would
// take more memory than MaxMemory allows (dynamic.ErrMemoryLimit).
var ErrMemoryLimit error = &decodeError{"dynamic: decoding takes more memory than UnmarshalOptions.MaxMemory allows"}

// defaultMemoryPerByte and defaultMemoryBase make the default MaxMemory
// of an input of n bytes: defaultMemoryPerByte*n + defaultMemoryBase.
const (
	defaultMemoryPerByte = 32
	defaultMemoryBase    = 1 << 20
)

// limits returns the bytes a call on an input of n bytes may take
// (MaxMemory: 0 is the default, negative no bound) and its recursion
// limit (RecursionLimit: 0 is wire.DefaultMaxDepth, protowire's default).
func (o *UnmarshalOptions) limits(n int) (memory int64, depth int) {
	memory = o.MaxMemory
	switch {
	case memory == 0:
		memory = defaultMemoryPerByte*int64(n) + defaultMemoryBase
	case memory < 0:
		memory = math.MaxInt64
	}
	depth = o.RecursionLimit
	if depth == 0 {
		depth = wire.DefaultMaxDepth
	}
	return memory, depth
}

// Unmarshal decodes b into m, as proto.UnmarshalOptions.Unmarshal with
// the same options does, within o.MaxMemory.
func Unmarshal(b []byte, m *Message, o UnmarshalOptions) error {
	if !o.Merge {
		m.Reset()
	}
	limit, depth := o.limits(len(b))
	var opts decodeOptions // set field by field, as in unmarshal
	d := &opts
	d.discard, d.resolver, d.limit = o.DiscardUnknown, o.Resolver, limit
	if d.resolver == nil {
		d.resolver = protoregistry.GlobalTypes
	}
	err := d.top(b, m, depth)
	d.release()
	if err != nil {
		return err
	}
	if o.AllowPartial {
		return nil
	}
	return m.checkInitialized()
}
