package alert

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// elevationAA is an independent solar elevation (degrees, geometric, centre
// of the disc) from the Astronomical Almanac's low-precision formulas, used
// to check that SolarEvents returns instants where the sun really is at the
// altitude it claims.
func elevationAA(t time.Time, lat, lon float64) float64 {
	n := float64(t.Unix())/86400 + 2440587.5 - 2451545.0
	L := math.Mod(280.460+0.9856474*n, 360)
	g := rad(math.Mod(357.528+0.9856003*n, 360))
	lambda := rad(L + 1.915*math.Sin(g) + 0.020*math.Sin(2*g))
	eps := rad(23.439 - 0.0000004*n)
	ra := math.Atan2(math.Cos(eps)*math.Sin(lambda), math.Cos(lambda))
	dec := math.Asin(math.Sin(eps) * math.Sin(lambda))
	gmst := math.Mod(18.697374558+24.06570982441908*n, 24)
	ha := rad(gmst*15+lon) - ra
	return deg(math.Asin(math.Sin(rad(lat))*math.Sin(dec) + math.Cos(rad(lat))*math.Cos(dec)*math.Cos(ha)))
}

func TestSolarEventsKnownTimes(t *testing.T) {
	t.Parallel()
	// Published local times (timeanddate.com / national almanacs), to the
	// minute; tolerance two minutes.
	cases := []struct {
		name                  string
		lat, lon              float64
		zone                  string
		y                     int
		m                     time.Month
		d                     int
		sunrise, sunset, dusk string
	}{
		{"Paris on the 2024 summer solstice", 48.8566, 2.3522, "Europe/Paris", 2024, time.June, 21, "05:47", "21:58", "22:40"},
		{"Oslo at midsummer", 59.9139, 10.7522, "Europe/Oslo", 2024, time.June, 21, "03:54", "22:44", ""},
		{"New York at the winter solstice", 40.7128, -74.0060, "America/New_York", 2024, time.December, 21, "07:17", "16:32", "17:03"},
		{"Quito at the equinox", -0.1807, -78.4678, "America/Guayaquil", 2024, time.March, 20, "06:18", "18:24", "18:45"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			loc, err := time.LoadLocation(c.zone)
			require.NoError(t, err)
			day := SolarEvents(c.y, c.m, c.d, c.lat, c.lon)
			require.Equal(t, Crosses, day.Sun.Kind)
			require.Equal(t, Crosses, day.Civil.Kind)
			near := func(want string, got time.Time) {
				w, err := time.ParseInLocation("2006-01-02 15:04", time.Date(c.y, c.m, c.d, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)+" "+want, loc)
				require.NoError(t, err)
				require.InDelta(t, 0, got.Sub(w).Minutes(), 2, "want %s local, got %s", want, got.In(loc).Format("15:04:05"))
			}
			if c.sunrise != "" {
				near(c.sunrise, day.Sun.Rise)
			}
			near(c.sunset, day.Sun.Set)
			if c.dusk != "" {
				near(c.dusk, day.Civil.Set)
			}
			require.Equal(t, time.UTC, day.Sun.Set.Location())
		})
	}
}

func TestSolarEventsAltitudeMatchesIndependentModel(t *testing.T) {
	t.Parallel()
	places := []struct {
		name     string
		lat, lon float64
	}{
		{"Paris", 48.8566, 2.3522}, {"Oslo", 59.9139, 10.7522}, {"Quito", -0.1807, -78.4678},
		{"Cape Town", -33.92, 18.42}, {"Anchorage", 61.22, -149.9}, {"Auckland", -36.85, 174.76},
	}
	for _, p := range places {
		t.Run("the sun is at -0.833° and -6° at the events over a year at "+p.name, func(t *testing.T) {
			t.Parallel()
			for day := date(2025, time.January, 1); day.Year() == 2025; day = day.AddDate(0, 0, 7) {
				ev := SolarEvents(day.Year(), day.Month(), day.Day(), p.lat, p.lon)
				if ev.Sun.Kind == Crosses {
					require.InDelta(t, -0.833, elevationAA(ev.Sun.Rise, p.lat, p.lon), 0.1, "sunrise %v", day)
					require.InDelta(t, -0.833, elevationAA(ev.Sun.Set, p.lat, p.lon), 0.1, "sunset %v", day)
				}
				if ev.Civil.Kind == Crosses {
					require.InDelta(t, -6, elevationAA(ev.Civil.Rise, p.lat, p.lon), 0.1, "civil dawn %v", day)
					require.InDelta(t, -6, elevationAA(ev.Civil.Set, p.lat, p.lon), 0.1, "civil dusk %v", day)
				}
				// Solar noon is the day's highest sun: a minute either side is lower.
				noon := elevationAA(ev.Noon, p.lat, p.lon)
				require.Greater(t, noon, elevationAA(ev.Noon.Add(-10*time.Minute), p.lat, p.lon))
				require.Greater(t, noon, elevationAA(ev.Noon.Add(10*time.Minute), p.lat, p.lon))
			}
		})
	}
}

func TestSolarEventsPolar(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		lat, lon   float64
		m          time.Month
		sun, civil Crossing
	}{
		{"Tromsø at midsummer has midnight sun and no dusk", 69.6492, 18.9553, time.June, AlwaysAbove, AlwaysAbove},
		{"Tromsø at midwinter has no sunrise but a civil-twilight noon", 69.6492, 18.9553, time.December, AlwaysBelow, Crosses},
		{"Longyearbyen at midwinter never reaches civil twilight", 78.2232, 15.6267, time.December, AlwaysBelow, AlwaysBelow},
		{"Oslo at midsummer still has a short civil night", 59.9139, 10.7522, time.June, Crosses, Crosses},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ev := SolarEvents(2024, c.m, 21, c.lat, c.lon)
			require.Equal(t, c.sun, ev.Sun.Kind)
			require.Equal(t, c.civil, ev.Civil.Kind)
			if c.sun != Crosses {
				require.True(t, ev.Sun.Rise.IsZero() && ev.Sun.Set.IsZero(), "no crossing means no times")
				noon := elevationAA(ev.Noon, c.lat, c.lon)
				midnight := elevationAA(ev.Noon.Add(12*time.Hour), c.lat, c.lon)
				if c.sun == AlwaysAbove {
					require.Greater(t, midnight, -0.833, "the sun stays up at midnight")
				} else {
					require.Less(t, noon, -0.833, "the sun stays down at noon")
				}
			}
		})
	}
}
