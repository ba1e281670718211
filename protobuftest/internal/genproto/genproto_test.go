package genproto

import (
	"bytes"
	"context"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// moduleRoot is the module root relative to this package's directory.
const moduleRoot = "../../.."

// TestGeneratedFilesUpToDate regenerates the Go code in memory and fails if
// a committed file is stale, missing or left over.
func TestGeneratedFilesUpToDate(t *testing.T) {
	files, err := Generate(context.Background(), os.DirFS(filepath.Join(moduleRoot, "protobuftest")))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("nothing generated")
	}
	stale := false
	for _, name := range slices.Sorted(maps.Keys(files)) {
		got, err := os.ReadFile(filepath.Join(moduleRoot, filepath.FromSlash(name)))
		switch {
		case err != nil:
			t.Errorf("%s: %v", name, err)
			stale = true
		case !bytes.Equal(got, files[name]):
			t.Errorf("%s is stale", name)
			stale = true
		}
	}
	err = filepath.WalkDir(filepath.Join(moduleRoot, filepath.FromSlash(OutDir)), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		rel, err := filepath.Rel(moduleRoot, path)
		if err != nil {
			return err
		}
		if _, ok := files[filepath.ToSlash(rel)]; !ok {
			t.Errorf("%s is not generated from any schema", filepath.ToSlash(rel))
			stale = true
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
	if stale {
		t.Errorf("regenerate from the module root with:\n\t%s", Command)
	}
}

// TestGenerateDeterministic checks that two runs give the same output.
func TestGenerateDeterministic(t *testing.T) {
	src := os.DirFS(filepath.Join(moduleRoot, "protobuftest"))
	a, err := Generate(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Generate(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.EqualFunc(a, b, bytes.Equal) {
		t.Error("two runs of Generate differ")
	}
}
