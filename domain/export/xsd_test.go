package export_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// requireValidGPX validates a GPX export against the official GPX 1.1
// schema (testdata/gpx-1.1.xsd) with xmllint, Debian's libxml2-utils: the
// same validator strict readers (BaseCamp, QGIS) build on. `make test`
// installs it (scripts/ensure-xmllint.sh); elsewhere a missing xmllint skips
// the check loudly, and under CI=true or make it fails.
func requireValidGPX(t *testing.T, gpx []byte) {
	t.Helper()
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		msg := "\n\n!!! GPX SCHEMA CHECK NOT RUN: xmllint is missing. Run scripts/ensure-xmllint.sh (apt-get install -y libxml2-utils); `make test` does.\n\n"
		if os.Getenv("CI") == "true" || os.Getenv("MAKELEVEL") != "" {
			t.Fatal(msg)
		}
		fmt.Fprint(os.Stderr, msg)
		t.Skip(msg)
	}
	xsd, err := filepath.Abs(filepath.Join("testdata", "gpx-1.1.xsd"))
	require.NoError(t, err)
	cmd := exec.Command(xmllint, "--noout", "--nonet", "--schema", xsd, "-")
	cmd.Stdin = bytes.NewReader(gpx)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "xmllint says the export is not valid GPX 1.1:\n%s", out)
	require.Contains(t, string(out), "- validates")
}

func TestRequireValidGPXRejects(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("xmllint"); err != nil {
		t.Skip("xmllint missing (requireValidGPX reports it)")
	}
	// A <trk> before a <wpt> breaks the schema's sequence: the check must
	// catch what the writer's ordering guards against.
	bad := `<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="x" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg/></trk><wpt lat="1" lon="2"/></gpx>`
	xsd, _ := filepath.Abs(filepath.Join("testdata", "gpx-1.1.xsd"))
	cmd := exec.Command("xmllint", "--noout", "--nonet", "--schema", xsd, "-")
	cmd.Stdin = bytes.NewReader([]byte(bad))
	out, err := cmd.CombinedOutput()
	require.Error(t, err)
	require.Contains(t, string(out), "fails to validate")
}
