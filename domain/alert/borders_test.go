package alert

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/route"
)

func TestBorderCrossings(t *testing.T) {
	t.Parallel()
	stromstad, svinesund, halden := route.Point{Lat: 58.9395, Lon: 11.1712}, route.Point{Lat: 59.0965, Lon: 11.2761}, route.Point{Lat: 59.1243, Lon: 11.3875}

	t.Run("an open Schengen border is found where the route changes country", func(t *testing.T) {
		t.Parallel()
		s := riding(2, stromstad, halden, 25, 0)
		s.Points = []route.Point{stromstad, svinesund, halden}
		as, err := BorderCrossings(s, zones(t))
		require.NoError(t, err)
		require.Len(t, as, 1)
		a := as[0]
		require.Equal(t, CodeBorderCrossing, a.Code)
		require.Equal(t, SeverityNudge, a.Severity)
		require.Equal(t, 2, a.StageIndex)
		require.Contains(t, a.Message, "Sweden → Norway")
		require.Contains(t, a.Message, "ID")
		// The Svinesund bridge over the Iddefjord is the border (59.09 N);
		// the lite time-zone data puts it a couple of kilometres off.
		require.InDelta(t, 59.09, a.Lat, 0.03)
		require.Greater(t, a.Value, 15.0)
		require.Less(t, a.Value, 25.0)
	})

	t.Run("a day inside one country crosses nothing", func(t *testing.T) {
		t.Parallel()
		s := riding(0, route.Point{Lat: 59.91, Lon: 10.75}, route.Point{Lat: 60.79, Lon: 11.07}, 110, 0)
		s.Points = []route.Point{s.Start, {Lat: 60.3, Lon: 11.1}, s.End}
		as, err := BorderCrossings(s, zones(t))
		require.NoError(t, err)
		require.Empty(t, as)
	})

	// lineFinder is a border along 59.1° N: Norway north of it, Sweden
	// south, so the merge rule is checked on exact positions.
	line := lineFinder{}
	t.Run("a route along the border that dips across for less than a kilometre is no crossing", func(t *testing.T) {
		t.Parallel()
		p := route.Point{Lat: 59.09, Lon: 11.2}
		s := riding(0, p, north(p, -2000), 10, 0)
		s.Points = []route.Point{p, north(p, 1300), north(p, 1000), north(p, -2000)} // 376 m in Norway
		as, err := BorderCrossings(s, line)
		require.NoError(t, err)
		require.Empty(t, as, "%v", as)
	})
	t.Run("a route that stays across for more than a kilometre crosses twice", func(t *testing.T) {
		t.Parallel()
		p := route.Point{Lat: 59.09, Lon: 11.2}
		s := riding(0, p, north(p, -2000), 10, 0)
		s.Points = []route.Point{p, north(p, 1500), north(p, 1500+700), north(p, 1000), north(p, -2000)}
		as, err := BorderCrossings(s, line)
		require.NoError(t, err)
		require.Len(t, as, 2)
		require.Contains(t, as[0].Message, "Sweden → Norway")
		require.Contains(t, as[1].Message, "Norway → Sweden")
		require.InDelta(t, 59.1, as[0].Lat, 0.0003, "bisected to 25 m")
	})
	t.Run("more than five crossings give five alerts, the last saying how many more", func(t *testing.T) {
		t.Parallel()
		p := route.Point{Lat: 59.09, Lon: 11.2}
		s := riding(0, p, p, 10, 0)
		s.Points = []route.Point{p}
		for range 4 {
			s.Points = append(s.Points, north(p, 3000), p) // 1.9 km across, then back
		}
		as, err := BorderCrossings(s, line)
		require.NoError(t, err)
		require.Len(t, as, MaxBorderAlerts)
		require.Contains(t, as[MaxBorderAlerts-1].Message, "3 more further on")
	})

	t.Run("a ferry from Denmark to Norway is one crossing, the sea between counting for no country", func(t *testing.T) {
		t.Parallel()
		hirtshals, kristiansand := route.Point{Lat: 57.594, Lon: 9.965}, route.Point{Lat: 58.146, Lon: 7.996}
		s := riding(0, hirtshals, kristiansand, 140, 0)
		s.Points = []route.Point{hirtshals, kristiansand}
		as, err := BorderCrossings(s, zones(t))
		require.NoError(t, err)
		require.Len(t, as, 1)
		require.Contains(t, as[0].Message, "Denmark → Norway")
	})

	t.Run("a rest day crosses nothing", func(t *testing.T) {
		t.Parallel()
		as, err := BorderCrossings(Stage{RestDay: true, Start: stromstad, End: halden}, zones(t))
		require.NoError(t, err)
		require.Empty(t, as)
	})
}

func TestCountryForZone(t *testing.T) {
	t.Parallel()
	t.Run("every zone the finder answers on land has a country", func(t *testing.T) {
		t.Parallel()
		for _, z := range zones(t).f.TimezoneNames() {
			if len(z) > 4 && z[:4] == "Etc/" {
				require.Empty(t, CountryForZone(z), z)
				continue
			}
			require.NotEmpty(t, CountryForZone(z), "zone %s has no country in data/zone.tab", z)
		}
	})
	t.Run("the zones of neighbours are their own countries", func(t *testing.T) {
		t.Parallel()
		for zone, want := range map[string]string{"Europe/Oslo": "NO", "Europe/Stockholm": "SE", "Europe/Copenhagen": "DK",
			"Europe/Ljubljana": "SI", "Europe/Zagreb": "HR", "Europe/Busingen": "DE", "Europe/Vaduz": "LI", "America/Indiana/Knox": "US"} {
			require.Equal(t, want, CountryForZone(zone), zone)
		}
	})
}

// lineFinder answers Europe/Oslo north of 59.1° N and Europe/Stockholm
// south of it.
type lineFinder struct{}

func (lineFinder) ZoneName(lat, _ float64) (string, error) {
	if lat >= 59.1 {
		return "Europe/Oslo", nil
	}
	return "Europe/Stockholm", nil
}
