// Command genshapes regenerates the Go code of the benchmark shapes
// (benchmarks/internal/shapespb) from benchmarks/proto/shapes.proto, without
// protoc.
//
// It compiles the schema with protocompile, builds the CodeGeneratorRequest
// protoc would send, and runs protoc-gen-go's code generator
// (internal_gengo) in process, as protobuftest/internal/genproto does for
// the test schemas. Run it from anywhere inside the module:
//
//	go run ./benchmarks/internal/genshapes
//
// The package test fails when the committed file is stale.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bufbuild/protocompile"
	"github.com/bufbuild/protocompile/protoutil"
	"github.com/bufbuild/protocompile/reporter"
	gengo "google.golang.org/protobuf/cmd/protoc-gen-go/internal_gengo"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/pluginpb"
)

const (
	// module is the module path; proto paths and generated file names are
	// relative to its root.
	module = "github.com/protolayout/protolayout"
	// schema is the proto path of the schema, which is also its path from
	// the module root. Keeping the directory in it keeps the path unique in
	// protoregistry.GlobalFiles.
	schema = "benchmarks/proto/shapes.proto"
	// outDir is the directory, relative to the module root, of the
	// generated code.
	outDir = "benchmarks/internal/shapespb"
	// command regenerates the committed file.
	command = "go run ./benchmarks/internal/genshapes"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("genshapes: ")
	root := flag.String("root", "", "module root (default: found from the working directory)")
	flag.Parse()
	if flag.NArg() != 0 {
		log.Fatalf("unexpected arguments %q", flag.Args())
	}
	if *root == "" {
		r, err := moduleRoot()
		if err != nil {
			log.Fatal(err)
		}
		*root = r
	}
	if err := write(*root); err != nil {
		log.Fatal(err)
	}
}

// write generates the code and writes the files that changed.
func write(root string) error {
	files, err := generate(context.Background(), os.DirFS(root))
	if err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		p := filepath.Join(root, filepath.FromSlash(name))
		if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, files[name]) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, files[name], 0o644); err != nil {
			return err
		}
		fmt.Println("wrote", name)
	}
	return nil
}

// generate compiles the schema in src, a file system rooted at the module
// root, and returns the generated files keyed by their slash-separated path
// relative to the module root (all under outDir). The output depends only
// on the schema and on the versions of protocompile and
// google.golang.org/protobuf.
func generate(ctx context.Context, src fs.FS) (map[string][]byte, error) {
	files, err := compile(ctx, src)
	if err != nil {
		return nil, err
	}
	req := &pluginpb.CodeGeneratorRequest{
		FileToGenerate: []string{schema},
		Parameter:      proto.String("module=" + module),
		ProtoFile:      files,
	}
	for _, f := range files {
		if f.GetName() == schema {
			// protoc also sends the file with its source-retention options;
			// the schema declares none, so it is the same proto.
			req.SourceFileDescriptors = append(req.SourceFileDescriptors, f)
		}
	}

	gen, err := protogen.Options{}.New(req)
	if err != nil {
		return nil, fmt.Errorf("genshapes: %w", err)
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
		return nil, fmt.Errorf("genshapes: protoc-gen-go: %s", resp.GetError())
	}
	out := make(map[string][]byte, len(resp.File))
	for _, f := range resp.File {
		name := f.GetName()
		if !strings.HasPrefix(name, outDir+"/") || f.InsertionPoint != nil {
			return nil, fmt.Errorf("genshapes: unexpected output file %q (check go_package: it must be %s/%s)", name, module, outDir)
		}
		out[name] = []byte(f.GetContent())
	}
	return out, nil
}

// compile compiles the schema with its source code info (comments become
// doc comments) and returns its FileDescriptorProto after those of its
// dependencies.
func compile(ctx context.Context, src fs.FS) ([]*descriptorpb.FileDescriptorProto, error) {
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
				if !fs.ValidPath(p) || path.Ext(p) != ".proto" {
					return nil, fs.ErrNotExist
				}
				return src.Open(p)
			},
		}),
		SourceInfoMode: protocompile.SourceInfoStandard,
		Reporter:       rep,
		MaxParallelism: 1, // deterministic error order
	}
	linked, err := c.Compile(ctx, schema)
	if len(errs) > 0 {
		return nil, fmt.Errorf("genshapes: %w", errors.Join(errs...))
	}
	if err != nil {
		return nil, fmt.Errorf("genshapes: %w", err)
	}
	f := linked.FindFileByPath(schema)
	if f == nil {
		return nil, fmt.Errorf("genshapes: %s missing from the compiler output", schema)
	}
	var files []*descriptorpb.FileDescriptorProto
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
		files = append(files, protoutil.ProtoFromFileDescriptor(fd))
	}
	visit(f)
	return files, nil
}

// moduleRoot returns the nearest directory, from the working directory up,
// whose go.mod declares module.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && modulePath(data) == module {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("module " + module + " not found above the working directory; use -root")
		}
		dir = parent
	}
}

// modulePath returns the module path declared in go.mod content.
func modulePath(gomod []byte) string {
	for line := range strings.Lines(string(gomod)) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}
