package main

import (
	"archive/zip"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
)

const placeholder = "v0.0.0-00010101000000-000000000000"

// fixture returns the root of a repository laid out as protolayout's: a
// root module, nested modules that require it and each other with replace
// directives, and this tool's module, which is not released.
func fixture(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	base := map[string]string{
		"go.work": "go 1.26.0\n\nuse (\n\t.\n\t./sub\n\t./cmd/tool\n\t./internal/release\n)\n",
		"go.mod":  "module example.com/fam\n\ngo 1.26.0\n",
		"fam.go":  "package fam\n",
		".git":    "gitdir: /elsewhere\n",
		"sub/go.mod": "module example.com/fam/sub\n\ngo 1.26.0\n\n" +
			"require (\n\texample.com/fam " + placeholder + "\n\trsc.io/quote v1.5.2\n)\n\n" +
			"replace example.com/fam => ../\n",
		"sub/go.sum": "rsc.io/quote v1.5.2 h1:quote=\nrsc.io/quote v1.5.2/go.mod h1:quotemod=\n",
		"sub/sub.go": "package sub\n",
		"cmd/tool/go.mod": "module example.com/fam/cmd/tool\n\ngo 1.26.0\n\n" +
			"replace (\n\texample.com/fam => ../..\n\texample.com/fam/sub => ../../sub\n)\n\n" +
			"require (\n\texample.com/fam " + placeholder + "\n\texample.com/fam/sub " + placeholder + " // indirect\n)\n",
		"cmd/tool/main.go":         "package main\n\nfunc main() {}\n",
		"internal/release/go.mod":  "module " + toolPath + "\n\ngo 1.26.0\n",
		"internal/release/main.go": "package main\n",
	}
	for name, data := range files {
		if data == "" {
			delete(base, name)
		} else {
			base[name] = data
		}
	}
	for name, data := range base {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// prepareFixture loads root's workspace and prepares a release of it.
func prepareFixture(t *testing.T, root, version string) *release {
	t.Helper()
	w, err := loadWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	rel, err := w.prepare(version)
	if err != nil {
		t.Fatal(err)
	}
	return rel
}

// byDir returns rel's module in directory dir.
func byDir(t *testing.T, rel *release, dir string) *released {
	t.Helper()
	for _, r := range rel.mods {
		if r.dir == dir {
			return r
		}
	}
	t.Fatalf("no module in %s", dir)
	return nil
}

// zipNames returns the names of the files in a zip.
func zipNames(t *testing.T, data []byte) map[string]string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if _, err := b.ReadFrom(rc); err != nil {
			t.Fatal(err)
		}
		rc.Close()
		files[f.Name] = b.String()
	}
	return files
}

