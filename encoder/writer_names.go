package encoder

import (
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/layout"
)

// Number returns the number of the field at path in the innermost open
// message (before any Begin, the top message). path is a field's short
// name, or names joined by dots through message, group and map fields,
// each resolved in the message of the field before it:
// "resource_spans.scope_spans.spans", or "attributes.value" for the value
// of a map's entries. An extension is named by its full name in brackets,
// "[pkg.ext]", which WriterOptions.Extensions must know; a path that is
// one extension's full name needs no brackets.
//
// When path names no field, Number returns 0, a number no field has, and
// sets the Writer's error, as a failed write does: ErrUnknownField naming
// the name and the message that lacks it, or ErrKindMismatch for a path
// through a field that holds no message. The error sticks until Reset, so
// a Writer that resolves its names up front and then calls Reset before
// each message must check Err before the first Reset; Lookup, which
// returns the error instead and always resolves from the top message,
// suits that use. Resolve names once, outside loops.
func (w *Writer) Number(path string) protowire.Number {
	w.check()
	if len(w.frames) == 0 {
		if w.err == nil {
			w.failState()
		}
		return 0
	}
	num, detail, err := w.lookup(w.frames[len(w.frames)-1].tab.Layout, path)
	if err != nil {
		w.fail(err, nil, detail)
		w.check()
	}
	return num
}

// Lookup returns the number of the field at path from the top message of
// the Writer, whatever is open: path is as for Number, such as
// "resource_spans.scope_spans.spans" to resolve, before writing, the
// number of a field of a message three levels down. When path names no
// field it returns 0 and an *Error wrapping ErrUnknownField (or
// ErrKindMismatch, for a path through a field that holds no message),
// which names the name and the message that lacks it, such as
//
//	protolayout: no such field: "spanz" in message opentelemetry.proto.trace.v1.ScopeSpans (resolving "resource_spans.scope_spans.spanz") in opentelemetry.proto.trace.v1.TracesData
//
// Lookup changes nothing in the Writer, its error included.
func (w *Writer) Lookup(path string) (protowire.Number, error) {
	w.check()
	if w.root == nil {
		return 0, &Error{Err: ErrNotStarted}
	}
	num, detail, err := w.lookup(w.root.Layout, path)
	if err != nil {
		return 0, &Error{Err: err, Message: w.root.Layout.FullName, Detail: detail}
	}
	return num, nil
}

// lookup resolves path from message lay: the field's number, or the
// detail and reason of the failure.
func (w *Writer) lookup(lay *layout.Layout, path string) (protowire.Number, string, error) {
	// A dotted name that is no path may be an extension's full name, as
	// Number has always taken it.
	num, detail, err := w.lookupPath(lay, path)
	if err != nil && !strings.HasPrefix(path, "[") {
		if f := w.extensionByName(lay, path); f != nil {
			return f.Number, "", nil
		}
	}
	return num, detail, err
}

// lookupPath resolves path, a field's name or names joined by dots, from
// message lay.
func (w *Writer) lookupPath(lay *layout.Layout, path string) (protowire.Number, string, error) {
	rest := path
	for {
		name, tail, more := cutName(rest)
		var f *layout.Field
		if len(name) > 2 && name[0] == '[' && name[len(name)-1] == ']' {
			f = w.extensionByName(lay, name[1:len(name)-1])
		} else {
			f = lay.ByName(protoreflect.Name(name))
		}
		if f == nil {
			where := "" // the error names the top message
			if lay != w.root.Layout || len(rest) != len(path) {
				where = " in message " + string(lay.FullName)
			}
			return 0, quote(name) + where + resolving(path, name), ErrUnknownField
		}
		if !more {
			return f.Number, "", nil
		}
		next := f.Message()
		if f.Map {
			next = f.Entry()
		}
		if next == nil {
			kind := f.Kind.String()
			if f.List {
				kind = "repeated " + kind
			}
			return 0, "field " + quote(name) + " of message " + string(lay.FullName) + " is " + kind + ", not a message" + resolving(path, ""), ErrKindMismatch
		}
		lay, rest = next, tail
	}
}

// resolving explains that name was met resolving path, when path is more
// than name.
func resolving(path, name string) string {
	if path == name {
		return ""
	}
	return " (resolving " + quote(path) + ")"
}

// cutName cuts the first name off path: up to the first dot, or past the
// closing bracket of an extension's name in brackets, which holds dots.
func cutName(path string) (name, rest string, more bool) {
	from := 0
	if strings.HasPrefix(path, "[") {
		if i := strings.IndexByte(path, ']'); i > 0 {
			from = i
		}
	}
	if i := strings.IndexByte(path[from:], '.'); i >= 0 {
		return path[:from+i], path[from+i+1:], true
	}
	return path, "", false
}

// extensionByName returns the record of the extension of lay's message
// with the full name name, if WriterOptions.Extensions knows it, or nil.
func (w *Writer) extensionByName(lay *layout.Layout, name string) *layout.Field {
	if w.opts.Extensions == nil || !lay.Extendable {
		return nil
	}
	xt, err := w.opts.Extensions.FindExtensionByName(protoreflect.FullName(name))
	if err != nil {
		return nil
	}
	xd := xt.TypeDescriptor()
	if xd.ContainingMessage().FullName() != lay.FullName {
		return nil
	}
	return layout.Extension(xd)
}
