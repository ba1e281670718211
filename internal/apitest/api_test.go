// Package apitest checks protolayout's public API: every exported name of
// every public package is documented, and the set of exported names is the
// one recorded in api.txt, so that nothing becomes public by accident.
// After a deliberate change to the API, rewrite the record with
//
//	go test ./internal/apitest -update
package apitest

import (
	"flag"
	"go/ast"
	"go/build"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite api.txt from the packages")

// public lists the public packages, by directory from the repository root
// (the codec module's too). The generated fixtures under protobuftest/gen
// and everything under internal/ or examples/ are not public API.
var public = []string{
	"encoder", "layout", "cursor", "sizing", "protobuftest", "dynamic",
	"codec/grpccodec", "codec/connectcodec",
}

func TestPublicAPI(t *testing.T) {
	var names []string
	for _, dir := range public {
		// The files of the default build (build tags considered).
		path := filepath.Join("..", "..", dir)
		bp, err := build.Default.ImportDir(path, 0)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		var files []*ast.File
		for _, name := range bp.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(path, name), nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		d, err := doc.NewFromFiles(fset, files, "github.com/protolayout/protolayout/"+dir)
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(d.Doc) == "" {
			t.Errorf("%s: no package documentation", dir)
		}
		names = append(names, exported(t, dir, d)...)
	}
	slices.Sort(names)
	got := strings.Join(names, "\n") + "\n"
	if *update {
		if err := os.WriteFile("api.txt", []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile("api.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		wantSet := strings.Split(strings.TrimSpace(string(want)), "\n")
		for _, n := range names {
			if !slices.Contains(wantSet, n) {
				t.Errorf("new exported name %s (not in api.txt)", n)
			}
		}
		for _, n := range wantSet {
			if !slices.Contains(names, n) {
				t.Errorf("exported name %s is gone (still in api.txt)", n)
			}
		}
		t.Error("the public API differs from api.txt; if the change is deliberate, run go test ./internal/apitest -update")
	}
}

// exported returns the exported names of d, as pkg.Name, pkg.Type.Method
// and pkg.Type.Field, and reports those without documentation.
func exported(t *testing.T, dir string, d *doc.Package) []string {
	var out []string
	add := func(name, docText string) {
		out = append(out, dir+"."+name)
		if strings.TrimSpace(docText) == "" {
			t.Errorf("%s.%s has no documentation", dir, name)
		}
	}
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			for _, spec := range v.Decl.Specs {
				vs := spec.(*ast.ValueSpec)
				for _, n := range vs.Names {
					if !n.IsExported() {
						continue
					}
					text := vs.Doc.Text() + vs.Comment.Text()
					if text == "" {
						text = v.Doc // a documented group
					}
					add(n.Name, text)
				}
			}
		}
	}
	values(d.Consts)
	values(d.Vars)
	for _, f := range d.Funcs {
		add(f.Name, f.Doc)
	}
	for _, ty := range d.Types {
		add(ty.Name, ty.Doc)
		values(ty.Consts)
		values(ty.Vars)
		for _, f := range ty.Funcs {
			add(f.Name, f.Doc)
		}
		for _, m := range ty.Methods {
			add(ty.Name+"."+m.Name, m.Doc)
		}
		for _, spec := range ty.Decl.Specs {
			ts := spec.(*ast.TypeSpec)
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				continue
			}
			for _, fl := range st.Fields.List {
				for _, n := range fl.Names {
					if n.IsExported() {
						add(ty.Name+"."+n.Name, fl.Doc.Text()+fl.Comment.Text())
					}
				}
			}
		}
	}
	return out
}
