package repotest

import (
	"io/fs"
	"path"
	"strings"
)

// checkedExts are the files whose text can cite a document.
var checkedExts = map[string]bool{".go": true, ".proto": true, ".ts": true, ".md": true}

// skippedDirs are directory names never read: fixtures and recordings
// (testdata), installed or vendored third-party code (node_modules, vendor).
// Directories whose name starts with a dot (.git, .tools, a dev data dir)
// are skipped too, and so is generated code (generatedDirs).
var skippedDirs = map[string]bool{"testdata": true, "node_modules": true, "vendor": true}

// generatedDirs hold generated code: the committed Go of the contracts and
// the TypeScript the client builds write (ignored by git). Their comments
// are copies of the .proto files', which are checked at the source; a stale
// build output must not fail the check.
var generatedDirs = map[string]bool{
	"proto/gen":           true,
	"clients/ts/gen":      true,
	"clients/web/src/gen": true,
	"clients/web/dist":    true,
}

// checkedFiles lists, in walk order, the slash paths of fsys that Check
// reads.
func checkedFiles(fsys fs.FS) ([]string, error) {
	var out []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && (strings.HasPrefix(d.Name(), ".") || skippedDirs[d.Name()] || generatedDirs[p]) {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && checkedExts[path.Ext(p)] {
			out = append(out, p)
		}
		return nil
	})
	return out, err
}

// text is a file's content as one string in which every line's comment
// marker and indentation are removed and the lines are joined by a space, so
// a citation broken across comment lines ("DOMAIN" at the end of one, "§3"
// at the start of the next) reads as one. starts maps offsets back to lines.
type text struct {
	joined string
	starts []int // starts[i] is the offset in joined of line i+1
}

// commentPrefixes are stripped from the start of a line, longest first.
var commentPrefixes = []string{"/**", "/*", "*/", "///", "//", "*", "#"}

// newText joins content's lines as described on text.
func newText(content string) text {
	lines := strings.Split(content, "\n")
	var b strings.Builder
	t := text{starts: make([]int, len(lines))}
	for i, line := range lines {
		line = strings.TrimSpace(line)
		for _, p := range commentPrefixes {
			if rest, ok := strings.CutPrefix(line, p); ok {
				line = strings.TrimSpace(rest)
				break
			}
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		t.starts[i] = b.Len()
		b.WriteString(line)
	}
	t.joined = b.String()
	return t
}

// line is the 1-based line holding offset off of joined.
func (t text) line(off int) int {
	lo, hi := 0, len(t.starts)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if t.starts[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo + 1
}
