package route

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestReadRideWithGPS(t *testing.T) {
	t.Parallel()

	legacy := readFixture(t, "ridewithgps/route_12345.json")
	v1 := readFixture(t, "ridewithgps/api_v1_route_12345.json")

	t.Run("the route body and the v1 API body give the same route", func(t *testing.T) {
		t.Parallel()
		a, err := ReadRideWithGPS(legacy)
		require.NoError(t, err)
		b, err := ReadRideWithGPS(v1)
		require.NoError(t, err)
		require.Equal(t, a, b)
		require.Equal(t, "Oslo – Mjøsa (RWGPS)", a.Title)
		require.Equal(t, SourceRideWithGPS, a.Source)
		require.True(t, a.ElevationKnown)
		require.Len(t, a.Points, 400)
		require.Equal(t, Point{Lat: 59.906353, Lon: 10.769927, Ele: 22.75, HasEle: true}, a.Points[0], "x is longitude, y latitude")
	})
	t.Run("a point without e makes the elevation unknown", func(t *testing.T) {
		t.Parallel()
		doc := bytes.Replace(v1, []byte(`"e":24.0,`), nil, 1)
		require.NotEqual(t, v1, doc)
		got, err := ReadRideWithGPS(doc)
		require.NoError(t, err)
		require.False(t, got.ElevationKnown)
	})

	refusals := []struct {
		name string
		body []byte
		kind error
		msg  string
	}{
		{"latitude 91", bytes.Replace(legacy, []byte(`"y":59.906527`), []byte(`"y":91`), 1), ErrCoordinate, "track_points[1]: latitude 91"},
		{"longitude 181", bytes.Replace(legacy, []byte(`"x":10.770012`), []byte(`"x":181`), 1), ErrCoordinate, "track_points[1]: longitude 181"},
		{"a missing y", bytes.Replace(legacy, []byte(`"y":59.906527,`), nil, 1), ErrCoordinate, "track_points[1] has no y"},
		{"a missing x", bytes.Replace(legacy, []byte(`"x":10.770012,`), nil, 1), ErrCoordinate, "track_points[1] has no x"},
		{"an elevation of 20 km", bytes.Replace(legacy, []byte(`"e":24.0`), []byte(`"e":20000`), 1), ErrCoordinate, "outside -1000..10000"},
		{"HTML instead of JSON", []byte("<html>Rate limited</html>"), ErrMalformed, "not the expected JSON"},
		{"no track_points", []byte(`{"route":{"name":"x"}}`), ErrNotFound, "no track_points"},
		{"empty track_points", []byte(`{"route":{"track_points":[]}}`), ErrEmptyRoute, "empty"},
		{"more than 30 MiB", append(bytes.Repeat([]byte(" "), MaxRideWithGPSBytes), legacy...), ErrTooLarge, "30 MiB"},
	}
	for _, tc := range refusals {
		t.Run("a body with "+tc.name+" is refused", func(t *testing.T) {
			t.Parallel()
			_, err := ReadRideWithGPS(tc.body)
			require.ErrorIs(t, err, tc.kind)
			var re *ReadError
			require.ErrorAs(t, err, &re)
			require.Equal(t, "ridewithgps", re.Format)
			require.Contains(t, err.Error(), tc.msg)
		})
	}
}
