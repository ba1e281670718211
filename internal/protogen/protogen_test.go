package protogen

import (
	"bytes"
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// moduleRoot is the module root relative to this package's directory.
const moduleRoot = "../.."

// TestGenerateDeterministic checks that two runs give the same output for
// every target of the module.
func TestGenerateDeterministic(t *testing.T) {
	src := os.DirFS(moduleRoot)
	for _, target := range Targets() {
		a, err := Generate(context.Background(), src, target)
		if err != nil {
			t.Fatal(err)
		}
		if len(a) == 0 {
			t.Errorf("%s: nothing generated", target.OutDir)
		}
		b, err := Generate(context.Background(), src, target)
		if err != nil {
			t.Fatal(err)
		}
		if !maps.EqualFunc(a, b, bytes.Equal) {
			t.Errorf("%s: two runs of Generate differ", target.OutDir)
		}
	}
}

// The toy module of the tests below.
var (
	toy = Target{
		Files:  []string{"schemas/*.proto"},
		Module: "example.com/toy",
		OutDir: "out",
	}
	toySources = fstest.MapFS{
		"schemas/a.proto": {Data: []byte(`syntax = "proto3";
package toy;
import "schemas/b.proto";
option go_package = "example.com/toy/out/apb";
// A is documented.
message A { toy.b.B b = 1; }
`)},
		"schemas/b.proto": {Data: []byte(`syntax = "proto3";
package toy.b;
option go_package = "example.com/toy/out/bpb";
message B { string s = 1; }
`)},
	}
)

func generateToy(t *testing.T) map[string][]byte {
	t.Helper()
	files, err := Generate(context.Background(), toySources, toy)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := slices.Sorted(maps.Keys(files)), []string{"out/apb/a.pb.go", "out/bpb/b.pb.go"}; !slices.Equal(got, want) {
		t.Fatalf("generated %q, want %q", got, want)
	}
	if a := string(files["out/apb/a.pb.go"]); !strings.Contains(a, "// A is documented.") || !strings.Contains(a, "source: schemas/a.proto") {
		t.Errorf("a.pb.go lacks the doc comment or the source line:\n%s", a)
	}
	return files
}

func TestGenerateOutsideOutDir(t *testing.T) {
	target := toy
	target.OutDir = "elsewhere"
	_, err := Generate(context.Background(), toySources, target)
	if err == nil || !strings.Contains(err.Error(), "go_package") {
		t.Errorf("err = %v, want one about go_package", err)
	}
}

func TestCheck(t *testing.T) {
	files := generateToy(t)
	committed := func() fstest.MapFS {
		m := fstest.MapFS{"out/apb/a_test.go": {Data: []byte("package apb")}}
		for name, data := range files {
			m[name] = &fstest.MapFile{Data: data}
		}
		return m
	}
	for _, tc := range []struct {
		name   string
		change func(fstest.MapFS)
		want   []string
	}{
		{"up to date", func(fstest.MapFS) {}, nil},
		{"stale", func(m fstest.MapFS) { m["out/bpb/b.pb.go"].Data = []byte("old") }, []string{"out/bpb/b.pb.go is stale"}},
		{"missing", func(m fstest.MapFS) { delete(m, "out/apb/a.pb.go") }, []string{"out/apb/a.pb.go is missing"}},
		{"left over", func(m fstest.MapFS) { m["out/cpb/c.pb.go"] = &fstest.MapFile{} }, []string{"out/cpb/c.pb.go is not generated from any schema"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := committed()
			tc.change(root)
			problems, err := Check(root, toy, files)
			if err != nil {
				t.Fatal(err)
			}
			if len(problems) != len(tc.want) {
				t.Fatalf("problems = %q, want %q", problems, tc.want)
			}
			for i, p := range problems {
				if !strings.HasPrefix(p, tc.want[i]) {
					t.Errorf("problem %q, want %q", p, tc.want[i])
				}
			}
		})
	}
	// Nothing committed yet: every file is missing, and no error.
	problems, err := Check(fstest.MapFS{}, toy, files)
	if err != nil || len(problems) != len(files) {
		t.Errorf("empty root: problems %q, err %v", problems, err)
	}
}

func TestWrite(t *testing.T) {
	files := generateToy(t)
	root := t.TempDir()
	write := func(name, data string) {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("out/bpb/b.pb.go", "old")
	write("out/cpb/c.pb.go", "left over")
	write("out/apb/a_test.go", "package apb")

	var log bytes.Buffer
	if err := Write(root, toy, files, &log); err != nil {
		t.Fatal(err)
	}
	want := "wrote out/apb/a.pb.go\nwrote out/bpb/b.pb.go\nremoved out/cpb/c.pb.go\n"
	if log.String() != want {
		t.Errorf("log:\n%s\nwant:\n%s", log.String(), want)
	}
	problems, err := Check(os.DirFS(root), toy, files)
	if err != nil || len(problems) > 0 {
		t.Errorf("after Write: problems %q, err %v", problems, err)
	}
	if _, err := os.Stat(filepath.Join(root, "out", "apb", "a_test.go")); err != nil {
		t.Errorf("a file other than .pb.go was touched: %v", err)
	}

	// A second run has nothing to do.
	log.Reset()
	if err := Write(root, toy, files, &log); err != nil {
		t.Fatal(err)
	}
	if log.Len() != 0 {
		t.Errorf("second Write:\n%s", log.String())
	}
}

func TestVariants(t *testing.T) {
	target := toy
	target.Variants = []Variant{
		{Name: "all", Files: []string{"schemas/*.proto"}, APILevel: "API_OPAQUE"},
		{Name: "some", Files: []string{"schemas/a.proto"}, APILevel: "API_HYBRID"},
	}
	files, err := Generate(context.Background(), toySources, target)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"out/all/apb/a.pb.go", "out/all/bpb/b.pb.go",
		"out/apb/a.pb.go", "out/bpb/b.pb.go",
		// The hybrid API is two files: open and hybrid by default, Opaque
		// under the protoopaque build tag.
		"out/some/apb/a.pb.go", "out/some/apb/a_protoopaque.pb.go",
	}
	if got := slices.Sorted(maps.Keys(files)); !slices.Equal(got, want) {
		t.Fatalf("generated %q, want %q", got, want)
	}
	for name, wants := range map[string][]string{
		// Everything copied: the copy of a imports the copy of b.
		"out/all/apb/a.pb.go": {"source: all/schemas/a.proto", `bpb "example.com/toy/out/all/bpb"`, ".all.toy.b.B", "xxx_hidden_B", "// A is documented."},
		// Only a copied: its copy imports the original b.
		"out/some/apb/a.pb.go":             {"source: some/schemas/a.proto", `bpb "example.com/toy/out/bpb"`, ".toy.b.B", "//go:build !protoopaque", "func (x *A) SetB("},
		"out/some/apb/a_protoopaque.pb.go": {"//go:build protoopaque", "xxx_hidden_B"},
	} {
		for _, w := range wants {
			if !strings.Contains(string(files[name]), w) {
				t.Errorf("%s lacks %q", name, w)
			}
		}
	}
	if some := string(files["out/some/apb/a.pb.go"]); strings.Contains(some, "some.toy.b") {
		t.Errorf("out/some/apb/a.pb.go renames a reference to a file it does not copy")
	}
	if open := string(files["out/apb/a.pb.go"]); strings.Contains(open, "all.") || strings.Contains(open, "SetB") {
		t.Errorf("the original of a copied file changed")
	}
}

func TestVariantErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    Variant
		want string
	}{
		{"no match", Variant{Name: "v", Files: []string{"schemas/c.proto"}, APILevel: "API_OPAQUE"}, "no file"},
		{"bad name", Variant{Name: "v.w", Files: []string{"schemas/a.proto"}, APILevel: "API_OPAQUE"}, "variant name"},
		{"bad level", Variant{Name: "v", Files: []string{"schemas/a.proto"}, APILevel: "API_CLOSED"}, "API_CLOSED"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := toy
			target.Variants = []Variant{tc.v}
			_, err := Generate(context.Background(), toySources, target)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one about %q", err, tc.want)
			}
		})
	}
}
