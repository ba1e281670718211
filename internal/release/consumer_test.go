package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// consumerProgram uses the core's encoder and dynamic packages and the
// codec module's grpccodec, and checks their bytes against proto.Marshal's.
const consumerProgram = `package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/protolayout/protolayout/codec/grpccodec"
	"github.com/protolayout/protolayout/dynamic"
	"github.com/protolayout/protolayout/encoder"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

func main() {
	want, err := proto.Marshal(wrapperspb.String("protolayout"))
	check(err)
	md := wrapperspb.File_google_protobuf_wrappers_proto.Messages().ByName("StringValue")
	m := dynamic.NewMessage(md)
	m.Set(md.Fields().ByName("value"), protoreflect.ValueOfString("protolayout"))
	b, err := encoder.Marshal(m)
	check(err)
	if !bytes.Equal(b, want) {
		check(fmt.Errorf("encoder.Marshal: % x, want % x", b, want))
	}
	c := grpccodec.New(grpccodec.Options{})
	data, err := c.Marshal(m)
	check(err)
	if got := data.Materialize(); !bytes.Equal(got, want) {
		check(fmt.Errorf("grpccodec: % x, want % x", got, want))
	}
	back := dynamic.NewMessage(md)
	check(c.Unmarshal(data, back))
	if !proto.Equal(back, m) {
		check(fmt.Errorf("grpccodec round trip: %v, want %v", back, m))
	}
	fmt.Printf("ok % x\n", b)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
`

// TestConsumer releases the work tree's modules at a test version into a
// module proxy directory and uses them as a consumer will once the version
// is tagged: from a new module outside the repository, with no workspace,
// it runs the README's install lines (go get of the core and the codec
// module, go install of the command), checks that the module graph holds
// the repository's modules at the test version only, builds and runs a
// program that uses encoder, dynamic and codec/grpccodec, runs `protolayout
// help`, and checks that each released module that requires others is
// tidy as its zip holds it (every import required, go.sum with the others'
// checksums at the version).
//
// The go commands share the machine's module and build caches, so that
// the third-party modules come compiled from the other tests; the test
// version is new at each run and its files are removed from the module
// cache at the end.
func TestConsumer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the modules as a consumer does, which takes 15 seconds to a minute and the module proxy; skipped with -short")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	w, err := loadWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	version := fmt.Sprintf("v0.0.0-test.%d", time.Now().UnixNano())
	rel, err := w.prepare(version)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	proxy := filepath.Join(tmp, "proxy")
	if err := rel.writeProxy(proxy); err != nil {
		t.Fatal(err)
	}

	goEnv := func(name string) string {
		out, err := exec.Command("go", "env", name).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", name, err)
		}
		return strings.TrimSpace(string(out))
	}
	upstream, modCache := goEnv("GOPROXY"), goEnv("GOMODCACHE")
	if upstream == "" {
		upstream = "https://proxy.golang.org,direct"
	}
	t.Cleanup(func() {
		if err := removeVersion(modCache, rel); err != nil {
			t.Errorf("removing %s from the module cache: %v", version, err)
		}
	})
	bin := filepath.Join(tmp, "bin")
	env := append(os.Environ(),
		"GOWORK=off",
		"GOFLAGS=",
		"GOPROXY="+fileURL(proxy)+","+upstream,
		"GONOSUMDB="+w.family,
		"GONOPROXY=",
		"GOPRIVATE=",
		"GOBIN="+bin,
	)
	goCmd := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir, cmd.Env = dir, env
		start := time.Now()
		out, err := cmd.CombinedOutput()
		t.Logf("go %s (in %s): %.1fs", strings.Join(args, " "), filepath.Base(dir), time.Since(start).Seconds())
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}

	consumer := filepath.Join(tmp, "consumer")
	if err := os.Mkdir(consumer, 0o777); err != nil {
		t.Fatal(err)
	}
	goCmd(consumer, "mod", "init", "example.com/consumer")
	lines, err := installLines(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range lines {
		goCmd(consumer, args[1:]...)
	}
	for _, p := range []string{w.family, w.family + "/codec"} {
		if got := strings.TrimSpace(goCmd(consumer, "list", "-m", "-f", "{{.Version}}", p)); got != version {
			t.Fatalf("after the README's install lines, the consumer has %s at %q, want %s", p, got, version)
		}
	}

	if err := os.WriteFile(filepath.Join(consumer, "main.go"), []byte(consumerProgram), 0o666); err != nil {
		t.Fatal(err)
	}
	goCmd(consumer, "mod", "tidy")
	// The consumer's module graph holds the repository's modules at the
	// version only: none requires another at any other.
	for line := range strings.Lines(goCmd(consumer, "mod", "graph")) {
		for _, node := range strings.Fields(line) {
			p, v, _ := strings.Cut(node, "@")
			if w.inFamily(p) && v != version {
				t.Errorf("the consumer's module graph has %s: %s", node, strings.TrimSpace(line))
			}
		}
	}
	exe := filepath.Join(tmp, "consumer.exe")
	goCmd(consumer, "build", "-o", exe, ".")
	if out, err := exec.Command(exe).CombinedOutput(); err != nil || !strings.HasPrefix(string(out), "ok ") {
		t.Fatalf("the consumer's program: %v\n%s", err, out)
	}

	name := "protolayout"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	cmd := exec.Command(filepath.Join(bin, name), "help")
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "encode") {
		t.Fatalf("protolayout help, as go install built it: %v\n%s", err, out)
	}

	// Each module with requirements on the others, as its zip holds it
	// (and its tag will), is tidy: go.mod and go.sum as go mod tidy writes
	// them, with the others at the version.
	for _, r := range rel.mods {
		if len(r.deps) == 0 {
			continue
		}
		dir := filepath.Join(tmp, "tidy", filepath.FromSlash(r.dir))
		mv := module.Version{Path: r.path, Version: version}
		zipFile := filepath.Join(tmp, "module.zip")
		if err := os.WriteFile(zipFile, r.zip, 0o666); err != nil {
			t.Fatal(err)
		}
		if err := modzip.Unzip(dir, mv, zipFile); err != nil {
			t.Fatal(err)
		}
		goCmd(dir, "mod", "tidy", "-diff")
	}
}

