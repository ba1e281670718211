// Package protogen generates the Go code of the module's .proto schemas
// without protoc.
//
// It compiles the schemas with protocompile (see package protoschema),
// builds the CodeGeneratorRequest protoc would send, and runs protoc-gen-go's
// code generator (internal_gengo) in process. The output depends only on the
// sources and on the versions of protocompile and google.golang.org/protobuf.
//
// A target may also generate renamed copies of its schemas at other API
// levels of protoc-gen-go ([Variant]), so that tests can hold the same
// schema's open, hybrid and Opaque generated types in one program.
//
// [Targets] lists the generated code of the module. The command in the cmd
// subdirectory regenerates all of it ([Command]); each target's package has
// a test that fails, with [Verify], while its committed files are stale.
package protogen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	gengo "google.golang.org/protobuf/cmd/protoc-gen-go/internal_gengo"
	goprotogen "google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/pluginpb"

	"github.com/protolayout/protolayout/internal/protoschema"
)

// Module is the path of this module.
const Module = "github.com/protolayout/protolayout"

// Command regenerates the Go code of every target. Run it from the module
// root.
const Command = "go run ./internal/protogen/cmd"

// LegacyCommand regenerates the Go code of every target, [Legacy]
// included.
const LegacyCommand = "go run -tags protolegacy ./internal/protogen/cmd"

// A Target is a set of .proto files and the directory of their generated Go
// code.
type Target struct {
	// Files are glob patterns (fs.Glob syntax) selecting the .proto files
	// to generate, as slash-separated paths from the module root. A file's
	// path from the module root is also its proto path, the name other
	// files import it by.
	Files []string
	// Module is the path of the module whose root the generated file names
	// are relative to (protoc-gen-go's module= option). The go_package of
	// every file must lie under Module/OutDir.
	Module string
	// OutDir is the directory, slash-separated and relative to the module
	// root, that holds every generated file. Any other .pb.go file under it
	// is stale.
	OutDir string
	// Variants are renamed copies of some of the files, generated at
	// another API level next to the originals (under OutDir too).
	Variants []Variant
}

// A Variant is a renamed copy of some of a target's .proto files whose Go
// code is generated at another API level of protoc-gen-go. The copy is
// renamed so that one program can link it with the original: protobuf-go
// refuses to register two files of one path or two declarations of one
// full name.
//
// The copy of a file is renamed throughout, on the compiled descriptors:
// its proto path F becomes Name/F, its proto package P becomes Name.P, its
// go_package Module/OutDir/D becomes Module/OutDir/Name/D, and every
// reference to a declaration of a copied file (field types, extendees,
// method types, imports) names the copy. References to other files (the
// well-known types, the target's files left out) are kept.
type Variant struct {
	// Name prefixes the copies' paths and packages. It must be a proto
	// identifier and a Go package path element, such as "hybrid".
	Name string
	// Files are patterns (path.Match syntax) selecting the files to copy
	// among the target's files, by their path from the module root. Each
	// must match at least one file.
	Files []string
	// APILevel is protoc-gen-go's default_api_level for the copies:
	// "API_OPEN", "API_HYBRID" or "API_OPAQUE". It applies to proto2 and
	// proto3 files as to editions files that set no api_level feature.
	APILevel string
}

var (
	// Protobuftest is the Go code of the test schemas, except the
	// MessageSet schema in protobuftest/proto/legacy, which is [Legacy]:
	// with protoc-gen-go's default (open) struct API in
	// protobuftest/gen/<pkg>, and copies of the schemas with the hybrid
	// and the Opaque API in protobuftest/gen/hybrid/<pkg> and
	// protobuftest/gen/opaque/<pkg> (proto packages hybrid.protolayout.*
	// and opaque.protolayout.*).
	//
	// customoptions.proto has no copies: it extends
	// google.protobuf.MessageOptions, and a copy would declare extensions
	// of the same numbers on that message, which protobuf-go refuses to
	// register twice in one program.
	Protobuftest = Target{
		Files:  []string{"protobuftest/proto/*.proto"},
		Module: Module,
		OutDir: "protobuftest/gen",
		Variants: []Variant{
			{Name: "hybrid", Files: testSchemaCopies, APILevel: "API_HYBRID"},
			{Name: "opaque", Files: testSchemaCopies, APILevel: "API_OPAQUE"},
		},
	}
	// Benchmarks is the Go code of the benchmark shapes.
	Benchmarks = Target{
		Files:  []string{"benchmarks/proto/*.proto"},
		Module: Module,
		OutDir: "benchmarks/internal/shapespb",
	}
	// Legacy is the Go code of the MessageSet test schema. protoc-gen-go
	// refuses MessageSet descriptors unless it is built with the
	// protolegacy tag, so only a protolegacy build generates or checks
	// it ([Targets] leaves it out otherwise); the generated code itself
	// builds and runs in every build.
	Legacy = Target{
		Files:  []string{"protobuftest/proto/legacy/*.proto"},
		Module: Module,
		OutDir: "internal/messagesetpb",
	}
)

// testSchemaCopies selects the test schemas that [Protobuftest] copies
// into its variants: all but customoptions.proto.
var testSchemaCopies = []string{"protobuftest/proto/test*.proto"}

// Targets returns every target of the module that this build can
// generate, the ones [Command] regenerates: [Legacy] too when built with
// the protolegacy tag.
func Targets() []Target {
	if protoLegacy {
		return []Target{Protobuftest, Benchmarks, Legacy}
	}
	return []Target{Protobuftest, Benchmarks}
}

