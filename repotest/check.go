package repotest

import (
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
)

// Kind says what is wrong with a reference, so a test can report each kind
// under its own name.
type Kind int

// The kinds of problem.
const (
	// KindCitation is a cited document, section or file that does not exist
	// in the repository, or a citation too ambiguous to resolve.
	KindCitation Kind = iota + 1
	// KindOutside is a reference to a place outside the repository: a
	// fresh clone cannot follow it.
	KindOutside
)

// Problem is one broken reference and where it is.
type Problem struct {
	// File is the slash path from the repository root.
	File string
	// Line is 1-based.
	Line    int
	Kind    Kind
	Message string
}

// String renders the problem as file:line: message, the form editors jump to.
func (p Problem) String() string {
	return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Message)
}

// Report is what Check read and found.
type Report struct {
	// Files is the number of files read.
	Files int
	// References is the number of references resolved, sound or not: a check
	// that read nothing must not pass for one that found nothing wrong.
	References int
	// Problems are sorted by file and line.
	Problems []Problem
}

// Check reads every checked file of the repository fsys (rooted at the
// repository root) and resolves every reference in it against fsys.
func Check(fsys fs.FS) (Report, error) {
	files, err := checkedFiles(fsys)
	if err != nil {
		return Report{}, err
	}
	c := checker{fsys: fsys, docs: newDocuments(fsys), seen: map[Problem]bool{}}
	for _, f := range files {
		b, err := fs.ReadFile(fsys, f)
		if err != nil {
			return Report{}, err
		}
		c.file(f, string(b))
	}
	slices.SortStableFunc(c.report.Problems, func(a, b Problem) int {
		if a.File != b.File {
			return strings.Compare(a.File, b.File)
		}
		return a.Line - b.Line
	})
	c.report.Files = len(files)
	return c.report, nil
}

// checker accumulates one Check.
type checker struct {
	fsys   fs.FS
	docs   *documents
	report Report
	seen   map[Problem]bool
}

// file checks one file's references.
func (c *checker) file(name, content string) {
	t := newText(content)
	markdown := path.Ext(name) == ".md"
	dir := path.Dir(name)
	c.designCitations(name, t)
	c.adrCitations(name, t)
	c.paths(name, dir, t)
	if markdown {
		c.links(name, dir, t)
	} else {
		c.bareNames(name, t)
	}
	c.outside(name, content)
}

// problem records one problem once.
func (c *checker) problem(file string, line int, kind Kind, format string, args ...any) {
	p := Problem{File: file, Line: line, Kind: kind, Message: fmt.Sprintf(format, args...)}
	if !c.seen[p] {
		c.seen[p] = true
		c.report.Problems = append(c.report.Problems, p)
	}
}

// sections checks that every section of a citation exists in doc.
func (c *checker) sections(file string, line int, cited, docPath string, numbers []int) {
	doc := c.docs.get(docPath)
	if !doc.exists {
		c.problem(file, line, KindCitation, "%s: %s does not exist", cited, docPath)
		return
	}
	for _, n := range numbers {
		if !doc.sections[n] {
			c.problem(file, line, KindCitation, "%s: %s has no section %d (its numbered headings: %s)", cited, docPath, n, list(doc.sections))
		}
	}
}

// list renders section numbers in order.
func list(sections map[int]bool) string {
	if len(sections) == 0 {
		return "none"
	}
	var ns []string
	for _, n := range slices.Sorted(maps.Keys(sections)) {
		ns = append(ns, strconv.Itoa(n))
	}
	return strings.Join(ns, ", ")
}
