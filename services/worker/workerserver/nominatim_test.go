package workerserver_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/services/worker/internal/geocode/nominatim/nominatimtest"
	"github.com/roadbook/roadbook/services/worker/workerserver"
	"github.com/roadbook/roadbook/testkit"
)

func TestNominatimLabels(t *testing.T) {
	t.Parallel()
	t.Run("with Nominatim the labels fill in through the paced queue and its sink", func(t *testing.T) {
		t.Parallel()
		fake := nominatimtest.New(func(lat, lon float64) (string, string, bool) {
			return fmt.Sprintf("Place %.1f", lat), "village", true
		})
		t.Cleanup(fake.Close)
		e := start(t, func(c *workerserver.Config) {
			c.Geocoder, c.NominatimURL, c.UserAgent = workerserver.GeocoderNominatim, fake.URL, testUA
		})
		id := createLine(t, e, "rider-nom", trip.SettingsPatch{})
		waitTerminal(t, e.store, id)
		// Two stages, three distinct ends: three paced requests (≈ 3.3 s).
		st := testkit.WaitForTrip(t, e.trips, id, func(st trip.State) bool {
			for _, s := range st.Stages {
				if !s.Labelled {
					return false
				}
			}
			return true
		})
		require.Equal(t, "Place 59.9", st.Stages[0].StartLabel)
		require.NotEmpty(t, st.Stages[len(st.Stages)-1].EndLabel)
		require.LessOrEqual(t, len(fake.Requests()), 2*len(st.Stages), "each distinct end asked once")
	})
}
