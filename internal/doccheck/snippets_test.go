package doccheck

import (
	"bufio"
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// snippetDocs are the documents whose Go snippets must be copies of
// Example code: the user's README and the docs beside it.
var snippetDocs = []string{"README.md", "docs/design.md", "benchmarks/README.md"}

// TestSnippetsAreExamples checks that every ```go block of the documents is
// a copy of lines of a runnable Example function somewhere in the
// repository (any module), so that every snippet compiles, runs and is kept
// current by go test. A block matches when its lines, with their common
// indentation removed, appear in that order and contiguous in one Example's
// body, with its common indentation removed.
func TestSnippetsAreExamples(t *testing.T) {
	examples := exampleBodies(t)
	if len(examples) == 0 {
		t.Fatal("no Example functions found")
	}
	blocks := 0
	for _, doc := range snippetDocs {
		data, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			t.Fatal(err)
		}
		for _, b := range goBlocks(data) {
			blocks++
			if !anyContains(examples, b.lines) {
				t.Errorf("%s:%d: this Go snippet is not a copy of lines of any Example function; write it as (part of) an Example and copy it from there:\n%s",
					doc, b.line, strings.Join(b.lines, "\n"))
			}
		}
	}
	if blocks == 0 {
		t.Error("no Go snippets found in the documents; the test would check nothing")
	}
}

// TestSnippetMatching pins the matching rule on small cases.
func TestSnippetMatching(t *testing.T) {
	body := dedent([]string{"\tx := 1", "\tif x > 0 {", "\t\tfmt.Println(x)", "\t}", "\treturn"})
	for _, c := range []struct {
		snippet []string
		want    bool
	}{
		{[]string{"if x > 0 {", "\tfmt.Println(x)", "}"}, true},
		{[]string{"    x := 1"}, true},
		{[]string{"x := 1", "return"}, false}, // not contiguous
		{[]string{"fmt.Println(x)", "x := 1"}, false},
		{[]string{"x := 2"}, false},
		{[]string{"fmt.Println(x)"}, true}, // from inside the if
		{[]string{"fmt.Println(x)", "}"}, false},
		{nil, false},
	} {
		if got := contains(body, dedent(c.snippet)); got != c.want {
			t.Errorf("contains(%q) = %v, want %v", c.snippet, got, c.want)
		}
	}
	doc := []byte("text\n```go\n\ta := 1\n```\n```sh\nls\n```\n```go\nb\n```\n")
	bs := goBlocks(doc)
	if len(bs) != 2 || bs[0].line != 3 || bs[0].lines[0] != "a := 1" || bs[1].lines[0] != "b" {
		t.Errorf("goBlocks = %+v", bs)
	}
}

// block is a ```go block: its first line's number and its lines, dedented.
type block struct {
	line  int
	lines []string
}

// goBlocks returns the ```go blocks of a Markdown document.
func goBlocks(doc []byte) []block {
	var out []block
	var cur *block
	sc := bufio.NewScanner(bytes.NewReader(doc))
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case cur == nil && strings.TrimSpace(line) == "```go":
			cur = &block{line: n + 1}
		case cur != nil && strings.TrimSpace(line) == "```":
			cur.lines = dedent(cur.lines)
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, line)
		}
	}
	return out
}

// exampleBodies returns the body of every Example function in the
// repository's test files, each dedented.
func exampleBodies(t *testing.T) [][]string {
	t.Helper()
	var bodies [][]string
	err := walkRepo(func(path, _ string) error {
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Example") || fn.Body == nil {
				continue
			}
			start := fset.Position(fn.Body.Lbrace).Offset + 1
			end := fset.Position(fn.Body.Rbrace).Offset
			lines := strings.Split(string(src[start:end]), "\n")
			bodies = append(bodies, dedent(lines))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return bodies
}

// dedent removes trailing white space and the indentation common to the
// non-blank lines (tabs, or runs of four spaces counted as one tab), and
// drops leading and trailing blank lines.
func dedent(lines []string) []string {
	norm := make([]string, len(lines))
	for i, l := range lines {
		l = strings.TrimRight(l, " \t")
		// Count leading indentation in tabs; four spaces make a tab.
		depth, rest := 0, l
		for {
			if strings.HasPrefix(rest, "\t") {
				rest, depth = rest[1:], depth+1
			} else if strings.HasPrefix(rest, "    ") {
				rest, depth = rest[4:], depth+1
			} else {
				break
			}
		}
		norm[i] = strings.Repeat("\t", depth) + rest
	}
	for len(norm) > 0 && norm[0] == "" {
		norm = norm[1:]
	}
	for len(norm) > 0 && norm[len(norm)-1] == "" {
		norm = norm[:len(norm)-1]
	}
	common := -1
	for _, l := range norm {
		if l == "" {
			continue
		}
		d := indent(l)
		if common < 0 || d < common {
			common = d
		}
	}
	if common > 0 {
		for i, l := range norm {
			if l != "" {
				norm[i] = l[common:]
			}
		}
	}
	return norm
}

// anyContains reports whether one of the bodies holds the snippet.
func anyContains(bodies [][]string, snippet []string) bool {
	for _, b := range bodies {
		if contains(b, snippet) {
			return true
		}
	}
	return false
}

// contains reports whether snippet's lines appear contiguous in body, all
// indented by the same number of tabs more than in the snippet (a snippet
// may be copied from inside a loop).
func contains(body, snippet []string) bool {
	if len(snippet) == 0 {
		return false
	}
outer:
	for i := 0; i+len(snippet) <= len(body); i++ {
		extra := ""
		if d := indent(body[i]) - indent(snippet[0]); d > 0 {
			extra = strings.Repeat("\t", d)
		}
		for j, l := range snippet {
			want := l
			if l != "" {
				want = extra + l
			}
			if body[i+j] != want {
				continue outer
			}
		}
		return true
	}
	return false
}

// indent is the number of leading tabs of l.
func indent(l string) int { return len(l) - len(strings.TrimLeft(l, "\t")) }
