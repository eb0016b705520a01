package route

import (
	"bytes"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"
)

// TestReadGPXByteOrderMark pins DOMAIN §2 "a UTF-8 BOM is accepted": the
// mark is consumed before the declaration, and a file that starts with one
// is judged on its content alone. The evidence run's
// gpxpy_unicode_with_bom.gpx is refused because it holds one waypoint and no
// track, never because of its mark.
func TestReadGPXByteOrderMark(t *testing.T) {
	t.Parallel()
	const track = "<trk><name>Čudež ünïcödé</name><trkseg>" +
		`<trkpt lat="43.30" lon="3.51"><ele>2</ele></trkpt><trkpt lat="43.31" lon="3.52"><ele>9</ele></trkpt>` +
		"</trkseg></trk></gpx>"
	base := readFixture(t, "gpx-edge/gpxpy_unicode_with_bom.gpx")
	require.True(t, bytes.HasPrefix(base, []byte("\xef\xbb\xbf<?xml")), "the fixture starts with a UTF-8 BOM and the declaration")
	withTrack, _ := substitute(t, base, "</gpx>", track, 0)

	t.Run("a document with a BOM before its declaration is read", func(t *testing.T) {
		t.Parallel()
		got, err := ReadGPX(bytes.NewReader(withTrack))
		require.NoError(t, err)
		require.Equal(t, "Čudež ünïcödé", got.Title)
		require.Equal(t, []Point{{Lat: 43.30, Lon: 3.51, Ele: 2, HasEle: true}, {Lat: 43.31, Lon: 3.52, Ele: 9, HasEle: true}}, got.Points)
		require.Equal(t, SourceGPXTrack, got.Source)
		require.Len(t, got.Waypoints, 1)
		require.Equal(t, "test", got.Waypoints[0].Name)
	})
	t.Run("a BOM handed over one byte at a time is still consumed", func(t *testing.T) {
		t.Parallel()
		got, err := ReadGPX(iotest.OneByteReader(bytes.NewReader(withTrack)))
		require.NoError(t, err)
		require.Len(t, got.Points, 2)
	})
	t.Run("a BOM before a document without a declaration is read", func(t *testing.T) {
		t.Parallel()
		doc := "\xef\xbb\xbf<gpx>" + track
		got, err := ReadGPX(bytes.NewReader([]byte(doc)))
		require.NoError(t, err)
		require.Len(t, got.Points, 2)
	})
	t.Run("the waypoint-only fixture is refused for its missing track, not for its BOM", func(t *testing.T) {
		t.Parallel()
		_, err := ReadGPX(bytes.NewReader(base))
		require.ErrorIs(t, err, ErrEmptyRoute)
		require.NotErrorIs(t, err, ErrEncoding)
		var re *ReadError
		require.ErrorAs(t, err, &re)
		require.Contains(t, re.Reason, "no track points (trkpt) or route points (rtept)")
		require.Contains(t, re.Reason, "1 waypoint")
	})
}
