package repotest

import (
	"io/fs"
	"regexp"
	"strconv"
	"strings"
)

// headingPattern is a numbered Markdown heading: "## 3. Pacing engine".
var headingPattern = regexp.MustCompile(`^#{1,6}[ \t]+(\d+)\.[ \t]`)

// document is what a citation can be checked against.
type document struct {
	exists bool
	// sections are the numbers of the numbered headings outside code fences.
	sections map[int]bool
}

// documents reads each cited document once.
type documents struct {
	fsys  fs.FS
	cache map[string]document
}

func newDocuments(fsys fs.FS) *documents {
	return &documents{fsys: fsys, cache: map[string]document{}}
}

// get returns the document at slash path p (relative to the repository
// root).
func (d *documents) get(p string) document {
	if doc, ok := d.cache[p]; ok {
		return doc
	}
	doc := document{}
	info, err := fs.Stat(d.fsys, p)
	if err == nil && !info.IsDir() {
		doc.exists = true
		if b, err := fs.ReadFile(d.fsys, p); err == nil {
			doc.sections = numberedSections(string(b))
		}
	}
	d.cache[p] = doc
	return doc
}

// numberedSections returns the numbers of content's numbered headings,
// ignoring lines inside fenced code blocks, where "## 3." is not a heading.
func numberedSections(content string) map[int]bool {
	out := map[int]bool{}
	fenced := false
	for line := range strings.SplitSeq(content, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		if m := headingPattern.FindStringSubmatch(line); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil {
				out[n] = true
			}
		}
	}
	return out
}
