package route

import (
	"bytes"
	"errors"
	"testing"
)

func FuzzDecodePoints(f *testing.F) {
	addFixtureSeeds(f)
	// Real encodings too, so mutations explore the format itself.
	for name, want := range gpxFixtures {
		if want.err != nil {
			continue
		}
		rt, err := ReadGPX(bytes.NewReader(readFixture(f, name)))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(EncodePoints(rt.Points))
	}
	f.Add(EncodePoints([]Point{{Lat: 1, Lon: 2, Ele: 3, HasEle: true}, {Lat: 1.1, Lon: 2.1}}))
	f.Fuzz(func(t *testing.T, data []byte) {
		pts, err := DecodePoints(data)
		if err != nil {
			if !errors.Is(err, ErrCorruptEncoding) {
				t.Fatalf("error is not ErrCorruptEncoding: %v", err)
			}
			return
		}
		if len(pts) > len(data) {
			t.Fatalf("%d points from %d bytes", len(pts), len(data))
		}
		checkPoints(t, pts)
		// Whatever decodes re-encodes canonically to the same points.
		again, err := DecodePoints(EncodePoints(pts))
		if err != nil {
			t.Fatalf("re-encoding failed to decode: %v", err)
		}
		for i := range pts {
			if pts[i] != again[i] {
				t.Fatalf("point %d changed: %+v -> %+v", i, pts[i], again[i])
			}
		}
	})
}
