package protoschema

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"
)

func TestCompilePrefixAndOrder(t *testing.T) {
	src := fstest.MapFS{
		"proto/a.proto": {Data: []byte(`syntax = "proto3";
package p;
import "pre/proto/b.proto";
import "google/protobuf/duration.proto";
// A is documented.
message A { B b = 1; google.protobuf.Duration d = 2; }
`)},
		"proto/b.proto":     {Data: []byte("syntax = \"proto3\";\npackage p;\nmessage B {}\n")},
		"proto/notes.txt":   {Data: []byte("not a schema")},
		"other/c.proto":     {Data: []byte("syntax = \"proto3\";\npackage q;\nmessage C {}\n")},
		"proto/sub/d.proto": {Data: []byte("syntax = \"proto3\";\npackage r;\nmessage D {}\n")},
	}
	paths, files, err := Compile(context.Background(), src, "pre/", "proto/*.proto", "proto/a.proto")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(paths, " "), "pre/proto/a.proto pre/proto/b.proto"; got != want {
		t.Errorf("paths = %s, want %s", got, want)
	}
	var names []string
	for _, f := range files {
		names = append(names, f.GetName())
	}
	if got, want := strings.Join(names, " "), "pre/proto/b.proto google/protobuf/duration.proto pre/proto/a.proto"; got != want {
		t.Errorf("files = %s, want %s (dependencies first)", got, want)
	}
	a := files[len(files)-1]
	if a.GetSourceCodeInfo() == nil {
		t.Error("a.proto lost its source code info")
	}
	// The protos are copies: changing one does not change a second compile.
	a.Name = nil
	_, again, err := Compile(context.Background(), src, "pre/", "proto/a.proto")
	if err != nil {
		t.Fatal(err)
	}
	if got := again[len(again)-1].GetName(); got != "pre/proto/a.proto" {
		t.Errorf("second compile: last file %q", got)
	}
}

func TestCompileErrors(t *testing.T) {
	src := fstest.MapFS{
		"a.proto": {Data: []byte(`syntax = "proto3";
message A { Missing x = 1; Unknown y = 2; }
`)},
		"b.proto": {Data: []byte(`syntax = "proto3";
import "a.proto";
message B {}
`)},
	}
	for _, tc := range []struct {
		name, prefix string
		patterns     []string
		want         []string
	}{
		{"no patterns", "", nil, []string{"no patterns"}},
		{"no match", "", []string{"*.txt"}, []string{"no files match *.txt"}},
		{"bad pattern", "", []string{"["}, []string{"syntax error in pattern"}},
		{"every error", "", []string{"a.proto"}, []string{"Missing", "Unknown"}},
		// With a prefix, an import must carry it to resolve.
		{"import outside prefix", "pre/", []string{"b.proto"}, []string{"a.proto"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Compile(context.Background(), src, tc.prefix, tc.patterns...)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}