// installLines returns the commands of the README's Install section: the
// go get and go install lines of its first sh block, each split into words,
// without comments.
func installLines(readme string) ([][]string, error) {
	f, err := os.Open(readme)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines [][]string
	section, block := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			section = line == "## Install"
		case !section:
		case line == "```sh":
			block = true
		case block && line == "```":
			if len(lines) == 0 {
				return nil, fmt.Errorf("%s: the Install section's sh block has no command", readme)
			}
			return lines, checkInstall(readme, lines)
		case block:
			words := strings.Fields(strings.SplitN(line, "#", 2)[0])
			if len(words) == 0 {
				continue
			}
			if len(words) < 3 || words[0] != "go" || (words[1] != "get" && words[1] != "install") {
				return nil, fmt.Errorf("%s: %q in the Install section: the release test runs only go get and go install lines", readme, line)
			}
			lines = append(lines, words)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("%s: no sh block in a section named Install", readme)
}

// checkInstall reports whether the install lines get the core and the
// codec module and install the command, each at its latest version.
func checkInstall(readme string, lines [][]string) error {
	var got []string
	for _, l := range lines {
		got = append(got, strings.Join(l, " "))
	}
	for _, want := range []string{
		"go get github.com/protolayout/protolayout",
		"go get github.com/protolayout/protolayout/codec",
		"go install github.com/protolayout/protolayout/cmd/protolayout@latest",
	} {
		if !slices.Contains(got, want) {
			return fmt.Errorf("%s: the Install section lacks %q, which the release test checks", readme, want)
		}
	}
	return nil
}

// fileURL returns the file:// URL of an absolute path, as GOPROXY takes it.
func fileURL(path string) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows path: file:///C:/...
	}
	return "file://" + p
}

// removeVersion removes the release's modules from the module cache at
// modCache: the extracted directories, which the go command makes read-only,
// and the downloaded files, including the version in the cached @v/list.
func removeVersion(modCache string, rel *release) error {
	var errs []error
	for _, r := range rel.mods {
		esc, err := module.EscapePath(r.path)
		if err != nil {
			return err
		}
		ev, err := module.EscapeVersion(rel.version)
		if err != nil {
			return err
		}
		extracted := filepath.Join(modCache, filepath.FromSlash(esc)+"@"+ev)
		if _, err := os.Stat(extracted); err == nil {
			filepath.WalkDir(extracted, func(p string, d os.DirEntry, err error) error {
				if err == nil && d.IsDir() {
					os.Chmod(p, 0o755)
				}
				return nil
			})
			errs = append(errs, os.RemoveAll(extracted))
		}
		vdir := filepath.Join(modCache, "cache", "download", filepath.FromSlash(esc), "@v")
		entries, _ := os.ReadDir(vdir)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ev+".") {
				errs = append(errs, os.Remove(filepath.Join(vdir, e.Name())))
			}
		}
		list := filepath.Join(vdir, "list")
		if data, err := os.ReadFile(list); err == nil {
			var keep []string
			for v := range strings.FieldsSeq(string(data)) {
				if v != rel.version {
					keep = append(keep, v)
				}
			}
			if len(keep) == 0 {
				errs = append(errs, os.Remove(list))
			} else {
				errs = append(errs, os.WriteFile(list, []byte(strings.Join(keep, "\n")+"\n"), 0o666))
			}
		}
		// Leave no empty directory behind.
		removeEmpty(filepath.Dir(extracted), modCache)
		removeEmpty(vdir, filepath.Join(modCache, "cache", "download"))
	}
	return errors.Join(errs...)
}

// removeEmpty removes dir and its parents up to top (excluded) while they
// are empty.
func removeEmpty(dir, top string) {
	for d := dir; d != top && strings.HasPrefix(d, top); d = filepath.Dir(d) {
		if os.Remove(d) != nil {
			return
		}
	}
}
