// Package apitest checks protolayout's public API: every exported name of
// every public package is documented, and every exported name, with its
// type, is the one recorded in api.txt, so that nothing becomes public,
// and no signature changes, by accident. After a deliberate change to the
// API, rewrite the record with
//
//	go test ./internal/apitest -update
package apitest

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/doc"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
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

// root is the repository root, from this package's directory.
var root = filepath.Join("..", "..")

const modulePath = "github.com/protolayout/protolayout"

// TestPublicAPI checks the documentation of every exported name, then
// compares the API, one line per exported name with its type (see
// describe), with api.txt.
func TestPublicAPI(t *testing.T) {
	for _, dir := range public {
		checkDocs(t, dir)
	}
	pkgs, err := load(public)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for i, dir := range public {
		lines = append(lines, describe(dir, pkgs[i])...)
	}
	slices.Sort(lines)
	got := strings.Join(lines, "\n") + "\n"
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
	if got == string(want) {
		return
	}
	wantLines := strings.Split(strings.TrimSuffix(string(want), "\n"), "\n")
	for _, l := range lines {
		if !slices.Contains(wantLines, l) {
			t.Errorf("+ %s (not in api.txt)", l)
		}
	}
	for _, l := range wantLines {
		if !slices.Contains(lines, l) {
			t.Errorf("- %s (in api.txt, no longer in the packages)", l)
		}
	}
	t.Error("the public API differs from api.txt; if the change is deliberate, run go test ./internal/apitest -update")
}

// load type-checks the public packages, given by directory from the
// repository root, from the export data the go command builds (go list
// -export, one call per module, answered from the build cache once the
// packages are built), and returns them in the order of dirs.
//
// The export data is built for the host's default platform, whatever
// GOOS and GOARCH the test runs under: the API is the same on every
// platform, and a run under GOARCH=386 need not build every dependency
// of the codec module again for 386.
func load(dirs []string) ([]*types.Package, error) {
	byModule := map[string][]string{} // module directory -> package directories
	for _, dir := range dirs {
		mod := moduleOf(dir)
		byModule[mod] = append(byModule[mod], dir)
	}
	exports := map[string]string{} // import path -> export data file
	for mod, pkgDirs := range byModule {
		args := []string{"list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}"}
		for _, d := range pkgDirs {
			rel, err := filepath.Rel(mod, d)
			if err != nil {
				return nil, err
			}
			args = append(args, "./"+filepath.ToSlash(rel))
		}
		cmd := exec.Command("go", args...)
		cmd.Dir = filepath.Join(root, mod)
		cmd.Env = hostEnv()
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("go %s in %s: %v\n%s", strings.Join(args, " "), mod, err, stderr.Bytes())
		}
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			path, file, _ := strings.Cut(sc.Text(), "\t")
			exports[path] = file
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file := exports[path]
		if file == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
	var pkgs []*types.Package
	for _, dir := range dirs {
		p, err := imp.Import(modulePath + "/" + dir)
		if err != nil {
			return nil, err
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}

// moduleOf returns the directory, from the repository root, of the module
// that holds the package directory dir: the nearest with a go.mod.
func moduleOf(dir string) string {
	for d := dir; d != "."; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(root, d, "go.mod")); err == nil {
			return d
		}
	}
	return "."
}

// hostEnv is the environment without the variables that choose the target
// platform, so that the go command builds for the host's default one.
func hostEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GOOS", "GOARCH", "GO386", "GOARM", "GOARM64", "GOAMD64":
			continue
		}
		env = append(env, kv)
	}
	return env
}

// describe returns the API of p, the package in directory dir, one line
// per exported name, each starting with the name as dir.Name (or
// dir.Type.Member), then what it is:
//
//	dir.Name const TYPE = VALUE
//	dir.Name var TYPE
//	dir.Name func(PARAMS) RESULTS
//	dir.Name type[TYPE PARAMS] UNDERLYING (struct, interface or a type)
//	dir.Name type = TYPE (an alias)
//	dir.Type.Field field TYPE (embedded TYPE for an embedded field)
//	dir.Type.Method method (RECEIVER) func(PARAMS) RESULTS
//
// Methods are those of the type's method set and of its pointer's
// (promoted ones included), with the receiver, T or *T, that has them; an
// interface's are its own. Struct types say whether they are comparable.
// Types outside p are qualified by their package name; parameter names
// are left out, since changing them changes no caller.
func describe(dir string, p *types.Package) []string {
	qual := func(other *types.Package) string {
		if other == p {
			return ""
		}
		return other.Name()
	}
	typ := func(t types.Type) string { return types.TypeString(t, qual) }
	var out []string
	add := func(name, what string) { out = append(out, dir+"."+name+" "+what) }
	scope := p.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch obj := obj.(type) {
		case *types.Const:
			add(name, "const "+typ(obj.Type())+" = "+obj.Val().ExactString())
		case *types.Var:
			add(name, "var "+typ(obj.Type()))
		case *types.Func:
			add(name, signature(obj.Type().(*types.Signature), typ))
		case *types.TypeName:
			named, ok := types.Unalias(obj.Type()).(*types.Named)
			if obj.IsAlias() {
				add(name, "type = "+typ(types.Unalias(obj.Type())))
				// The members of a type defined in an internal package
				// are reached only through the alias: they are API.
				if !ok || !strings.Contains(named.Obj().Pkg().Path()+"/", "/internal/") {
					continue
				}
			} else {
				add(name, "type"+typeParams(named.TypeParams(), typ)+" "+underlying(named, typ))
			}
			members(name, named, typ, add)
		}
	}
	return out
}

