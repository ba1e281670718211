// Command cmd regenerates the Go code of every .proto schema of the module
// (the targets of package protogen: protobuftest/gen from
// protobuftest/proto, with its hybrid and Opaque API copies in
// protobuftest/gen/hybrid and protobuftest/gen/opaque,
// benchmarks/internal/shapespb from benchmarks/proto, and
// internal/messagesetpb from protobuftest/proto/legacy), without protoc.
//
// Run it from anywhere inside the module:
//
//	go run ./internal/protogen/cmd
//	go run -tags protolegacy ./internal/protogen/cmd
//
// The second form regenerates the MessageSet schema's code too, which
// protoc-gen-go accepts only in protolegacy builds.
//
// It rewrites the generated files that changed and deletes stale ones. With
// -check it writes nothing, lists the problems and exits with status 1 if
// any committed file is stale, missing or left over.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/protolayout/protolayout/internal/protogen"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("protogen: ")
	root := flag.String("root", "", "module root (default: found from the working directory)")
	check := flag.Bool("check", false, "report stale files instead of writing them")
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
	stale, err := run(context.Background(), *root, *check)
	if err != nil {
		log.Fatal(err)
	}
	if stale {
		log.Fatalf("generated files are stale; regenerate from the module root with:\n\t%s", protogen.Command)
	}
}

// run generates every target and writes the result into root, or with
// check only compares it with the files in root and reports whether any is
// stale.
func run(ctx context.Context, root string, check bool) (stale bool, err error) {
	src := os.DirFS(root)
	for _, t := range protogen.Targets() {
		files, err := protogen.Generate(ctx, src, t)
		if err != nil {
			return false, err
		}
		if !check {
			if err := protogen.Write(root, t, files, os.Stdout); err != nil {
				return false, err
			}
			continue
		}
		problems, err := protogen.Check(src, t, files)
		if err != nil {
			return false, err
		}
		for _, p := range problems {
			fmt.Println(p)
		}
		stale = stale || len(problems) > 0
	}
	return stale, nil
}

// moduleRoot returns the nearest directory, from the working directory up,
// whose go.mod declares protogen.Module.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && modulePath(data) == protogen.Module {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("module " + protogen.Module + " not found above the working directory; use -root")
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