// Generate compiles the .proto files of t in src, a file system rooted at
// the module root, and returns the generated files keyed by their
// slash-separated path from the module root (all under t.OutDir): those of
// the files themselves, then those of each of t.Variants.
func Generate(ctx context.Context, src fs.FS, t Target) (map[string][]byte, error) {
	paths, files, err := protoschema.Compile(ctx, src, "", t.Files...)
	if err != nil {
		return nil, fmt.Errorf("protogen: %w", err)
	}
	out := make(map[string][]byte)
	if err := generate(t, paths, files, "module="+t.Module, out); err != nil {
		return nil, err
	}
	for _, v := range t.Variants {
		vpaths, vfiles, err := copyVariant(t, v, paths, files)
		if err != nil {
			return nil, err
		}
		param := "module=" + t.Module + ",default_api_level=" + v.APILevel
		if err := generate(t, vpaths, append(slices.Clone(files), vfiles...), param, out); err != nil {
			return nil, fmt.Errorf("%w (variant %s)", err, v.Name)
		}
	}
	return out, nil
}

// generate runs protoc-gen-go on the files of paths, with files holding
// them and all their dependencies (dependencies first) and param as the
// plugin parameter, and adds its output files to out.
func generate(t Target, paths []string, files []*descriptorpb.FileDescriptorProto, param string, out map[string][]byte) error {
	req := &pluginpb.CodeGeneratorRequest{
		FileToGenerate: paths,
		Parameter:      proto.String(param),
		ProtoFile:      files,
	}
	for _, f := range files {
		if !slices.Contains(paths, f.GetName()) {
			continue
		}
		// protoc also sends the files to generate with their
		// source-retention options kept; the schemas declare none, so the
		// protos are the same.
		req.SourceFileDescriptors = append(req.SourceFileDescriptors, f)
		if err := checkEdition(f); err != nil {
			return err
		}
	}

	gen, err := goprotogen.Options{}.New(req)
	if err != nil {
		return fmt.Errorf("protogen: %w", err)
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
		return fmt.Errorf("protogen: protoc-gen-go: %s", resp.GetError())
	}

	for _, f := range resp.File {
		name := f.GetName()
		if !strings.HasPrefix(name, t.OutDir+"/") || f.InsertionPoint != nil {
			return fmt.Errorf("protogen: unexpected output file %q (check go_package: it must be under %s/%s)", name, t.Module, t.OutDir)
		}
		if _, dup := out[name]; dup {
			return fmt.Errorf("protogen: output file %q generated twice", name)
		}
		out[name] = []byte(f.GetContent())
	}
	return nil
}

// checkEdition reports an error, as protoc would, when f uses an edition the
// generator does not support.
func checkEdition(f *descriptorpb.FileDescriptorProto) error {
	if f.GetSyntax() != "editions" {
		return nil
	}
	if gengo.SupportedFeatures&uint64(pluginpb.CodeGeneratorResponse_FEATURE_SUPPORTS_EDITIONS) == 0 {
		return fmt.Errorf("protogen: %s: protoc-gen-go does not support editions", f.GetName())
	}
	if e := f.GetEdition(); e < gengo.SupportedEditionsMinimum || e > gengo.SupportedEditionsMaximum {
		return fmt.Errorf("protogen: %s: edition %v is outside the range protoc-gen-go supports (%v to %v)",
			f.GetName(), e, gengo.SupportedEditionsMinimum, gengo.SupportedEditionsMaximum)
	}
	return nil
}

// Check compares files, the output of [Generate] for t, with the committed
// files in root, a file system rooted at the module root. It returns one
// message per problem, sorted: a generated file that is missing or stale,
// or a .pb.go file under t.OutDir that is not generated. An empty result
// means the committed files are up to date.
func Check(root fs.FS, t Target, files map[string][]byte) ([]string, error) {
	var problems []string
	for _, name := range slices.Sorted(maps.Keys(files)) {
		got, err := fs.ReadFile(root, name)
		switch {
		case err != nil:
			problems = append(problems, fmt.Sprintf("%s is missing: %v", name, err))
		case !bytes.Equal(got, files[name]):
			problems = append(problems, name+" is stale")
		}
	}
	extra, err := leftovers(root, t, files)
	if err != nil {
		return nil, err
	}
	for _, name := range extra {
		problems = append(problems, name+" is not generated from any schema")
	}
	return problems, nil
}

// Verify generates t from the sources in root, a file system rooted at the
// module root, and returns the problems [Check] finds in the committed
// files. The staleness test of each target's package calls it.
func Verify(ctx context.Context, root fs.FS, t Target) ([]string, error) {
	files, err := Generate(ctx, root, t)
	if err != nil {
		return nil, err
	}
	return Check(root, t, files)
}

// Write writes files, the output of [Generate] for t, into root, the module
// root directory: it writes the files whose content differs, creating
// directories as needed, and removes the .pb.go files under t.OutDir that
// are not generated. It reports each change on w.
func Write(root string, t Target, files map[string][]byte, w io.Writer) error {
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
		fmt.Fprintln(w, "wrote", name)
	}
	extra, err := leftovers(os.DirFS(root), t, files)
	if err != nil {
		return err
	}
	for _, name := range extra {
		if err := os.Remove(filepath.Join(root, filepath.FromSlash(name))); err != nil {
			return err
		}
		fmt.Fprintln(w, "removed", name)
	}
	return nil
}

// leftovers returns the .pb.go files under t.OutDir in root that are not in
// files, in lexical order. A missing t.OutDir holds none.
func leftovers(root fs.FS, t Target, files map[string][]byte) ([]string, error) {
	var extra []string
	err := fs.WalkDir(root, t.OutDir, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			if name == t.OutDir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path.Base(name), ".pb.go") {
			return nil
		}
		if _, ok := files[name]; !ok {
			extra = append(extra, name)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("protogen: %w", err)
	}
	return extra, nil
}
