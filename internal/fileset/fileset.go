// Package fileset orders a schema's files as a FileDescriptorSet holds
// them: the tools, tests and benchmarks of this repository that serialize
// a schema (to load it again at run time, or to write it out) share it.
package fileset

import "google.golang.org/protobuf/reflect/protoreflect"

// Closure returns fds and every file they import, transitively, each once
// (by path), imports before the files that import them, as protoc
// --include_imports and buf build write a FileDescriptorSet. Placeholder
// files, imports that were never resolved and so have no contents, are
// left out.
func Closure(fds ...protoreflect.FileDescriptor) []protoreflect.FileDescriptor {
	var out []protoreflect.FileDescriptor
	seen := make(map[string]bool)
	var visit func(fd protoreflect.FileDescriptor)
	visit = func(fd protoreflect.FileDescriptor) {
		if seen[fd.Path()] || fd.IsPlaceholder() {
			return
		}
		seen[fd.Path()] = true
		imports := fd.Imports()
		for i := range imports.Len() {
			visit(imports.Get(i).FileDescriptor)
		}
		out = append(out, fd)
	}
	for _, fd := range fds {
		visit(fd)
	}
	return out
}