// members adds the exported fields and methods of the type named, under
// name, as describe lists them.
func members(name string, named *types.Named, typ func(types.Type) string, add func(name, what string)) {
	if st, ok := named.Underlying().(*types.Struct); ok {
		for f := range st.Fields() {
			if !f.Exported() {
				continue
			}
			kind := "field "
			if f.Embedded() {
				kind = "embedded "
			}
			add(name+"."+f.Name(), kind+typ(f.Type()))
		}
	}
	if types.IsInterface(named) {
		ms := types.NewMethodSet(named)
		for sel := range ms.Methods() {
			if m := sel.Obj(); m.Exported() {
				add(name+"."+m.Name(), "method "+signature(m.Type().(*types.Signature), typ))
			}
		}
		return
	}
	value := types.NewMethodSet(named)
	ptr := types.NewMethodSet(types.NewPointer(named))
	for sel := range ptr.Methods() {
		m := sel.Obj()
		if !m.Exported() {
			continue
		}
		recv := "(*" + name + ") "
		if value.Lookup(m.Pkg(), m.Name()) != nil {
			recv = "(" + name + ") "
		}
		add(name+"."+m.Name(), "method "+recv+signature(m.Type().(*types.Signature), typ))
	}
}

// underlying describes the underlying type of a defined type: struct
// (comparable or not) and interface by their kind, their members having
// lines of their own, except an interface's type terms; any other type in
// full.
func underlying(named *types.Named, typ func(types.Type) string) string {
	switch u := named.Underlying().(type) {
	case *types.Struct:
		if types.Comparable(named) {
			return "struct, comparable"
		}
		return "struct, not comparable"
	case *types.Interface:
		if u.IsMethodSet() {
			return "interface"
		}
		var terms []string
		for e := range u.EmbeddedTypes() {
			if _, ok := e.(*types.Union); ok {
				terms = append(terms, typ(e))
			}
		}
		return "interface { " + strings.Join(terms, "; ") + " }"
	default:
		return typ(u)
	}
}

// signature describes a function's type without its parameter names:
// func[TYPE PARAMS](PARAMS) RESULTS (a method's receiver type parameters
// are its type's).
func signature(sig *types.Signature, typ func(types.Type) string) string {
	s := "func" + typeParams(sig.TypeParams(), typ) + "(" + tuple(sig.Params(), sig.Variadic(), typ) + ")"
	switch r := sig.Results(); r.Len() {
	case 0:
	case 1:
		s += " " + typ(r.At(0).Type())
	default:
		s += " (" + tuple(r, false, typ) + ")"
	}
	return s
}

func tuple(t *types.Tuple, variadic bool, typ func(types.Type) string) string {
	var parts []string
	for i := range t.Len() {
		ty := t.At(i).Type()
		if variadic && i == t.Len()-1 {
			parts = append(parts, "..."+typ(ty.(*types.Slice).Elem()))
			continue
		}
		parts = append(parts, typ(ty))
	}
	return strings.Join(parts, ", ")
}

func typeParams(l *types.TypeParamList, typ func(types.Type) string) string {
	if l.Len() == 0 {
		return ""
	}
	var parts []string
	for i := range l.Len() {
		tp := l.At(i)
		parts = append(parts, tp.Obj().Name()+" "+typ(tp.Constraint()))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// checkDocs reports the exported names of the package in dir (the files
// of the default build, build tags considered) that have no
// documentation, and a package without any.
func checkDocs(t *testing.T, dir string) {
	t.Helper()
	path := filepath.Join(root, dir)
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
	d, err := doc.NewFromFiles(fset, files, modulePath+"/"+dir)
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(d.Doc) == "" {
		t.Errorf("%s: no package documentation", dir)
	}
	documented(t, dir, d)
}

// documented reports the exported names of d, as pkg.Name, pkg.Type.Method
// and pkg.Type.Field, that have no documentation.
func documented(t *testing.T, dir string, d *doc.Package) {
	t.Helper()
	check := func(name, docText string) {
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
					check(n.Name, text)
				}
			}
		}
	}
	values(d.Consts)
	values(d.Vars)
	for _, f := range d.Funcs {
		check(f.Name, f.Doc)
	}
	for _, ty := range d.Types {
		check(ty.Name, ty.Doc)
		values(ty.Consts)
		values(ty.Vars)
		for _, f := range ty.Funcs {
			check(f.Name, f.Doc)
		}
		for _, m := range ty.Methods {
			check(ty.Name+"."+m.Name, m.Doc)
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
						check(ty.Name+"."+n.Name, fl.Doc.Text()+fl.Comment.Text())
					}
				}
			}
		}
	}
}
