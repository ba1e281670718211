package main

import (
	"bytes"
	"context"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// root is the module root relative to this package's directory.
const root = "../../.."

// TestGeneratedUpToDate regenerates the Go code in memory and fails if the
// committed file is stale or missing, or if the output directory holds a
// file that is not generated.
func TestGeneratedUpToDate(t *testing.T) {
	files, err := generate(context.Background(), os.DirFS(root))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("nothing generated")
	}
	stale := false
	for _, name := range slices.Sorted(maps.Keys(files)) {
		got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		switch {
		case err != nil:
			t.Errorf("%s: %v", name, err)
			stale = true
		case !bytes.Equal(got, files[name]):
			t.Errorf("%s is stale", name)
			stale = true
		}
	}
	entries, err := fs.ReadDir(os.DirFS(root), outDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if name := outDir + "/" + e.Name(); files[name] == nil {
			t.Errorf("%s is not generated from the schema", name)
			stale = true
		}
	}
	if stale {
		t.Errorf("regenerate from the module root with:\n\t%s", command)
	}
}

// TestGenerateDeterministic checks that two runs give the same output.
func TestGenerateDeterministic(t *testing.T) {
	a, err := generate(context.Background(), os.DirFS(root))
	if err != nil {
		t.Fatal(err)
	}
	b, err := generate(context.Background(), os.DirFS(root))
	if err != nil {
		t.Fatal(err)
	}
	if !maps.EqualFunc(a, b, bytes.Equal) {
		t.Error("two runs of generate differ")
	}
}
