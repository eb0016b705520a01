package report_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/evidence/report"
)

func TestSplice(t *testing.T) {
	t.Parallel()
	doc := "# T\n\nprose\n\n" + report.BeginMarker + "\nold\n" + report.EndMarker + "\n\nmore prose\n"

	t.Run("replaces only what lies between the markers", func(t *testing.T) {
		t.Parallel()
		out, err := report.Splice(doc, "new")
		require.NoError(t, err)
		require.Equal(t, "# T\n\nprose\n\n"+report.BeginMarker+"\nnew\n"+report.EndMarker+"\n\nmore prose\n", out)
	})
	t.Run("refuses a document without the markers", func(t *testing.T) {
		t.Parallel()
		_, err := report.Splice("# T\n", "new")
		require.ErrorIs(t, err, report.ErrMarkers)
	})
	t.Run("refuses markers out of order", func(t *testing.T) {
		t.Parallel()
		_, err := report.Splice(report.EndMarker+"\n"+report.BeginMarker, "new")
		require.ErrorIs(t, err, report.ErrMarkers)
	})
}

func TestRewrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pass, fail := true, false
	require.NoError(t, report.Write(dir, report.Result{Kind: "soak", Command: "make soak", Label: "SHORT RUN: 2m",
		Summary: []report.Check{{Check: "errors", Measured: "0 of 10", Pass: &pass}, {Check: "audit", Measured: "lost 1", Pass: &fail}},
		Tables:  []report.Table{{Title: "Per tool", Header: []string{"tool", "calls"}, Rows: [][]string{{"get_trip", "10"}}}}}))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "fuzz.json"), []byte(`{"command":"make fuzz FUZZTIME=60s","date":"d","targets":[
		{"package":"p","target":"FuzzX","fuzztime":"60s","elapsed":"1m0s","execs":5,"newInteresting":1,"keptInTestdata":1,"crashes":0}]}`), 0o644))
	doc := filepath.Join(dir, "R.md")
	require.NoError(t, os.WriteFile(doc, []byte("intro\n"+report.BeginMarker+"\n"+report.EndMarker+"\n"), 0o644))
	require.NoError(t, report.Rewrite(dir, doc))
	b, err := os.ReadFile(doc)
	require.NoError(t, err)
	s := string(b)

	t.Run("a run not made says so instead of a figure", func(t *testing.T) {
		t.Parallel()
		require.Contains(t, s, "| chaos | — | not run yet | — |")
	})
	t.Run("a failed check is marked NO", func(t *testing.T) {
		t.Parallel()
		require.Contains(t, s, "| soak (SHORT RUN: 2m) | audit | lost 1 | **NO** |")
	})
	t.Run("a short fuzz run is labelled as one", func(t *testing.T) {
		t.Parallel()
		require.Contains(t, s, "SHORT RUN: 1 targets × 60s each, not the 10-minute runs")
		require.Contains(t, s, "| p | FuzzX | 1m0s | 5 | 1 | 1 | 0 |")
	})
	t.Run("the prose before the markers is kept", func(t *testing.T) {
		t.Parallel()
		require.Contains(t, s, "intro\n"+report.BeginMarker)
	})
}
