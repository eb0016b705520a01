package pacing

import (
	"testing"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/stretchr/testify/require"
)

func TestStageContentHash(t *testing.T) {
	t.Parallel()

	t.Run("changes with geometry, date and the settings the analysis reads", func(t *testing.T) {
		t.Parallel()
		st := Stage{Geometry: []route.Point{{Lat: 1, Lon: 2, Ele: 3, HasEle: true}, {Lat: 1.1, Lon: 2, Ele: 5, HasEle: true}}}
		s := Defaults()
		base := st.ContentHash(s)
		require.Equal(t, base, st.ContentHash(s))

		moved := st
		moved.Geometry = []route.Point{st.Geometry[0], {Lat: 1.1, Lon: 2.0000001, Ele: 5, HasEle: true}}
		require.NotEqual(t, base, moved.ContentHash(s))

		dated := st
		dated.Date = date(2026, 5, 1)
		require.NotEqual(t, base, dated.ContentHash(s))

		for _, m := range []func(*Settings){
			func(s *Settings) { s.AverageSpeedKmh = 20 },
			func(s *Settings) { s.DepartureHour = 7 },
			func(s *Settings) { s.EbikeMode = true },
			func(s *Settings) { s.DailyRidingHours = 4 },
			func(s *Settings) { s.ElevationPenalty = 30 },
			func(s *Settings) { s.FatigueFactor = 0.7 },
		} {
			s2 := Defaults()
			m(&s2)
			require.NotEqual(t, base, st.ContentHash(s2))
		}
		s2 := Defaults()
		s2.StartDate = date(2027, 1, 1) // the stage's own date counts, not the trip's
		require.Equal(t, base, st.ContentHash(s2))
	})

	t.Run("tells a rest day from a riding day at the same place", func(t *testing.T) {
		t.Parallel()
		p := route.Point{Lat: 1, Lon: 2}
		rest := Stage{RestDay: true, Start: p, End: p}
		ride := Stage{Start: p, End: p, Geometry: []route.Point{p}}
		require.NotEqual(t, rest.ContentHash(Defaults()), ride.ContentHash(Defaults()))
	})
}
