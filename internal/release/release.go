package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	"golang.org/x/mod/sumdb/dirhash"
	modzip "golang.org/x/mod/zip"
)

// A release is the workspace's modules as they are tagged at one version.
type release struct {
	version string
	mods    []*released // in go.work's order
}

// A released module is a module of the workspace as its release holds it.
type released struct {
	*workMod
	newMod []byte      // go.mod, requiring the other modules at the version
	newSum []byte      // go.sum, with their checksums; nil if none
	deps   []*released // the modules of the repository it requires
	zip    []byte      // the module zip
	h1     string      // the zip's checksum, as go.sum records it
	modH1  string      // go.mod's checksum
	status buildStatus
}

// buildStatus tells where a released module is in release.build.
type buildStatus int

const (
	unbuilt  buildStatus = iota // the zero value
	building                    // its dependencies are being built
	built                       // its go.sum and zip are made
)

// prepare computes every module's go.mod, go.sum and zip for a release at
// version.
func (w *workspace) prepare(version string) (*release, error) {
	if err := w.checkVersion(version); err != nil {
		return nil, err
	}
	committed, err := gitFiles(w.root)
	if err != nil {
		return nil, err
	}
	rel := &release{version: version}
	byPath := map[string]*released{}
	deps := map[*released][]*workMod{}
	for _, m := range w.mods {
		gomod, ds, err := w.pin(m, version)
		if err != nil {
			return nil, err
		}
		r := &released{workMod: m, newMod: gomod}
		rel.mods = append(rel.mods, r)
		byPath[m.path] = r
		deps[r] = ds
	}
	for _, r := range rel.mods {
		for _, d := range deps[r] {
			r.deps = append(r.deps, byPath[d.path])
		}
	}
	for _, r := range rel.mods {
		if err := rel.build(w, r, committed); err != nil {
			return nil, err
		}
	}
	return rel, nil
}

// build makes r's go.sum and zip, after those of the modules it requires,
// whose checksums its go.sum holds.
func (rel *release) build(w *workspace, r *released, committed map[string]bool) error {
	switch r.status {
	case building:
		return fmt.Errorf("%s requires itself through other modules of the repository; their go.sum files cannot hold each other's checksums", r.path)
	case built:
		return nil
	}
	r.status = building
	for _, d := range r.deps {
		if err := rel.build(w, d, committed); err != nil {
			return err
		}
	}
	sum, err := rewriteSum(w, r, rel.version)
	if err != nil {
		return err
	}
	r.newSum = sum
	files, err := moduleFiles(w.root, r, committed)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	mv := module.Version{Path: r.path, Version: rel.version}
	if err := modzip.Create(&buf, mv, files); err != nil {
		return fmt.Errorf("zip of %s: %w", r.path, err)
	}
	r.zip = buf.Bytes()
	if r.h1, err = hashZip(r.zip); err != nil {
		return fmt.Errorf("zip of %s: %w", r.path, err)
	}
	if r.modH1, err = dirhash.Hash1([]string{"go.mod"}, func(string) (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(r.newMod)), nil
	}); err != nil {
		return err
	}
	r.status = built
	return nil
}

// rewriteSum returns r's go.sum with the lines for the repository's modules
// replaced by those of the modules r requires, at version.
func rewriteSum(w *workspace, r *released, version string) ([]byte, error) {
	old := r.workMod.gosum
	if old == nil && len(r.deps) == 0 {
		return nil, nil
	}
	hashes := map[module.Version][]string{}
	for i, line := range strings.Split(string(old), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 3 {
			return nil, fmt.Errorf("%s:%d: malformed line %q", path.Join(r.dir, "go.sum"), i+1, line)
		}
		if w.inFamily(f[0]) {
			continue
		}
		mv := module.Version{Path: f[0], Version: f[1]}
		hashes[mv] = append(hashes[mv], f[2])
	}
	for _, d := range r.deps {
		hashes[module.Version{Path: d.path, Version: version}] = []string{d.h1}
		hashes[module.Version{Path: d.path, Version: version + "/go.mod"}] = []string{d.modH1}
	}
	mods := make([]module.Version, 0, len(hashes))
	for mv := range hashes {
		mods = append(mods, mv)
	}
	module.Sort(mods)
	var b strings.Builder
	for _, mv := range mods {
		hs := hashes[mv]
		slices.Sort(hs)
		for _, h := range hs {
			fmt.Fprintf(&b, "%s %s %s\n", mv.Path, mv.Version, h)
		}
	}
	return []byte(b.String()), nil
}

