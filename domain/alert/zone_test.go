package alert

import (
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// sharedZones builds the real tzf finder once for the whole test binary: it
// costs about half a second and 150 MB, like in production.
var sharedZones = sync.OnceValues(NewTZFFinder)

func zones(t *testing.T) *TZFFinder {
	t.Helper()
	z, err := sharedZones()
	require.NoError(t, err)
	return z
}

func TestTZFFinderAndCountry(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, zone, country string
		lat, lon            float64
	}{
		{"Paris is in France", "Europe/Paris", "FR", 48.8566, 2.3522},
		{"Amsterdam is in the Netherlands", "Europe/Amsterdam", "NL", 52.37, 4.89},
		{"Brussels is in Belgium", "Europe/Brussels", "BE", 50.85, 4.35},
		{"Zurich is in Switzerland", "Europe/Zurich", "CH", 47.37, 8.54},
		{"Vienna is in Austria", "Europe/Vienna", "AT", 48.2, 16.37},
		{"Berlin is in Germany", "Europe/Berlin", "DE", 52.52, 13.4},
		{"Las Palmas is in Spain", "Atlantic/Canary", "ES", 28.1, -15.4},
		{"Rome is in Italy", "Europe/Rome", "IT", 41.9, 12.5},
		{"Edinburgh shares the England & Wales calendar", "Europe/London", "GB", 55.95, -3.19},
		{"Indianapolis is in the US", "America/Indiana/Indianapolis", "US", 39.77, -86.16},
		{"Denver is in the US", "America/Denver", "US", 39.74, -104.99},
		{"Trondheim is in Norway", "Europe/Oslo", "NO", 63.43, 10.39},
		{"the open Atlantic has a nautical zone", "Etc/GMT+2", "", 45, -30},
	}
	z := zones(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			name, err := z.ZoneName(c.lat, c.lon)
			require.NoError(t, err)
			require.Equal(t, c.zone, name)
			require.Equal(t, c.country, CountryForZone(name))
			_, _, err = zoneLocation(z, c.lat, c.lon)
			require.NoError(t, err, "every zone tzf returns loads from the embedded database")
		})
	}
}

// unknownZone is a ZoneFinder answering a name the zone database lacks.
type unknownZone struct{}

func (unknownZone) ZoneName(float64, float64) (string, error) { return "Mars/Olympus_Mons", nil }

func TestZoneLocationUnknownZone(t *testing.T) {
	t.Parallel()
	_, _, err := zoneLocation(unknownZone{}, 1, 2)
	require.True(t, errors.Is(err, ErrNoZone))
	require.ErrorContains(t, err, "Mars/Olympus_Mons")
}
