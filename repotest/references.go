package repotest

import (
	"io/fs"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// designDocs are the documents cited by short name ("DOMAIN §n").
var designDocs = map[string]string{
	"ARCHITECTURE": "docs/design/ARCHITECTURE.md",
	"DOMAIN":       "docs/design/DOMAIN.md",
	"MCP":          "docs/design/MCP.md",
}

// adrDir holds the design records, one file per number: NNN-title.md.
const adrDir = "docs/design/adr"

// sectionList is "§n", optionally followed by more sections or a range
// ("§5–§7", "§3, §6", "§3 and §5").
const sectionList = `§\d+(?:[ \t]*(?:[–-]|,|and|or)[ \t]*§\d+)*`

var (
	designPattern = regexp.MustCompile(`\b(ARCHITECTURE|DOMAIN|MCP)[ \t]+(` + sectionList + `)`)
	adrPattern    = regexp.MustCompile(`\bADR-(\d+)\b(?:[ \t]+(` + sectionList + `))?`)
	// pathPattern is a path of a Markdown file with at least one slash,
	// after a space, a bracket, a quote or a backtick (so not inside a URL),
	// with an optional section.
	pathPattern = regexp.MustCompile("(?:^|[\\s(\\[<\"'`*|,;=])" +
		`((?:\.\.?/)+[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)*\.md|[A-Za-z0-9_][A-Za-z0-9_.-]*(?:/[A-Za-z0-9_.-]+)+\.md)\b` +
		`(?:[ \t]+(` + sectionList + `))?`)
	// linkPattern is a Markdown link to a Markdown file.
	linkPattern = regexp.MustCompile(`\]\(([^)\s#]*\.md)(?:#[^)\s]*)?\)`)
	// barePattern is a design document's file name with no directory.
	barePattern = regexp.MustCompile(`(?:^|[^A-Za-z0-9_./-])((?:ARCHITECTURE|DOMAIN|MCP)\.md)\b`)
	// outsidePattern is a reference to the material Roadbook was designed
	// from, which lives beside the repository and not in it: the parent
	// directory's "shared" folder, by relative or absolute path, or its
	// design, seeds and fixtures folders. ([s] keeps this line from matching
	// itself.)
	outsidePattern = regexp.MustCompile(`\.\./shared\b|/work/[s]hared\b|\bshared/(?:design|seeds|fixtures)\b`)
	sectionNumber  = regexp.MustCompile(`§(\d+)`)
)

// numbers are the section numbers of a section list ("§5–§7" → 5, 7).
func numbers(list string) []int {
	var out []int
	for _, m := range sectionNumber.FindAllStringSubmatch(list, -1) {
		if n, err := strconv.Atoi(m[1]); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// designCitations checks "DOMAIN §n", "ARCHITECTURE §n" and "MCP §n".
func (c *checker) designCitations(file string, t text) {
	for _, m := range designPattern.FindAllStringSubmatchIndex(t.joined, -1) {
		name, list := t.joined[m[2]:m[3]], t.joined[m[4]:m[5]]
		c.report.References++
		c.sections(file, t.line(m[0]), name+" "+list, designDocs[name], numbers(list))
	}
}

// adrCitations checks "ADR-nnn" and "ADR-nnn §n".
func (c *checker) adrCitations(file string, t text) {
	for _, m := range adrPattern.FindAllStringSubmatchIndex(t.joined, -1) {
		num := t.joined[m[2]:m[3]]
		line := t.line(m[0])
		cited := "ADR-" + num
		c.report.References++
		matches, _ := fs.Glob(c.fsys, adrDir+"/"+num+"-*.md")
		if len(matches) != 1 {
			c.problem(file, line, KindCitation, "%s: want exactly one %s/%s-*.md, found %d", cited, adrDir, num, len(matches))
			continue
		}
		if m[4] >= 0 {
			list := t.joined[m[4]:m[5]]
			c.sections(file, line, cited+" "+list, matches[0], numbers(list))
		}
	}
}

// paths checks repository paths of Markdown files ("docs/ALERTS.md", or one
// followed by a section, "§n"). A path starting with ./ or ../ is relative to the
// citing file; any other is looked up from the citing file's directory and
// then from each directory above it, up to the repository root.
func (c *checker) paths(file, dir string, t text) {
	for _, m := range pathPattern.FindAllStringSubmatchIndex(t.joined, -1) {
		start := m[2]
		if start >= 2 && t.joined[start-2:start] == "](" {
			continue // a Markdown link: links checks it, relative to the file
		}
		p := t.joined[m[2]:m[3]]
		line := t.line(start)
		c.report.References++
		resolved, ok := c.resolve(dir, p)
		if !ok {
			if resolved == "" {
				c.problem(file, line, KindOutside, "%s points outside the repository", p)
			} else {
				c.problem(file, line, KindCitation, "%s: no such file from %s/ or any directory above it", p, dir)
			}
			continue
		}
		if m[4] >= 0 {
			list := t.joined[m[4]:m[5]]
			c.sections(file, line, p+" "+list, resolved, numbers(list))
		}
	}
}

// resolve finds p as described on paths. It returns the repository path and
// true, or "" and false when p leaves the repository, or a non-empty guess
// and false when no file exists.
func (c *checker) resolve(dir, p string) (string, bool) {
	if strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") {
		j := path.Join(dir, p)
		if j == ".." || strings.HasPrefix(j, "../") {
			return "", false
		}
		return j, c.docs.get(j).exists
	}
	for d := dir; ; d = path.Dir(d) {
		j := path.Join(d, p)
		if c.docs.get(j).exists {
			return j, true
		}
		if d == "." {
			return p, false
		}
	}
}

// links checks a Markdown file's links to Markdown files, relative to the
// file as a renderer resolves them.
func (c *checker) links(file, dir string, t text) {
	for _, m := range linkPattern.FindAllStringSubmatchIndex(t.joined, -1) {
		target := t.joined[m[2]:m[3]]
		if strings.Contains(target, "://") {
			continue // a URL
		}
		line := t.line(m[0])
		c.report.References++
		j := path.Join(dir, target)
		if strings.HasPrefix(target, "/") {
			j = strings.TrimPrefix(target, "/")
		}
		switch {
		case j == ".." || strings.HasPrefix(j, "../"):
			c.problem(file, line, KindOutside, "link %s points outside the repository", target)
		case !c.docs.get(j).exists:
			c.problem(file, line, KindCitation, "link %s: no such file %s", target, j)
		}
	}
}

// bareNames refuses the file name of a design document without its
// directory in code: two documents are called MCP (docs/MCP.md, the how-to,
// and docs/design/MCP.md, the contract), and a bare name resolves nowhere.
func (c *checker) bareNames(file string, t text) {
	for _, m := range barePattern.FindAllStringSubmatchIndex(t.joined, -1) {
		name := t.joined[m[2]:m[3]]
		short := strings.TrimSuffix(name, ".md")
		c.report.References++
		c.problem(file, t.line(m[2]), KindCitation, "%s names no document: cite docs/design/%s, or a section as %q", name, name, short+" §n")
	}
}

// outside refuses references to the design material that lives beside the
// repository (outsidePattern): a clone does not have it.
func (c *checker) outside(file, content string) {
	for i, line := range strings.Split(content, "\n") {
		if m := outsidePattern.FindString(line); m != "" {
			c.problem(file, i+1, KindOutside, "refers to %s, outside the repository: bring what is needed into the repository and cite it there", m)
		}
	}
}
