package doccheck

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// root is the module root, from this package's directory.
const root = "../.."

const (
	semantics = "docs/semantics.md"
	checklist = "encoder/checklist_test.go"
	self      = "internal/doccheck"
)

var (
	// url matches a web address, whose path is not a citation.
	url = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s)>\]"'` + "`" + `]*`)
	// citation matches a document name, with the character before it (to
	// tell a name from the tail of a longer one), and an anchor.
	citation = regexp.MustCompile(`(^|[^\w./-])((?:\.\.?/)*(?:[\w-][\w.-]*/)*[\w-][\w.-]*\.md)\b(#[\w-]+)?`)
	// partWords matches a part of a document cited by words after its name.
	partWords = regexp.MustCompile(`^[,:]?\s*(?:(?:item|section|part|chapter)s?\s*|§\s*)\d+`)
	// looseItem matches "checklist item 5", "checklist items 27 to 29".
	looseItem = regexp.MustCompile(`(?i)\bchecklist\s+items?\s+(\d+(?:(?:\s*,\s*|\s+and\s+|\s+or\s+|\s+to\s+|\s*-\s*)\d+)*)`)
	number    = regexp.MustCompile(`\d+`)
	// testName matches a checklist test's name, or the start of one.
	testName = regexp.MustCompile(`\bTestChecklist(\d+)(\w*)`)
	// selfLink matches a Markdown link to an anchor of the same file.
	selfLink = regexp.MustCompile(`\]\(#([^)\s]+)\)`)
	// anchorTag matches an explicit HTML anchor.
	anchorTag = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
	// heading matches a Markdown heading.
	heading = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	// itemHeading matches a checklist item's heading.
	itemHeading = regexp.MustCompile(`^###\s+(\d+)\.\s`)
	// itemAnchor matches a checklist item's anchor.
	itemAnchor = regexp.MustCompile(`^<a id="item-(\d+)"></a>\s*$`)
)

// line is one line of text to search, with where it comes from.
type line struct {
	file string // from the module root, slash-separated
	num  int
	text string
}

func (l line) String() string { return l.file + ":" + strconv.Itoa(l.num) }

// checker holds what the checks share: the documents read so far and the
// checklist.
type checker struct {
	t          *testing.T
	anchors    map[string]map[string]bool // by file from the root; nil if absent
	items      map[int]bool               // checklist items of docs/semantics.md
	itemBodies []itemBody                 // their texts, in order
	tests      map[int]string             // TestChecklistNN functions by number
	testLines  []testLine                 // where they are declared
}

// itemBody is the text of a checklist item, after its heading.
type itemBody struct {
	num, line int // line of the heading
	text      string
}

// testLine is where a checklist test is declared.
type testLine struct{ num, line int }

func TestCitations(t *testing.T) {
	if mod, err := os.ReadFile(filepath.Join(root, "go.mod")); err != nil || !bytes.HasPrefix(mod, []byte("module github.com/protolayout/protolayout\n")) {
		t.Fatalf("%s is not the module root: %v", root, err)
	}
	c := &checker{t: t, anchors: map[string]map[string]bool{}}
	c.checklistItems()
	c.checklistTests()
	c.correspond()

	lines := c.collect()
	for _, l := range lines {
		c.checkLine(l)
	}
	// The walk must have reached the checklist tests' own citation.
	if !slices.ContainsFunc(lines, func(l line) bool {
		return l.file == checklist && strings.Contains(l.text, semantics+"#checklist")
	}) {
		t.Errorf("%s: its header does not cite %s#checklist (or the walk missed it)", checklist, semantics)
	}
}

// collect walks the repository and returns the lines to search: the
// comments of .go files and all of .md and .yml files.
func (c *checker) collect() []line {
	var out []line
	err := walkRepo(func(p, rel string) error {
		if strings.HasPrefix(rel, self+"/") {
			return nil
		}
		switch path.Ext(rel) {
		case ".go":
			out = append(out, c.goComments(p, rel)...)
		case ".md", ".yml", ".yaml":
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for i, s := range strings.Split(string(src), "\n") {
				out = append(out, line{rel, i + 1, s})
			}
		}
		return nil
	})
	if err != nil {
		c.t.Fatal(err)
	}
	return out
}

// walkRepo calls fn with the path and the slash-separated path from the
// repository root of every file of the repository, every module's,
// skipping .git and testdata directories.
func walkRepo(fn func(p, rel string) error) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == ".git" || name == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		return fn(p, filepath.ToSlash(rel))
	})
}

