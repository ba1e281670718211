package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
)

// toolPath is this tool's module, which is in go.work for `go run
// ./internal/release` but is not released: nothing requires it.
const toolPath = "github.com/protolayout/protolayout/internal/release"

// A workMod is one released module of the workspace, as in the work tree.
type workMod struct {
	dir   string // slash-separated, relative to the root; "." for the root module
	path  string // the module path
	gomod []byte // go.mod
	gosum []byte // go.sum, nil if the module has none
	file  *modfile.File
}

// tag returns the git tag of the module's release at version: the version
// for the root module, the directory and the version for a nested one.
func (m *workMod) tag(version string) string {
	if m.dir == "." {
		return version
	}
	return m.dir + "/" + version
}

// A workspace is the repository's released modules, read through go.work.
type workspace struct {
	root   string
	family string // the root module's path; every module's path starts with it
	mods   []*workMod
	byPath map[string]*workMod
}

// loadWorkspace reads root/go.work and the go.mod and go.sum of every
// module it uses, except this tool's.
func loadWorkspace(root string) (*workspace, error) {
	workFile := filepath.Join(root, "go.work")
	data, err := os.ReadFile(workFile)
	if err != nil {
		return nil, err
	}
	wf, err := modfile.ParseWork(workFile, data, nil)
	if err != nil {
		return nil, err
	}
	if len(wf.Replace) > 0 {
		return nil, fmt.Errorf("%s: replace directives apply only to this workspace, so a release would not see them; remove them", workFile)
	}
	w := &workspace{root: root, byPath: map[string]*workMod{}}
	for _, u := range wf.Use {
		dir := path.Clean(filepath.ToSlash(u.Path))
		if path.IsAbs(dir) || dir == ".." || strings.HasPrefix(dir, "../") {
			return nil, fmt.Errorf("%s: use %s: a module outside the repository cannot be released with it", workFile, u.Path)
		}
		m := &workMod{dir: dir}
		modFile := filepath.Join(root, filepath.FromSlash(dir), "go.mod")
		if m.gomod, err = os.ReadFile(modFile); err != nil {
			return nil, err
		}
		if m.file, err = modfile.Parse(modFile, m.gomod, nil); err != nil {
			return nil, err
		}
		if m.file.Module == nil {
			return nil, fmt.Errorf("%s: no module directive", modFile)
		}
		m.path = m.file.Module.Mod.Path
		if m.path == toolPath {
			continue
		}
		m.gosum, err = os.ReadFile(filepath.Join(root, filepath.FromSlash(dir), "go.sum"))
		if errors.Is(err, os.ErrNotExist) {
			m.gosum, err = nil, nil
		}
		if err != nil {
			return nil, err
		}
		if w.byPath[m.path] != nil {
			return nil, fmt.Errorf("%s: module %s is used twice", workFile, m.path)
		}
		w.byPath[m.path] = m
		w.mods = append(w.mods, m)
		if dir == "." {
			w.family = m.path
		}
	}
	if w.family == "" {
		return nil, fmt.Errorf("%s: the root module (use .) is missing", workFile)
	}
	for _, m := range w.mods {
		if want := w.family + "/" + m.dir; m.dir != "." && m.path != want {
			return nil, fmt.Errorf("module %s in %s: a nested module's path must be %s, the root's path and its directory, for its tags (%s) to resolve", m.path, m.dir, want, m.tag("vX.Y.Z"))
		}
	}
	return w, nil
}

// inFamily reports whether p is the root module's path or below it: a
// module of this repository.
func (w *workspace) inFamily(p string) bool {
	return p == w.family || strings.HasPrefix(p, w.family+"/")
}

// checkVersion reports whether version can be the release's version.
func (w *workspace) checkVersion(version string) error {
	if !semver.IsValid(version) || semver.Canonical(version) != version {
		return fmt.Errorf("version %q is not a canonical semantic version such as v0.1.0 (with its v, no +build suffix)", version)
	}
	for _, m := range w.mods {
		if err := module.Check(m.path, version); err != nil {
			return err
		}
	}
	return nil
}

// pin returns m's go.mod for a release at version: every requirement on
// another module of the repository at that version, and no replace
// directive for them.
func (w *workspace) pin(m *workMod, version string) (gomod []byte, deps []*workMod, err error) {
	name := path.Join(m.dir, "go.mod")
	f, err := modfile.Parse(name, m.gomod, nil)
	if err != nil {
		return nil, nil, err
	}
	for _, r := range f.Require {
		p := r.Mod.Path
		if !w.inFamily(p) {
			continue
		}
		dep := w.byPath[p]
		if dep == nil {
			return nil, nil, fmt.Errorf("%s: requires %s, which is not a module of go.work; add it to go.work or drop the requirement", name, p)
		}
		if dep == m {
			return nil, nil, fmt.Errorf("%s: requires its own module", name)
		}
		if err := f.AddRequire(p, version); err != nil {
			return nil, nil, err
		}
		deps = append(deps, dep)
	}
	for _, r := range f.Replace {
		if !w.inFamily(r.Old.Path) {
			return nil, nil, fmt.Errorf("%s: replace %s: a consumer's build ignores replace directives in a dependency and go install refuses a module that has one; remove it before a release", name, r.Old.Path)
		}
		if err := f.DropReplace(r.Old.Path, r.Old.Version); err != nil {
			return nil, nil, err
		}
	}
	if len(f.Exclude) > 0 {
		return nil, nil, fmt.Errorf("%s: exclude %s: go install refuses a module that has exclude directives, and a consumer's build ignores them; remove them before a release", name, f.Exclude[0].Mod)
	}
	f.Cleanup()
	gomod, err = f.Format()
	if err != nil {
		return nil, nil, err
	}
	return gomod, deps, nil
}

// gitFiles returns the files of the work tree that git would commit
// (tracked, or untracked and not ignored), relative to root, or nil if root
// is not in a git work tree or git is not installed.
func gitFiles(root string) (map[string]bool, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, nil
	}
	if exec.Command("git", "-C", root, "rev-parse", "--is-inside-work-tree").Run() != nil {
		return nil, nil
	}
	out, err := gitOutput(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	if err != nil {
		return nil, err
	}
	files := map[string]bool{}
	for f := range strings.SplitSeq(out, "\x00") {
		if f != "" {
			files[f] = true
		}
	}
	return files, nil
}

// uncommitted returns git's short status of the work tree at root, empty if
// everything is committed.
func uncommitted(root string) (string, error) {
	out, err := gitOutput(root, "status", "--porcelain")
	if err != nil {
		return "", fmt.Errorf("-version hashes the files the tag will hold and needs git to tell them: %w", err)
	}
	return out, nil
}

// gitOutput runs git in root and returns its standard output.
func gitOutput(root string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", root}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, bytes.TrimSpace(stderr.Bytes()))
	}
	return string(out), nil
}
