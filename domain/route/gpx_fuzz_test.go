package route

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// maxSeedBytes bounds the fixtures used as fuzz seeds. The fuzzer mutates
// every seed and runs each mutant twice (whole and in 1–13-byte chunks), so
// one 1.2 MB route made a whole minute of fuzzing 64 executions; the large
// fixtures are read by the plain tests instead, and small documents of every
// shape reach the same code.
const maxSeedBytes = 32 << 10

// addFixtureSeeds adds every file under testdata of at most maxSeedBytes
// (the copies of the shared fixtures — gpx, gpx-edge, xml-attacks,
// nominatim — and the synthesized platform payloads) to a fuzz target's
// corpus, so each target starts from real documents of every shape.
func addFixtureSeeds(f *testing.F) {
	f.Helper()
	files, err := filepath.Glob("testdata/*/*")
	if err != nil {
		f.Fatal(err)
	}
	n := 0
	for _, p := range files {
		if filepath.Base(p) == "SOURCES.md" {
			continue
		}
		if info, err := os.Stat(p); err != nil || info.IsDir() || info.Size() > maxSeedBytes {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		n++
	}
	if n < 30 {
		f.Fatalf("only %d seed files found", n)
	}
}

// chunkReader hands out its data in small, varying pieces so the scanner's
// buffer boundaries fall everywhere.
type chunkReader struct {
	b []byte
	i int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	sizes := [...]int{1, 2, 3, 5, 8, 13, 4096}
	n := min(sizes[r.i%len(sizes)], len(p), len(r.b))
	r.i++
	copy(p, r.b[:n])
	r.b = r.b[n:]
	return n, nil
}

func FuzzReadGPX(f *testing.F) {
	addFixtureSeeds(f)
	f.Add([]byte(`<gpx><trk><name>a&amp;b</name><trkseg><trkpt lat="1" lon="2"><ele>3</ele></trkpt></trkseg></trk></gpx>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rt, err := ReadGPX(bytes.NewReader(data))
		// Streaming must not change the outcome.
		rt2, err2 := ReadGPX(&chunkReader{b: data})
		if (err == nil) != (err2 == nil) || (err != nil && err.Error() != err2.Error()) {
			t.Fatalf("whole read: %v; chunked read: %v", err, err2)
		}
		if err != nil {
			var re *ReadError
			if !errors.As(err, &re) || re.Line < 1 || re.Reason == "" || !knownKind(re.Kind) {
				t.Fatalf("error is not a named *ReadError with a line: %#v", err)
			}
			return
		}
		if len(rt.Points) == 0 || len(rt.Points) != len(rt2.Points) || rt.Title != rt2.Title {
			t.Fatalf("inconsistent routes: %d vs %d points", len(rt.Points), len(rt2.Points))
		}
		checkPoints(t, rt.Points)
	})
}

func knownKind(err error) bool {
	for _, k := range []error{ErrDTD, ErrNotGPX, ErrMalformed, ErrEncoding, ErrCoordinate, ErrTooLarge, ErrEmptyRoute, ErrNotFound, ErrCorruptEncoding} {
		if err == k {
			return true
		}
	}
	return false
}

// checkPoints asserts the invariants every reader guarantees.
func checkPoints(t *testing.T, pts []Point) {
	t.Helper()
	for i, p := range pts {
		if math.IsNaN(p.Lat) || math.IsNaN(p.Lon) || p.Lat < -90 || p.Lat > 90 || p.Lon < -180 || p.Lon > 180 {
			t.Fatalf("point %d out of range: %+v", i, p)
		}
		if math.IsNaN(p.Ele) || p.Ele < minEleM || p.Ele > maxEleM || (!p.HasEle && p.Ele != 0) {
			t.Fatalf("point %d elevation invalid: %+v", i, p)
		}
	}
}
