package route

import (
	"bytes"
	"encoding/xml"
	"io"
	"testing"
)

// BenchmarkReadGPX reads the 627 km Oslo–Trondheim track (1.2 MB, 17,895
// points); BenchmarkReadGPXBaseline is a bare encoding/xml Token() loop over
// the same bytes, the yardstick the reader must beat by 1.5× (issue 3).
// cmd/bench-domain runs the 30 MiB version of this comparison.
func BenchmarkReadGPX(b *testing.B) {
	data := readFixture(b, "gpx/long_brouter_oslo-trondheim_fastbike.gpx")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		rt, err := ReadGPX(bytes.NewReader(data))
		if err != nil || len(rt.Points) != 17895 {
			b.Fatalf("read %v points: %v", rt, err)
		}
	}
}

func BenchmarkReadGPXBaseline(b *testing.B) {
	data := readFixture(b, "gpx/long_brouter_oslo-trondheim_fastbike.gpx")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		d := xml.NewDecoder(bytes.NewReader(data))
		for {
			if _, err := d.Token(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
}
