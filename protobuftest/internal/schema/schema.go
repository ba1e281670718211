// Package schema compiles the protobuftest .proto sources with protocompile.
//
// It is shared by the code generator (protobuftest/internal/genproto), which
// writes the generated Go twins, and by package protobuftest, which loads the
// same sources at run time to build the dynamic twins. Both therefore see
// exactly the same descriptors.
package schema

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
)

// PathPrefix is prepended to a file's path inside the source file system to
// give its proto path (the name used in import statements and in
// FileDescriptorProto.name). The proto paths are thus relative to the module
// root, e.g. "protobuftest/proto/test2.proto", which keeps them unique in
// protoregistry.GlobalFiles.
const PathPrefix = "protobuftest/"

// Glob selects the schema files that have generated Go code.
const Glob = "proto/*.proto"

// LegacyGlob selects the schema files that protoc-gen-go cannot generate
// without the protolegacy build tag (MessageSet); they are only loaded at
// run time.
const LegacyGlob = "proto/legacy/*.proto"

// Compile compiles every file matching one of the glob patterns in src, a
// file system rooted at the protobuftest directory.
//
// It returns the proto paths of the schema files, sorted, and the
// FileDescriptorProtos of the schema files and all their transitive
// dependencies (well-known types included), dependencies first. Schema files
// keep their source code info; the protos are fresh copies that the caller
// may modify.
func Compile(ctx context.Context, src fs.FS, patterns ...string) (paths []string, files []*descriptorpb.FileDescriptorProto, err error) {
	var names []string
	for _, pattern := range patterns {
		matches, err := fs.Glob(src, pattern)
		if err != nil {
			return nil, nil, err
		}
		if len(matches) == 0 {
			return nil, nil, fmt.Errorf("schema: no files match %s", pattern)
		}
		names = append(names, matches...)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	for _, name := range names {
		paths = append(paths, PathPrefix+name)
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
				rel, ok := strings.CutPrefix(p, PathPrefix)
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
		return nil, nil, fmt.Errorf("schema: %w", errors.Join(errs...))
	}
	if err != nil {
		return nil, nil, fmt.Errorf("schema: %w", err)
	}

	seen := make(map[string]bool)
	var visit func(fd protoreflect.FileDescriptor)
	visit = func(fd protoreflect.FileDescriptor) {
		if seen[fd.Path()] {
			return
		}
		seen[fd.Path()] = true
		imports := fd.Imports()
		for i := range imports.Len() {
			visit(imports.Get(i).FileDescriptor)
		}
		files = append(files, proto.Clone(protoutil.ProtoFromFileDescriptor(fd)).(*descriptorpb.FileDescriptorProto))
	}
	for _, p := range paths {
		f := linked.FindFileByPath(p)
		if f == nil {
			return nil, nil, fmt.Errorf("schema: %s missing from the compiler output", p)
		}
		visit(f)
	}
	return paths, files, nil
}
