package route

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// Precision the encoding promises: half a unit of 1e-7° and of 0.1 m, plus
// float64 slack.
const (
	coordTolerance = 0.5e-7 + 1e-12
	eleTolerance   = 0.05 + 1e-9
)

func requireRoundTrip(t *testing.T, pts []Point) []byte {
	t.Helper()
	enc := EncodePoints(pts)
	got, err := DecodePoints(enc)
	require.NoError(t, err)
	require.Len(t, got, len(pts))
	for i := range pts {
		require.InDelta(t, pts[i].Lat, got[i].Lat, coordTolerance, "point %d lat", i)
		require.InDelta(t, pts[i].Lon, got[i].Lon, coordTolerance, "point %d lon", i)
		require.Equal(t, pts[i].HasEle, got[i].HasEle, "point %d has ele", i)
		if pts[i].HasEle {
			require.InDelta(t, pts[i].Ele, got[i].Ele, eleTolerance, "point %d ele", i)
		} else {
			require.Zero(t, got[i].Ele, "point %d without elevation decodes to 0", i)
		}
	}
	require.Equal(t, enc, EncodePoints(got), "re-encoding decoded points is the identity")
	return enc
}

func TestEncodePointsRoundTrip(t *testing.T) {
	t.Parallel()

	t.Run("every fixture route round-trips within the precision bounds", func(t *testing.T) {
		t.Parallel()
		for name, want := range gpxFixtures {
			if want.err != nil {
				continue
			}
			rt, err := ReadGPX(bytes.NewReader(readFixture(t, name)))
			require.NoError(t, err)
			requireRoundTrip(t, rt.Points)
		}
	})
	t.Run("the Oslo route costs under 8 bytes a point", func(t *testing.T) {
		t.Parallel()
		rt, err := ReadGPX(bytes.NewReader(readFixture(t, "gpx/long_brouter_oslo-trondheim_fastbike.gpx")))
		require.NoError(t, err)
		enc := requireRoundTrip(t, rt.Points)
		require.Less(t, len(enc), 8*len(rt.Points), "%d bytes for %d points", len(enc), len(rt.Points))
	})
	t.Run("mixed, missing and extreme values round-trip", func(t *testing.T) {
		t.Parallel()
		requireRoundTrip(t, nil)
		requireRoundTrip(t, []Point{{Lat: 0, Lon: 0}})
		requireRoundTrip(t, []Point{
			{Lat: 90, Lon: 180, Ele: 8848.86, HasEle: true},
			{Lat: -90, Lon: -180},
			{Lat: 45.12345678, Lon: -0.00000004, Ele: -430.5, HasEle: true},
			{Lat: 45.12345679, Lon: 179.9999999, Ele: 0.04, HasEle: true},
			{Lat: 1e-9, Lon: -1e-9},
		})
	})
	t.Run("out-of-range input is clamped rather than corrupting the encoding", func(t *testing.T) {
		t.Parallel()
		got, err := DecodePoints(EncodePoints([]Point{{Lat: 91, Lon: math.NaN(), Ele: 1e9, HasEle: true}}))
		require.NoError(t, err)
		require.Equal(t, []Point{{Lat: 90, Lon: 0, Ele: maxEleM, HasEle: true}}, got)
	})
}

func TestContentHash(t *testing.T) {
	t.Parallel()

	a := []Point{{Lat: 59.9, Lon: 10.7, Ele: 20, HasEle: true}, {Lat: 60, Lon: 10.8, Ele: 25, HasEle: true}}
	b := []Point{{Lat: 59.9, Lon: 10.7, Ele: 20, HasEle: true}, {Lat: 60, Lon: 10.8000001, Ele: 25, HasEle: true}}
	t.Run("equal routes hash equally", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, ContentHash(EncodePoints(a)), ContentHash(EncodePoints(append([]Point{}, a...))))
		// Differences below the encoding's precision do not change the address.
		c := []Point{{Lat: 59.90000000001, Lon: 10.7, Ele: 20.001, HasEle: true}, a[1]}
		require.Equal(t, ContentHash(EncodePoints(a)), ContentHash(EncodePoints(c)))
	})
	t.Run("a 1e-7 degree move changes the hash", func(t *testing.T) {
		t.Parallel()
		require.NotEqual(t, ContentHash(EncodePoints(a)), ContentHash(EncodePoints(b)))
	})
	t.Run("losing the elevations changes the hash", func(t *testing.T) {
		t.Parallel()
		noEle := []Point{{Lat: 59.9, Lon: 10.7}, {Lat: 60, Lon: 10.8}}
		require.NotEqual(t, ContentHash(EncodePoints(a)), ContentHash(EncodePoints(noEle)))
	})
}

func TestDecodePointsRefusesCorruptInput(t *testing.T) {
	t.Parallel()

	good := EncodePoints([]Point{{Lat: 1, Lon: 2, Ele: 3, HasEle: true}, {Lat: 1.1, Lon: 2.1}, {Lat: 1.2, Lon: 2.2, Ele: 4, HasEle: true}})

	t.Run("every truncation is refused", func(t *testing.T) {
		t.Parallel()
		for n := range len(good) {
			_, err := DecodePoints(good[:n])
			require.ErrorIs(t, err, ErrCorruptEncoding, "prefix of %d bytes", n)
		}
	})
	huge := binary.AppendUvarint([]byte{encodingMagic, encodingVersion, 0}, 1<<62)
	cases := []struct {
		name string
		b    []byte
		msg  string
	}{
		{"a wrong magic byte", append([]byte{'X'}, good[1:]...), "magic"},
		{"an unknown version", append([]byte{encodingMagic, 9}, good[2:]...), "version"},
		{"unknown flags", append([]byte{encodingMagic, encodingVersion, 0x80}, good[3:]...), "flags"},
		{"a trailing byte", append(append([]byte{}, good...), 0), "trailing"},
		{"a count of 2^62 points", append(huge, 0, 0, 0, 0), "does not fit"},
		{"a count above MaxEncodedPoints", append(binary.AppendUvarint([]byte{encodingMagic, encodingVersion, 0}, MaxEncodedPoints+1), make([]byte, 2*MaxEncodedPoints+4)...), "does not fit"},
		{"a latitude beyond 90", append(binary.AppendVarint([]byte{encodingMagic, encodingVersion, 0, 1}, 91e7), 0), "out of range"},
	}
	for _, tc := range cases {
		t.Run("input with "+tc.name+" is refused", func(t *testing.T) {
			t.Parallel()
			_, err := DecodePoints(tc.b)
			require.ErrorIs(t, err, ErrCorruptEncoding)
			require.ErrorContains(t, err, tc.msg)
		})
	}
}

// TestDecodePointsForgedCountAllocation is not parallel: it measures
// allocation through the process-wide MemStats.
func TestDecodePointsForgedCountAllocation(t *testing.T) {
	huge := binary.AppendUvarint([]byte{encodingMagic, encodingVersion, 0}, 1<<62)
	forged := append(huge, 1, 2, 3, 4)
	perRun := allocBytes(50, func() { _, _ = DecodePoints(forged) })
	require.Less(t, perRun, uint64(1024), "a forged count of 2^62 points allocates only the error")
}
