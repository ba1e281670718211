// Command genproto regenerates the Go code of the protobuftest schemas
// (protobuftest/gen) from protobuftest/proto, without protoc.
//
// Run it from anywhere inside the module:
//
//	go run ./protobuftest/internal/genproto/...
//
// It rewrites every generated file and deletes stale ones.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/protolayout/protolayout/protobuftest/internal/genproto"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("genproto: ")
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
	if err := run(*root); err != nil {
		log.Fatal(err)
	}
}

func run(root string) error {
	files, err := genproto.Generate(context.Background(), os.DirFS(filepath.Join(root, "protobuftest")))
	if err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		path := filepath.Join(root, filepath.FromSlash(name))
		old, err := os.ReadFile(path)
		if err == nil && bytes.Equal(old, files[name]) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, files[name], 0o644); err != nil {
			return err
		}
		fmt.Println("wrote", name)
	}

	// Delete generated files whose schema is gone.
	outDir := filepath.Join(root, filepath.FromSlash(genproto.OutDir))
	return filepath.WalkDir(outDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".pb.go") {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		if _, ok := files[filepath.ToSlash(rel)]; ok {
			return nil
		}
		fmt.Println("removed", filepath.ToSlash(rel))
		return os.Remove(path)
	})
}

// moduleRoot returns the nearest directory, from the working directory up,
// whose go.mod declares genproto.Module.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && modulePath(data) == genproto.Module {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("module " + genproto.Module + " not found above the working directory; use -root")
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
