// Package protoschema compiles .proto sources with protocompile, without
// protoc.
//
// It is shared by the code generator (internal/protogen), which writes the
// generated Go code of the module's schemas, and by package protobuftest,
// which compiles the same sources at run time to build the dynamic twins.
// Both therefore see exactly the same descriptors.
package protoschema

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/bufbuild/protocompile"
	"github.com/bufbuild/protocompile/protoutil"
	"github.com/bufbuild/protocompile/reporter"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/protolayout/protolayout/internal/fileset"
)

// Compile compiles every .proto file of src matching one of the glob
// patterns (fs.Glob syntax, slash-separated paths in src; a pattern that
// matches nothing is an error).
//
// A file's proto path (its name in import statements and in
// FileDescriptorProto.name) is prefix followed by its path in src, and an
// import resolves to the file of src at the path that follows prefix, or to
// a well-known type. Choosing proto paths relative to the module root, e.g.
// prefix "protobuftest/" for a file system rooted at the protobuftest
// directory, or prefix "" for one rooted at the module root, keeps them
// unique in protoregistry.GlobalFiles.
//
// It returns the proto paths of the matched files, sorted, and the
// FileDescriptorProtos of those files and all their transitive dependencies
// (well-known types included), dependencies first. The matched files keep
// their source code info; the protos are fresh copies that the caller may
// modify. Every compile error is reported, in a deterministic order.
func Compile(ctx context.Context, src fs.FS, prefix string, patterns ...string) (paths []string, files []*descriptorpb.FileDescriptorProto, err error) {
	if len(patterns) == 0 {
		return nil, nil, errors.New("protoschema: no patterns")
	}
	var names []string
	for _, pattern := range patterns {
		matches, err := fs.Glob(src, pattern)
		if err != nil {
			return nil, nil, fmt.Errorf("protoschema: %w", err)
		}
		if len(matches) == 0 {
			return nil, nil, fmt.Errorf("protoschema: no files match %s", pattern)
		}
		names = append(names, matches...)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	for _, name := range names {
		paths = append(paths, prefix+name)
	}

	var errs []error
	rep := reporter.NewReporter(
		func(err reporter.ErrorWithPos) error {
			errs = append(errs, err)
			return nil // keep going so that every error is reported
		},
		func(err reporter.ErrorWithPos) {
			errs = append(errs, fmt.Errorf("warning: %w", err))
		},
	)
	c := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
			Accessor: func(p string) (io.ReadCloser, error) {
				rel, ok := strings.CutPrefix(p, prefix)
				if !ok || !fs.ValidPath(rel) || path.Ext(rel) != ".proto" {
					return nil, fs.ErrNotExist
				}
				return src.Open(rel)
			},
		}),
		SourceInfoMode: protocompile.SourceInfoStandard,
		Reporter:       rep,
		MaxParallelism: 1, // deterministic error order
	}
	linked, err := c.Compile(ctx, paths...)
	if len(errs) > 0 {
		return nil, nil, fmt.Errorf("protoschema: %w", errors.Join(errs...))
	}
	if err != nil {
		return nil, nil, fmt.Errorf("protoschema: %w", err)
	}

	var roots []protoreflect.FileDescriptor
	for _, p := range paths {
		f := linked.FindFileByPath(p)
		if f == nil {
			return nil, nil, fmt.Errorf("protoschema: %s missing from the compiler output", p)
		}
		roots = append(roots, f)
	}
	for _, fd := range fileset.Closure(roots...) {
		files = append(files, proto.Clone(protoutil.ProtoFromFileDescriptor(fd)).(*descriptorpb.FileDescriptorProto))
	}
	return paths, files, nil
}
