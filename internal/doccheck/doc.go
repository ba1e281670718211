// Package doccheck holds the tests that keep the repository's documents
// true to it; it has no code of its own. One keeps the citations of its own
// documents resolving (below); the other, TestSnippetsAreExamples, holds
// every ```go block of README.md, docs/design.md and benchmarks/README.md
// to the lines of a runnable Example function somewhere in the repository,
// so that every snippet compiles and runs under go test.
//
// # Citations
//
// The test walks the repository from the module root (every module in it:
// benchmarks/, codec/ and examples/ too), skipping .git and testdata
// directories and this package, and reads the comments of .go files and
// the whole text of .md and .yml files. It fails, naming file:line and what
// is missing, when
//
//   - a cited document does not exist: any name ending in .md, such as
//     docs/semantics.md or a bare DESIGN.md, is a citation; it is looked up
//     from the module root and from the citing file's directory (so a
//     Markdown link relative to its file works), and web addresses are not
//     citations;
//   - a citation's anchor, as in docs/semantics.md#utf8, is not in the
//     cited document (an explicit <a id="..."> or a heading's GitHub
//     anchor), or a Markdown link to #anchor in the same file has none;
//   - a part of a document is cited any other way than by its anchor, such
//     as a document name followed by "item 14" or "section 2";
//   - "checklist item N", or a TestChecklistNN name in a comment, refers to
//     an item or a test that does not exist;
//   - the checklist of docs/semantics.md and the TestChecklistNN functions
//     of encoder/checklist_test.go do not correspond one to one: items are
//     numbered 1, 2, 3 ... in order, each under an <a id="item-N"> anchor
//     and a "### N. title" heading, each naming its test by its full name,
//     and each TestChecklistNN function has the item numbered NN.
//
// # Citation syntax
//
// Cite a repository document by its path from the module root, and a part
// of it by an anchor:
//
//	docs/semantics.md                the document
//	docs/semantics.md#checklist      a section, by its explicit anchor
//	docs/semantics.md#item-14        item 14 of the must-match checklist
//
// Item anchors have no leading zero (item-7, not item-07), while the test
// names do (TestChecklist07...).
package doccheck
