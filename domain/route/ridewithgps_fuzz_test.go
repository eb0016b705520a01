package route

import (
	"errors"
	"testing"
)

func FuzzReadRideWithGPS(f *testing.F) {
	addFixtureSeeds(f)
	f.Add([]byte(`{"route":{"name":"n","track_points":[{"x":2,"y":1,"e":3,"d":0}]}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		rt, err := ReadRideWithGPS(body)
		if err != nil {
			var re *ReadError
			if !errors.As(err, &re) || re.Format != "ridewithgps" || !knownKind(re.Kind) {
				t.Fatalf("error is not a named *ReadError: %#v", err)
			}
			return
		}
		if len(rt.Points) == 0 {
			t.Fatal("a route without points was accepted")
		}
		checkPoints(t, rt.Points)
	})
}
