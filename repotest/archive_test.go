package repotest_test

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
)

// readArchive reads a txtar-style archive: a comment, then files, each
// introduced by a line "-- path --". It returns the files as a file system
// and the comment's "want: " lines.
func readArchive(t *testing.T, name string) (fstest.MapFS, []string) {
	t.Helper()
	b, err := os.ReadFile(name)
	require.NoError(t, err)
	fsys := fstest.MapFS{}
	var want []string
	var file string
	var body strings.Builder
	flush := func() {
		if file != "" {
			fsys[file] = &fstest.MapFile{Data: []byte(body.String())}
		}
		body.Reset()
	}
	for line := range strings.SplitSeq(strings.TrimSuffix(string(b), "\n"), "\n") {
		if n, ok := strings.CutPrefix(line, "-- "); ok && strings.HasSuffix(n, " --") {
			flush()
			file = strings.TrimSuffix(n, " --")
			continue
		}
		if file == "" {
			if w, ok := strings.CutPrefix(line, "want: "); ok {
				want = append(want, w)
			}
			continue
		}
		body.WriteString(line + "\n")
	}
	flush()
	require.NotEmpty(t, fsys, "%s holds no files", name)
	return fsys, want
}