// goComments returns the lines of the comments in the Go file at p.
func (c *checker) goComments(p, rel string) []line {
	src, err := os.ReadFile(p)
	if err != nil {
		c.t.Fatal(err)
	}
	if !bytes.Contains(src, []byte(".md")) && !bytes.Contains(src, []byte("hecklist")) {
		return nil // nothing to find; skip the scan
	}
	fset := token.NewFileSet()
	f := fset.AddFile(rel, -1, len(src))
	var s scanner.Scanner
	s.Init(f, src, nil, scanner.ScanComments)
	var out []line
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return out
		}
		if tok != token.COMMENT {
			continue
		}
		start := fset.Position(pos).Line
		for i, text := range strings.Split(lit, "\n") {
			out = append(out, line{rel, start + i, text})
		}
	}
}

// checkLine checks every citation in l.
func (c *checker) checkLine(l line) {
	text := url.ReplaceAllStringFunc(l.text, func(u string) string { return strings.Repeat(" ", len(u)) })
	for _, m := range citation.FindAllStringSubmatchIndex(text, -1) {
		name, anchor := text[m[4]:m[5]], ""
		if m[6] >= 0 {
			anchor = text[m[6]+1 : m[7]]
		}
		doc, ok := c.resolve(l.file, name)
		switch {
		case !ok:
			c.t.Errorf("%s: cites %s, which is not in the repository", l, name)
		case anchor != "" && !c.anchorsOf(doc)[anchor]:
			c.t.Errorf("%s: cites %s#%s, but %s has no anchor %q%s", l, name, anchor, doc, anchor, c.hint(doc, anchor))
		case partWords.MatchString(text[m[1]:]):
			words := partWords.FindString(text[m[1]:])
			c.t.Errorf("%s: cites a part of %s by words (%q); cite it by its anchor, as in %s#item-14 or %s#checklist",
				l, name, text[m[4]:m[1]]+words, semantics, semantics)
		}
	}
	if strings.HasSuffix(l.file, ".md") {
		for _, m := range selfLink.FindAllStringSubmatch(text, -1) {
			if !c.anchorsOf(l.file)[m[1]] {
				c.t.Errorf("%s: links to #%s, but %s has no such anchor", l, m[1], l.file)
			}
		}
	}
	for _, m := range looseItem.FindAllStringSubmatch(text, -1) {
		for _, n := range number.FindAllString(m[1], -1) {
			if k, _ := strconv.Atoi(n); !c.items[k] {
				c.t.Errorf("%s: %q refers to item %s, which the checklist of %s does not have", l, m[0], n, semantics)
			}
		}
	}
	for _, m := range testName.FindAllStringSubmatch(text, -1) {
		k, _ := strconv.Atoi(m[1])
		name, ok := c.tests[k]
		switch {
		case !ok:
			c.t.Errorf("%s: names %s, but %s has no TestChecklist%02d", l, m[0], checklist, k)
		case m[2] != "" && m[0] != name:
			c.t.Errorf("%s: names %s, but the test is %s", l, m[0], name)
		}
	}
}

// hint suggests the anchors of a checklist item for a near miss.
func (c *checker) hint(doc, anchor string) string {
	if doc != semantics || !strings.HasPrefix(anchor, "item-") || len(c.items) == 0 {
		return ""
	}
	return fmt.Sprintf(" (the checklist has item-1 to item-%d, no leading zeros)", slices.Max(slices.Collect(maps.Keys(c.items))))
}

// resolve finds the document name cited from file, from the module root or
// from file's directory, and returns its path from the root.
func (c *checker) resolve(file, name string) (string, bool) {
	for _, p := range []string{path.Clean(name), path.Join(path.Dir(file), name)} {
		if p == ".." || strings.HasPrefix(p, "../") {
			continue
		}
		if c.anchorsOf(p) != nil {
			return p, true
		}
	}
	return "", false
}

// anchorsOf returns the anchors of the Markdown file at p (from the root),
// or nil if there is no such file.
func (c *checker) anchorsOf(p string) map[string]bool {
	if a, ok := c.anchors[p]; ok {
		return a
	}
	var a map[string]bool
	if src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p))); err == nil {
		a = anchorsIn(string(src))
	}
	c.anchors[p] = a
	return a
}

// anchorsIn returns the anchors of a Markdown text: its explicit <a id>
// and <a name> anchors and the anchors GitHub gives its headings.
func anchorsIn(src string) map[string]bool {
	a := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, s := range strings.Split(src, "\n") {
		if t := strings.TrimSpace(s); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range anchorTag.FindAllStringSubmatch(s, -1) {
			a[m[1]] = true
		}
		if m := heading.FindStringSubmatch(s); m != nil {
			slug := slugOf(m[1])
			if n := seen[slug]; n > 0 {
				a[slug+"-"+strconv.Itoa(n)] = true
			} else {
				a[slug] = true
			}
			seen[slug]++
		}
	}
	return a
}