func TestPrepare(t *testing.T) {
	rel := prepareFixture(t, fixture(t, nil), "v1.2.3")
	var dirs []string
	for _, r := range rel.mods {
		dirs = append(dirs, r.dir)
	}
	if want := []string{".", "sub", "cmd/tool"}; !slices.Equal(dirs, want) {
		t.Fatalf("released modules in %q, want %q (not this tool's)", dirs, want)
	}
	for _, r := range rel.mods {
		f, err := modfile.Parse("go.mod", r.newMod, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Replace) > 0 {
			t.Errorf("%s/go.mod keeps replace directives:\n%s", r.dir, r.newMod)
		}
		for _, req := range f.Require {
			if strings.HasPrefix(req.Mod.Path, "example.com/fam") && req.Mod.Version != "v1.2.3" {
				t.Errorf("%s/go.mod requires %s", r.dir, req.Mod)
			}
		}
	}
	root, sub, tool := byDir(t, rel, "."), byDir(t, rel, "sub"), byDir(t, rel, "cmd/tool")
	if !bytes.Equal(root.newMod, root.workMod.gomod) || !bytes.Equal(root.newSum, nil) {
		t.Errorf("the root module's go.mod or go.sum changed:\n%s\n%s", root.newMod, root.newSum)
	}
	if !strings.Contains(string(tool.newMod), "example.com/fam/sub v1.2.3 // indirect") {
		t.Errorf("cmd/tool/go.mod lost its // indirect comment:\n%s", tool.newMod)
	}

	wantSum := "example.com/fam v1.2.3 " + root.h1 + "\n" +
		"example.com/fam v1.2.3/go.mod " + root.modH1 + "\n" +
		"rsc.io/quote v1.5.2 h1:quote=\nrsc.io/quote v1.5.2/go.mod h1:quotemod=\n"
	if string(sub.newSum) != wantSum {
		t.Errorf("sub/go.sum:\n%s\nwant\n%s", sub.newSum, wantSum)
	}
	if !strings.Contains(string(tool.newSum), "example.com/fam/sub v1.2.3 "+sub.h1+"\n") {
		t.Errorf("cmd/tool/go.sum lacks sub's checksum:\n%s", tool.newSum)
	}

	files := zipNames(t, root.zip)
	var names []string
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	if want := []string{"example.com/fam@v1.2.3/fam.go", "example.com/fam@v1.2.3/go.mod", "example.com/fam@v1.2.3/go.work"}; !slices.Equal(names, want) {
		t.Errorf("the root module's zip holds %q, want %q (no nested module, no .git file)", names, want)
	}
	files = zipNames(t, sub.zip)
	if got := files["example.com/fam/sub@v1.2.3/go.mod"]; got != string(sub.newMod) {
		t.Errorf("sub's zip holds go.mod\n%s\nwant\n%s", got, sub.newMod)
	}
	if got := files["example.com/fam/sub@v1.2.3/go.sum"]; got != wantSum {
		t.Errorf("sub's zip holds go.sum\n%s\nwant\n%s", got, wantSum)
	}
	if h, err := hashZip(sub.zip); err != nil || h != sub.h1 || !strings.HasPrefix(h, "h1:") {
		t.Errorf("hashZip(sub) = %q, %v; recorded %q", h, err, sub.h1)
	}

	// The checksums change with the files.
	other := prepareFixture(t, fixture(t, map[string]string{"fam.go": "package fam // changed\n"}), "v1.2.3")
	if byDir(t, other, ".").h1 == root.h1 {
		t.Errorf("changing a file of the root module kept its checksum %s", root.h1)
	}
}

func TestPrepareErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		files   map[string]string
		version string
		want    string
	}{
		{"no v", nil, "1.2.3", "not a canonical semantic version"},
		{"short", nil, "v1.2", "not a canonical semantic version"},
		{"build suffix", nil, "v1.2.3+meta", "not a canonical semantic version"},
		{"major version", nil, "v2.0.0", "v2"},
		{
			"other replace",
			map[string]string{"sub/go.mod": "module example.com/fam/sub\n\ngo 1.26.0\n\nreplace rsc.io/quote => ../quote\n"},
			"v1.2.3", "replace rsc.io/quote",
		},
		{
			"exclude",
			map[string]string{"sub/go.mod": "module example.com/fam/sub\n\ngo 1.26.0\n\nexclude rsc.io/quote v1.5.1\n"},
			"v1.2.3", "exclude rsc.io/quote",
		},
		{
			"module not in go.work",
			map[string]string{"sub/go.mod": "module example.com/fam/sub\n\ngo 1.26.0\n\nrequire example.com/fam/gone " + placeholder + "\n"},
			"v1.2.3", "requires example.com/fam/gone, which is not a module of go.work",
		},
		{
			"path and directory differ",
			map[string]string{"sub/go.mod": "module example.com/fam/other\n\ngo 1.26.0\n"},
			"v1.2.3", "must be example.com/fam/sub",
		},
		{
			"cycle",
			map[string]string{"go.mod": "module example.com/fam\n\ngo 1.26.0\n\nrequire example.com/fam/sub " + placeholder + "\n"},
			"v1.2.3", "requires itself",
		},
		{
			"no root module",
			map[string]string{"go.work": "go 1.26.0\n\nuse ./sub\n"},
			"v1.2.3", "root module",
		},
		{
			"module outside",
			map[string]string{"go.work": "go 1.26.0\n\nuse (\n\t.\n\t../x\n)\n"},
			"v1.2.3", "outside the repository",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := loadWorkspace(fixture(t, tc.files))
			if err == nil {
				_, err = w.prepare(tc.version)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestWriteProxy(t *testing.T) {
	root := fixture(t, nil)
	dir := t.TempDir()
	for _, v := range []string{"v1.3.0", "v1.2.3", "v1.3.0"} {
		if err := prepareFixture(t, root, v).writeProxy(dir); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"example.com/fam", "example.com/fam/sub", "example.com/fam/cmd/tool"} {
		vdir := filepath.Join(dir, filepath.FromSlash(p), "@v")
		list, err := os.ReadFile(filepath.Join(vdir, "list"))
		if err != nil {
			t.Fatal(err)
		}
		if string(list) != "v1.2.3\nv1.3.0\n" {
			t.Errorf("%s/@v/list = %q", p, list)
		}
		for _, ext := range []string{".info", ".mod", ".zip"} {
			if _, err := os.Stat(filepath.Join(vdir, "v1.2.3"+ext)); err != nil {
				t.Error(err)
			}
		}
		info, _ := os.ReadFile(filepath.Join(vdir, "v1.2.3.info"))
		if !strings.Contains(string(info), `"Version":"v1.2.3"`) {
			t.Errorf("%s: v1.2.3.info = %s", p, info)
		}
	}
	mod, _ := os.ReadFile(filepath.Join(dir, "example.com/fam/sub/@v/v1.2.3.mod"))
	if !strings.Contains(string(mod), "example.com/fam v1.2.3\n") || strings.Contains(string(mod), "replace") {
		t.Errorf("sub's .mod:\n%s", mod)
	}
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(toolPath))); !os.IsNotExist(err) {
		t.Errorf("the proxy holds this tool's module (%v)", err)
	}
	// Only the proxy is written to.
	if b, _ := os.ReadFile(filepath.Join(root, "sub/go.mod")); !strings.Contains(string(b), "replace") {
		t.Errorf("-proxy changed sub/go.mod:\n%s", b)
	}
}

func TestWriteTree(t *testing.T) {
	root := fixture(t, nil)
	changed, err := prepareFixture(t, root, "v1.2.3").writeTree(root)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"sub/go.mod", "sub/go.sum", "cmd/tool/go.mod", "cmd/tool/go.sum"}; !slices.Equal(changed, want) {
		t.Errorf("rewrote %q, want %q", changed, want)
	}
	// The rewritten tree releases the same modules, and again changes nothing.
	again := prepareFixture(t, root, "v1.2.3")
	if changed, err := again.writeTree(root); err != nil || len(changed) > 0 {
		t.Errorf("a second run rewrote %q (%v)", changed, err)
	}
}

func TestGitFiles(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := fixture(t, map[string]string{".git": "", ".gitignore": "*.out\n", "fam.out": "output\n", "sub/x.out": "output\n"})
	for _, args := range [][]string{{"init", "-q"}, {"add", "go.mod"}} {
		if out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", args, err, out)
		}
	}
	rel := prepareFixture(t, root, "v1.2.3")
	files := zipNames(t, byDir(t, rel, ".").zip)
	if _, ok := files["example.com/fam@v1.2.3/fam.out"]; ok {
		t.Errorf("the root module's zip holds a file git ignores")
	}
	if _, ok := files["example.com/fam@v1.2.3/fam.go"]; !ok {
		t.Errorf("the root module's zip lacks an untracked file git would commit")
	}
	if len(files) != 4 { // .gitignore, fam.go, go.mod, go.work
		t.Errorf("the root module's zip holds %d files, want 4", len(files))
	}
	if dirty, err := uncommitted(root); err != nil || dirty == "" {
		t.Errorf("uncommitted = %q, %v in a tree with untracked files", dirty, err)
	}
	var out bytes.Buffer
	if err := run([]string{"-root", root, "-version", "v1.2.3"}, &out); err == nil || !strings.Contains(err.Error(), "uncommitted changes") {
		t.Errorf("-version on an uncommitted tree: %v", err)
	}
}

func TestRun(t *testing.T) {
	root := fixture(t, nil)
	var out bytes.Buffer
	if err := run([]string{"-root", root}, &out); err == nil || !strings.Contains(err.Error(), "-version is required") {
		t.Errorf("no -version: %v", err)
	}
	dir := t.TempDir()
	out.Reset()
	if err := run([]string{"-root", root, "-version", "v1.2.3", "-proxy", dir}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "3 modules") {
		t.Errorf("output %q", out.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "example.com/fam/cmd/tool/@v/v1.2.3.zip")); err != nil {
		t.Error(err)
	}
}
