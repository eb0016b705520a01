package route

import (
	"bytes"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// xmlAttacks lists every file under testdata/xml-attacks with the error and
// line it must be refused with.
var xmlAttacks = map[string]struct {
	kind error
	line int
}{
	"defusedxml_cyclic.xml":           {ErrDTD, 1},
	"defusedxml_dtd.xml":              {ErrDTD, 2},
	"defusedxml_external.xml":         {ErrDTD, 1},
	"defusedxml_external_file.xml":    {ErrDTD, 1},
	"defusedxml_quadratic.xml":        {ErrDTD, 1},
	"defusedxml_xmlbomb.xml":          {ErrDTD, 1},
	"defusedxml_xmlbomb2.xml":         {ErrDTD, 1},
	"patt_billion-laugh.xml":          {ErrDTD, 1},
	"patt_classic-xxe-etc-passwd.xml": {ErrDTD, 2},
	// Prose first: not XML at all. Its XML snippet alone is tested below.
	"patt_xxe-oob-yunusov-2013.txt": {ErrMalformed, 1},
}

// maxAttackAlloc bounds what refusing one attack file may allocate: the
// 64 KiB read window plus small change. An expanding parser would allocate
// gigabytes on the billion-laughs files.
const maxAttackAlloc = 256 << 10

// TestReadGPXRefusesXMLAttacks is deliberately not parallel: it measures
// allocation through the process-wide MemStats, which other tests running
// at the same time would disturb (parallel tests only start once the
// sequential ones are done).
func TestReadGPXRefusesXMLAttacks(t *testing.T) {
	files, err := filepath.Glob("testdata/xml-attacks/*")
	require.NoError(t, err)
	require.Len(t, files, len(xmlAttacks), "every attack file has an expectation and vice versa")

	for _, f := range files {
		want, ok := xmlAttacks[filepath.Base(f)]
		require.True(t, ok, "no expectation for %s", f)
		t.Run(filepath.Base(f)+" is refused without expanding anything", func(t *testing.T) {
			data := readFixture(t, "xml-attacks/"+filepath.Base(f))
			_, err := ReadGPX(bytes.NewReader(data))
			require.ErrorIs(t, err, want.kind)
			var re *ReadError
			require.ErrorAs(t, err, &re)
			require.Equal(t, want.line, re.Line, "error: %v", err)

			perRun := allocBytes(20, func() { _, _ = ReadGPX(bytes.NewReader(data)) })
			t.Logf("%d bytes allocated per refusal", perRun)
			require.Less(t, perRun, uint64(maxAttackAlloc), "bytes allocated per refusal")
		})
	}

	t.Run("the out-of-band XXE snippet on its own is refused as a DTD", func(t *testing.T) {
		data := readFixture(t, "xml-attacks/patt_xxe-oob-yunusov-2013.txt")
		lines := strings.SplitN(string(data), "\n", 5)
		snippet := strings.Join(lines[1:4], "\n") // declaration, DOCTYPE, <data>&send;</data>
		_, err := ReadGPX(strings.NewReader(snippet))
		require.ErrorIs(t, err, ErrDTD)
		require.Equal(t, 2, err.(*ReadError).Line)
	})
	t.Run("a DOCTYPE inside the root element is refused too", func(t *testing.T) {
		_, err := ReadGPX(strings.NewReader("<gpx>\n<!DOCTYPE gpx [<!ENTITY a \"b\">]><trk/></gpx>"))
		require.ErrorIs(t, err, ErrDTD)
		require.Equal(t, 2, err.(*ReadError).Line)
	})
	t.Run("a lowercase doctype is refused", func(t *testing.T) {
		_, err := ReadGPX(strings.NewReader("<!doctype gpx><gpx/>"))
		require.ErrorIs(t, err, ErrDTD)
	})
	t.Run("an external entity reference without a DTD is never resolved", func(t *testing.T) {
		doc := `<gpx><trk><name>&xxe;</name><trkseg><trkpt lat="1" lon="2"/></trkseg></trk></gpx>`
		_, err := ReadGPX(strings.NewReader(doc))
		require.ErrorIs(t, err, ErrMalformed)
		require.ErrorContains(t, err, "undefined entity &xxe;")
	})
	t.Run("a billion-laughs DTD after 1 MiB of comments is refused with bounded allocation", func(t *testing.T) {
		bomb := readFixture(t, "xml-attacks/patt_billion-laugh.xml")
		doc := append(bytes.Repeat([]byte("<!-- padding padding padding padding padding -->\n"), 1<<20/50), bomb...)
		perRun := allocBytes(3, func() {
			_, err := ReadGPX(bytes.NewReader(doc))
			require.ErrorIs(t, err, ErrDTD)
		})
		require.Less(t, perRun, uint64(maxAttackAlloc))
	})
}

// allocBytes returns the average bytes allocated by one call of f.
func allocBytes(runs int, f func()) uint64 {
	f() // warm up
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / uint64(runs)
}