// moduleFiles lists the files of r's zip: those of its directory that a
// module zip holds (no nested module, no VCS directory, no symbolic link)
// and, if committed is not nil, that git would commit; go.mod and go.sum
// as the release has them.
func moduleFiles(root string, r *released, committed map[string]bool) ([]modzip.File, error) {
	dir := filepath.Join(root, filepath.FromSlash(r.dir))
	cf, err := modzip.CheckDir(dir)
	if err != nil {
		return nil, fmt.Errorf("module %s: %w", r.path, err)
	}
	files := []modzip.File{memFile{"go.mod", r.newMod}}
	if r.newSum != nil {
		files = append(files, memFile{"go.sum", r.newSum})
	}
	for _, abs := range cf.Valid {
		rel, err := filepath.Rel(dir, abs)
		if err != nil {
			return nil, err
		}
		rel = filepath.ToSlash(rel)
		switch {
		case rel == "go.mod", rel == "go.sum":
			continue
		case committed == nil && (rel == ".git" || strings.HasPrefix(rel, ".git/")):
			// A linked worktree's .git is a file, which CheckDir keeps.
			continue
		case committed != nil && !committed[path.Join(r.dir, rel)]:
			continue
		}
		info, err := os.Lstat(abs)
		if err != nil {
			return nil, err
		}
		files = append(files, diskFile{rel, abs, info})
	}
	return files, nil
}

// hashZip returns the checksum go.sum records for a module zip.
func hashZip(data []byte) (string, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", err
	}
	byName := map[string]*zip.File{}
	var names []string
	for _, f := range zr.File {
		byName[f.Name] = f
		names = append(names, f.Name)
	}
	return dirhash.Hash1(names, func(name string) (io.ReadCloser, error) {
		return byName[name].Open()
	})
}

// writeTree writes the release's go.mod and go.sum files into the work
// tree and returns those it changed, relative to the root.
func (rel *release) writeTree(root string) ([]string, error) {
	var changed []string
	for _, r := range rel.mods {
		for _, f := range []struct {
			name      string
			old, data []byte
		}{{"go.mod", r.workMod.gomod, r.newMod}, {"go.sum", r.workMod.gosum, r.newSum}} {
			if f.data == nil || bytes.Equal(f.old, f.data) {
				continue
			}
			name := path.Join(r.dir, f.name)
			if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(name)), f.data, 0o666); err != nil {
				return changed, err
			}
			changed = append(changed, name)
		}
	}
	return changed, nil
}

// writeProxy writes the release's modules into dir in the layout of a
// module proxy (the GOPROXY protocol, as GOPROXY=file://dir reads it):
// for each module, @v/VERSION.info, .mod and .zip, and the version in
// @v/list along with any already there.
func (rel *release) writeProxy(dir string) error {
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{rel.version, time.Now().UTC().Truncate(time.Second)})
	if err != nil {
		return err
	}
	for _, r := range rel.mods {
		esc, err := module.EscapePath(r.path)
		if err != nil {
			return err
		}
		vdir := filepath.Join(dir, filepath.FromSlash(esc), "@v")
		if err := os.MkdirAll(vdir, 0o777); err != nil {
			return err
		}
		ev, err := module.EscapeVersion(rel.version)
		if err != nil {
			return err
		}
		for ext, data := range map[string][]byte{".info": info, ".mod": r.newMod, ".zip": r.zip} {
			if err := os.WriteFile(filepath.Join(vdir, ev+ext), data, 0o666); err != nil {
				return err
			}
		}
		list := filepath.Join(vdir, "list")
		old, err := os.ReadFile(list)
		if err != nil && !os.IsNotExist(err) {
			return err
		}
		versions := strings.Fields(string(old))
		if !slices.Contains(versions, rel.version) {
			versions = append(versions, rel.version)
		}
		semver.Sort(versions)
		if err := os.WriteFile(list, []byte(strings.Join(versions, "\n")+"\n"), 0o666); err != nil {
			return err
		}
	}
	return nil
}

// A memFile is a file of a module zip held in memory.
type memFile struct {
	name string
	data []byte
}

// Path implements modzip.File.
func (f memFile) Path() string { return f.name }

// Lstat implements modzip.File.
func (f memFile) Lstat() (fs.FileInfo, error) { return memInfo(f), nil }

// Open implements modzip.File.
func (f memFile) Open() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(f.data)), nil
}

// memInfo is a memFile's fs.FileInfo.
type memInfo memFile

func (i memInfo) Name() string       { return path.Base(i.name) }
func (i memInfo) Size() int64        { return int64(len(i.data)) }
func (i memInfo) Mode() fs.FileMode  { return 0o644 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }

// A diskFile is a file of a module zip read from the work tree.
type diskFile struct {
	name string // slash-separated, relative to the module's root
	abs  string
	info fs.FileInfo
}

// Path implements modzip.File.
func (f diskFile) Path() string { return f.name }

// Lstat implements modzip.File.
func (f diskFile) Lstat() (fs.FileInfo, error) { return f.info, nil }

// Open implements modzip.File.
func (f diskFile) Open() (io.ReadCloser, error) { return os.Open(f.abs) }
