package repotest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/repotest"
)

// repoRoot is the repository this module sits in.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(root, "go.work"))
	require.NoError(t, err, "repotest must sit one directory below the repository root (go.work)")
	return root
}

// kind keeps the problems of one kind.
func kind(ps []repotest.Problem, k repotest.Kind) []string {
	var out []string
	for _, p := range ps {
		if p.Kind == k {
			out = append(out, p.String())
		}
	}
	return out
}

func TestRepositoryReferences(t *testing.T) {
	t.Parallel()
	rep, err := repotest.Check(os.DirFS(repoRoot(t)))
	require.NoError(t, err)

	t.Run("the check reads the repository's files and finds their citations", func(t *testing.T) {
		t.Parallel()
		// A wrong root or an over-broad exclusion would read nothing and
		// find nothing wrong; the tree holds hundreds of files and about
		// two hundred citations.
		t.Logf("read %d files, resolved %d references", rep.Files, rep.References)
		require.Greater(t, rep.Files, 500, "files read")
		require.Greater(t, rep.References, 150, "references resolved")
	})

	t.Run("every cited document and numbered section exists in the repository", func(t *testing.T) {
		t.Parallel()
		if broken := kind(rep.Problems, repotest.KindCitation); len(broken) > 0 {
			t.Fatalf("%d references resolve nowhere; fix the citation or the document:\n%s", len(broken), strings.Join(broken, "\n"))
		}
	})

	t.Run("nothing refers to a place outside the repository", func(t *testing.T) {
		t.Parallel()
		if outside := kind(rep.Problems, repotest.KindOutside); len(outside) > 0 {
			t.Fatalf("%d references point outside the repository, where a fresh clone cannot follow them:\n%s", len(outside), strings.Join(outside, "\n"))
		}
	})
}

// TestCheckFindsBrokenReferences runs Check over small synthetic
// repositories (testdata/cases/*.txtar): each archive holds the files of one
// repository and, in its comment, the problems Check must report, one
// "want: file:line: substring of the message" line each (none: it must
// report nothing).
func TestCheckFindsBrokenReferences(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, archive string }{
		{"a section the cited document lacks is reported with its file and line", "missing_section"},
		{"a design document that does not exist is reported", "missing_document"},
		{"a repository path to a missing file is reported, and its section is checked", "missing_path"},
		{"a missing ADR and a missing ADR section are reported", "missing_adr"},
		{"a citation broken across comment lines is read as one", "split_citation"},
		{"both ends of a section range are checked", "section_range"},
		{"a numbered heading inside a code fence is not a section", "fenced_heading"},
		{"a Markdown link to a missing file is reported relative to the linking file", "markdown_link"},
		{"references to the design material beside the repository are reported as outside it", "outside"},
		{"a bare design document name in code is reported as naming no document", "bare_name"},
		{"testdata, node_modules, vendor, generated code and dot directories are not read", "skipped_dirs"},
		{"citations that resolve report nothing", "all_sound"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fsys, want := readArchive(t, filepath.Join("testdata", "cases", tc.archive+".txtar"))
			rep, err := repotest.Check(fsys)
			require.NoError(t, err)
			var got []string
			for _, p := range rep.Problems {
				got = append(got, p.String())
			}
			require.Len(t, got, len(want), "problems:\n%s", strings.Join(got, "\n"))
			for i, w := range want {
				loc, sub, _ := strings.Cut(w, ": ")
				require.True(t, strings.HasPrefix(got[i], loc+": "), "problem %d is %q, want it at %s", i, got[i], loc)
				require.Contains(t, got[i], sub)
			}
		})
	}
}
