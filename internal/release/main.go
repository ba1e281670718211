// Command release prepares protolayout's modules for a release and tests
// them as a consumer will see them.
//
// The repository is a core module and nested modules (codec, examples,
// benchmarks, cmd/protolayout, internal/benchreport) that require the core
// and each other. In development their go.mod files require the others at a
// placeholder version and replace them with their directories, and go.work
// at the root reaches them all. A consumer's build ignores replace
// directives in a dependency, and go install refuses a module that has
// them, so a tagged release must require the other modules at the
// release's version, with no replace directive. That commit goes on a
// release branch (docs/release.md): it builds only once its tags are
// published.
//
// Usage, from the repository's root:
//
//	go run ./internal/release -version vX.Y.Z
//	go run ./internal/release -version vX.Y.Z -proxy DIR
//
// The first form rewrites every released module's go.mod to require the
// other modules at vX.Y.Z, drops the replace directives that point at them,
// adds their checksums to go.sum (hashed from the files the tag will hold,
// so the work tree must be committed), and prints the tags to create. The
// tree is then ready to commit and tag.
//
// With -proxy, the tree is left alone: for every released module, DIR gets
// the files GOPROXY=file://DIR reads (@v/list, .info, .mod, .zip), made from
// the work tree with go.mod and go.sum as the first form would write them.
// A fresh module can then `go get` the release before it exists. The
// module's test does that in CI (docs/release.md).
//
// The modules released are those of go.work, except this tool's own module.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

// run parses the command line and does what it asks, printing to out.
func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("release", flag.ContinueOnError)
	version := fs.String("version", "", "the release's version, vX.Y.Z (required)")
	proxy := fs.String("proxy", "", "write a module proxy directory of the work tree here, leaving the tree alone")
	root := fs.String("root", "", "the repository's root (default: the directory of the go.work above the current one)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: go run ./internal/release -version vX.Y.Z [-proxy DIR]\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *version == "" {
		fs.Usage()
		return errors.New("-version is required")
	}
	if *root == "" {
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		r, err := findRoot(wd)
		if err != nil {
			return err
		}
		*root = r
	}
	w, err := loadWorkspace(*root)
	if err != nil {
		return err
	}
	rel, err := w.prepare(*version)
	if err != nil {
		return err
	}
	if *proxy != "" {
		if err := rel.writeProxy(*proxy); err != nil {
			return err
		}
		fmt.Fprintf(out, "wrote %s of %d modules to %s\n", *version, len(rel.mods), *proxy)
		return nil
	}
	if dirty, err := uncommitted(*root); err != nil {
		return err
	} else if dirty != "" {
		return fmt.Errorf("the work tree has uncommitted changes; commit them first, as go.sum gets each module's hash of the files the tag will hold:\n%s", dirty)
	}
	changed, err := rel.writeTree(*root)
	if err != nil {
		return err
	}
	for _, f := range changed {
		fmt.Fprintf(out, "rewrote %s\n", f)
	}
	fmt.Fprintf(out, "\nThe tree is ready for %s. Commit it, then tag that commit and push the tags:\n\n", *version)
	var tags []string
	for _, m := range rel.mods {
		tags = append(tags, m.tag(*version))
	}
	for _, t := range tags {
		fmt.Fprintf(out, "\tgit tag %s\n", t)
	}
	fmt.Fprintf(out, "\tgit push origin %s\n", strings.Join(tags, " "))
	return nil
}

// findRoot returns the nearest directory at or above dir that holds a
// go.work file.
func findRoot(dir string) (string, error) {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, "go.work")); err == nil {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("no go.work in %s or above it; run from the repository or pass -root", dir)
		}
		d = parent
	}
}
