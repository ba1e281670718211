package inlinetest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// barrierFree lists, per file of internal/slots, the functions whose
// inlined copies must store no pointer: a decode cuts a message (or a
// block) with them for every message it makes, and while the collector
// marks, every pointer stored takes a write barrier.
var barrierFree = map[string][]string{
	"slots.go": {"Cut", "CutHeaded", "Spent"},
}

func TestCutsStoreNoPointer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the engine with -gcflags=-d=wb")
	}
	// The engine inlines the cuts: the compiler reports a barrier of an
	// inlined copy at the line of the function it copied.
	out, err := exec.Command("go", "build", "-gcflags=github.com/protolayout/protolayout/internal/engine=-d=wb",
		"github.com/protolayout/protolayout/internal/engine").CombinedOutput()
	if err != nil {
		t.Fatalf("go build -gcflags=-d=wb: %v\n%s", err, out)
	}
	barriers := map[string][]int{}
	re := regexp.MustCompile(`(?m)([^\s:]+\.go):(\d+):\d+: write barrier$`)
	for _, m := range re.FindAllStringSubmatch(string(out), -1) {
		if filepath.Base(filepath.Dir(m[1])) != "slots" {
			continue
		}
		line, _ := strconv.Atoi(m[2])
		barriers[filepath.Base(m[1])] = append(barriers[filepath.Base(m[1])], line)
	}
	if !re.Match(out) {
		t.Fatalf("the build reported no write barrier at all: is -d=wb still the flag that reports them?\n%s", out)
	}
	for file, fns := range barrierFree {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, filepath.Join("..", "slots", file), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range fns {
			var fn *ast.FuncDecl
			for _, d := range f.Decls {
				if d, ok := d.(*ast.FuncDecl); ok && d.Name.Name == name {
					fn = d
				}
			}
			if fn == nil {
				t.Errorf("%s: no function %s", file, name)
				continue
			}
			from, to := fset.Position(fn.Pos()).Line, fset.Position(fn.End()).Line
			for _, line := range barriers[file] {
				if line >= from && line <= to {
					t.Errorf("%s:%d: a write barrier in %s, which the engine inlines for every message it cuts", file, line, name)
				}
			}
		}
	}
	if t.Failed() {
		t.Logf("the compiler's report:\n%s", strings.TrimSpace(string(out)))
	}
}