// slugOf is GitHub's anchor for a heading: lower case, punctuation dropped
// (but hyphens and underscores), spaces turned into hyphens.
func slugOf(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// checklistItems reads the checklist of docs/semantics.md into c.items and
// c.itemBodies, and checks its shape.
func (c *checker) checklistItems() {
	src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(semantics)))
	if err != nil {
		c.t.Fatalf("the checklist: %v", err)
	}
	c.items = map[int]bool{}
	lines := strings.Split(string(src), "\n")
	start := slices.IndexFunc(lines, func(s string) bool { return strings.TrimSpace(s) == "## Checklist" })
	if start < 0 {
		c.t.Fatalf("%s: no \"## Checklist\" section", semantics)
	}
	if start == 0 || strings.TrimSpace(lines[start-1]) != `<a id="checklist"></a>` {
		c.t.Errorf("%s:%d: the checklist section has no <a id=\"checklist\"></a> anchor on the line before it", semantics, start+1)
	}
	next := 0
	anchorAt := map[int]int{} // item number by line index of its anchor
	for i := start + 1; i < len(lines); i++ {
		s := lines[i]
		if strings.HasPrefix(s, "## ") {
			break
		}
		if m := itemAnchor.FindStringSubmatch(s); m != nil {
			k, _ := strconv.Atoi(m[1])
			anchorAt[i] = k
			continue
		}
		m := itemHeading.FindStringSubmatch(s)
		if m == nil {
			if strings.HasPrefix(s, "### ") {
				c.t.Errorf("%s:%d: checklist heading %q is not of the form \"### N. title\"", semantics, i+1, s)
			}
			continue
		}
		k, _ := strconv.Atoi(m[1])
		next++
		if k != next {
			c.t.Errorf("%s:%d: checklist item %d where item %d was expected (items are numbered 1, 2, 3 ... in order)", semantics, i+1, k, next)
		}
		if c.items[k] {
			c.t.Errorf("%s:%d: checklist item %d appears twice", semantics, i+1, k)
		}
		c.items[k] = true
		if a, ok := anchorAt[i-1]; !ok || a != k {
			c.t.Errorf("%s:%d: item %d has no <a id=\"item-%d\"></a> anchor on the line before its heading", semantics, i+1, k, k)
		}
		delete(anchorAt, i-1)
		c.itemBodies = append(c.itemBodies, itemBody{k, i + 1, itemText(lines[i+1:])})
	}
	for i, k := range anchorAt {
		c.t.Errorf("%s:%d: anchor item-%d is not followed by the item's heading", semantics, i+1, k)
	}
	if len(c.items) == 0 {
		c.t.Errorf("%s:%d: the checklist has no items", semantics, start+1)
	}
}

// itemText returns the text of an item, from the lines after its heading
// to the next item or section.
func itemText(lines []string) string {
	end := slices.IndexFunc(lines, func(s string) bool {
		return strings.HasPrefix(s, "#") || itemAnchor.MatchString(s)
	})
	if end < 0 {
		end = len(lines)
	}
	return strings.Join(lines[:end], "\n")
}

// checklistTests reads the TestChecklistNN functions of
// encoder/checklist_test.go into c.tests and c.testLines.
func (c *checker) checklistTests() {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filepath.Join(root, filepath.FromSlash(checklist)), nil, parser.SkipObjectResolution)
	if err != nil {
		c.t.Fatalf("the checklist tests: %v", err)
	}
	c.tests = map[int]string{}
	name := regexp.MustCompile(`^TestChecklist(\d\d)[A-Z]\w*$`)
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv != nil || !strings.HasPrefix(fd.Name.Name, "TestChecklist") {
			continue
		}
		at := fset.Position(fd.Pos()).Line
		m := name.FindStringSubmatch(fd.Name.Name)
		if m == nil {
			c.t.Errorf("%s:%d: %s is not named TestChecklistNN<What> with a two-digit item number", checklist, at, fd.Name.Name)
			continue
		}
		k, _ := strconv.Atoi(m[1])
		if prev, dup := c.tests[k]; dup {
			c.t.Errorf("%s:%d: %s and %s share item number %d", checklist, at, prev, fd.Name.Name, k)
			continue
		}
		c.tests[k] = fd.Name.Name
		c.testLines = append(c.testLines, testLine{k, at})
	}
	if len(c.tests) == 0 {
		c.t.Errorf("%s: no TestChecklistNN functions", checklist)
	}
}

// correspond checks that checklist items and tests correspond one to one,
// and that each item names its test.
func (c *checker) correspond() {
	for _, it := range c.itemBodies {
		name, ok := c.tests[it.num]
		if !ok {
			c.t.Errorf("%s:%d: item %d has no test TestChecklist%02d... in %s", semantics, it.line, it.num, it.num, checklist)
			continue
		}
		if !regexp.MustCompile(`\b` + name + `\b`).MatchString(it.text) {
			c.t.Errorf("%s:%d: item %d does not name its test %s", semantics, it.line, it.num, name)
		}
	}
	for _, tl := range c.testLines {
		if !c.items[tl.num] {
			c.t.Errorf("%s:%d: %s has no item %d in %s#checklist", checklist, tl.line, c.tests[tl.num], tl.num, semantics)
		}
	}
}
