package cursor

import (
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/fault"
	"github.com/protolayout/protolayout/internal/layout"
)

// AppendPath appends the path from the root to the innermost open message,
// such as `resource_spans[0].scope_spans[2].spans[7].attributes["k"]`,
// followed by field f if it is not nil. It is meant for error messages.
func (w *Walker) AppendPath(b []byte, f *layout.Field) []byte {
	n := len(w.frames)
	if n > 0 && w.frames[n-1].entry {
		f = nil // the entry's key already locates the failure
	}
	return fault.AppendSteps(b, n-1, func(i int) fault.PathStep {
		fr := &w.frames[i+1]
		switch {
		case fr.entry:
			return fault.PathStep{Field: fr.via, Index: -1, Key: func(b []byte) []byte {
				return appendKey(b, w.entries[fr.i].Key, fr.via.MapKey.Kind)
			}}
		case w.frames[i].entry:
			return fault.PathStep{} // a map value: its entry already named it
		}
		return fault.PathStep{Field: fr.via, Index: fr.index}
	}, f)
}

// appendKey appends map key k of kind kind (fault.AppendKey).
func appendKey(b []byte, k protoreflect.MapKey, kind protoreflect.Kind) []byte {
	switch kind {
	case protoreflect.StringKind:
		return fault.AppendKey(b, kind, 0, k.String())
	case protoreflect.BoolKind:
		if k.Bool() {
			return fault.AppendKey(b, kind, 1, "")
		}
		return fault.AppendKey(b, kind, 0, "")
	case protoreflect.Uint32Kind, protoreflect.Uint64Kind,
		protoreflect.Fixed32Kind, protoreflect.Fixed64Kind:
		return fault.AppendKey(b, kind, k.Uint(), "")
	}
	return fault.AppendKey(b, kind, uint64(k.Int()), "")
}
