// Package genproto generates the Go code of the protobuftest schemas without
// protoc.
//
// It compiles the .proto files with protocompile (see package schema), builds
// the CodeGeneratorRequest protoc would send, and runs protoc-gen-go's code
// generator (internal_gengo) in process. The command in the cmd
// subdirectory writes the result to protobuftest/gen; the package test fails
// when the committed files are stale. Regenerate with [Command].
package genproto

import (
	"context"
	"fmt"
	"io/fs"
	"strings"

	gengo "google.golang.org/protobuf/cmd/protoc-gen-go/internal_gengo"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/pluginpb"

	"github.com/protolayout/protolayout/protobuftest/internal/schema"
)

// Module is the module path; generated file names are relative to its root.
const Module = "github.com/protolayout/protolayout"

// OutDir is the directory, relative to the module root, that holds every
// generated file.
const OutDir = "protobuftest/gen"

// Command regenerates the committed files. Run it from the module root.
const Command = "go run ./protobuftest/internal/genproto/..."

// Generate compiles the schemas in src, a file system rooted at the
// protobuftest directory, and returns the generated files keyed by their
// slash-separated path relative to the module root (all under OutDir).
// The output depends only on the sources and on the versions of protocompile
// and google.golang.org/protobuf.
func Generate(ctx context.Context, src fs.FS) (map[string][]byte, error) {
	paths, files, err := schema.Compile(ctx, src, schema.Glob)
	if err != nil {
		return nil, err
	}
	req := &pluginpb.CodeGeneratorRequest{
		FileToGenerate: paths,
		Parameter:      proto.String("module=" + Module),
		ProtoFile:      files,
	}
	generate := make(map[string]bool)
	for _, p := range paths {
		generate[p] = true
	}
	for _, f := range files {
		if !generate[f.GetName()] {
			continue
		}
		// protoc sends source_file_descriptors with the source-retention
		// options kept; the schemas declare none, so the protos are the same.
		req.SourceFileDescriptors = append(req.SourceFileDescriptors, f)
		if err := checkEdition(f); err != nil {
			return nil, err
		}
	}

	gen, err := protogen.Options{}.New(req)
	if err != nil {
		return nil, fmt.Errorf("genproto: %w", err)
	}
	for _, f := range gen.Files {
		if f.Generate {
			gengo.GenerateFile(gen, f)
		}
	}
	gen.SupportedFeatures = gengo.SupportedFeatures
	gen.SupportedEditionsMinimum = gengo.SupportedEditionsMinimum
	gen.SupportedEditionsMaximum = gengo.SupportedEditionsMaximum
	resp := gen.Response()
	if resp.Error != nil {
		return nil, fmt.Errorf("genproto: protoc-gen-go: %s", resp.GetError())
	}

	out := make(map[string][]byte, len(resp.File))
	for _, f := range resp.File {
		name := f.GetName()
		if !strings.HasPrefix(name, OutDir+"/") || f.InsertionPoint != nil {
			return nil, fmt.Errorf("genproto: unexpected output file %q (check go_package: it must be under %s/%s)", name, Module, OutDir)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("genproto: output file %q generated twice", name)
		}
		out[name] = []byte(f.GetContent())
	}
	return out, nil
}

// checkEdition reports an error, as protoc would, when f uses an edition the
// generator does not support.
func checkEdition(f *descriptorpb.FileDescriptorProto) error {
	if f.GetSyntax() != "editions" {
		return nil
	}
	if gengo.SupportedFeatures&uint64(pluginpb.CodeGeneratorResponse_FEATURE_SUPPORTS_EDITIONS) == 0 {
		return fmt.Errorf("genproto: %s: protoc-gen-go does not support editions", f.GetName())
	}
	if e := f.GetEdition(); e < gengo.SupportedEditionsMinimum || e > gengo.SupportedEditionsMaximum {
		return fmt.Errorf("genproto: %s: edition %v is outside the range protoc-gen-go supports (%v to %v)",
			f.GetName(), e, gengo.SupportedEditionsMinimum, gengo.SupportedEditionsMaximum)
	}
	return nil
}
