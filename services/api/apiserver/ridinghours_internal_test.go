package apiserver

import (
	"bytes"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/testkit/fixtures"
)

// fixtureStages cuts the Oslo–Trondheim fixture into days of 600 raw
// points, each with its Douglas–Peucker geometry, as StagesComputed carries
// them.
func fixtureStages(t testing.TB) []trip.Stage {
	t.Helper()
	r, err := route.ReadGPX(bytes.NewReader(fixtures.Bytes(fixtures.OsloTrondheim)))
	require.NoError(t, err)
	var out []trip.Stage
	for i := 0; i+1 < len(r.Points); i += 600 {
		pts := r.Points[i:min(i+601, len(r.Points))]
		geom := route.Simplify(pts, route.DecimationToleranceM)
		up, down := route.Elevation(pts)
		out = append(out, trip.Stage{Index: len(out), Start: pts[0], End: pts[len(pts)-1], Geometry: geom,
			DistanceM: route.Length(geom), AscentM: up, DescentM: down})
	}
	require.Greater(t, len(out), 10)
	return out
}

// fixedNow is the day the tests' digests are built on.
var fixedNow = time.Date(2027, 5, 1, 9, 0, 0, 0, time.UTC)

func TestRidingHoursAreRiderTimes(t *testing.T) {
	t.Parallel()
	stages := fixtureStages(t)
	slow := trip.DefaultSettings()
	fast := slow
	fast.AverageSpeedKmH += 4
	var hours ridingHours
	for _, set := range []trip.Settings{slow, fast} {
		key := settingsKey(set)
		for round := range 2 {
			for _, st := range stages {
				require.Equal(t, st.RiderTime(set).RidingHours, hours.of(st, set, key), "stage %d, round %d", st.Index, round)
			}
		}
	}
	require.Equal(t, 2*len(stages), hours.entries.Len(), "one entry per stage and settings: the second rounds were hits")

	t.Run("a geometry of the same points in another allocation is its own entry", func(t *testing.T) {
		t.Parallel()
		var h ridingHours
		st := stages[3]
		key := settingsKey(slow)
		first := h.of(st, slow, key)
		moved := st
		moved.Geometry = append([]route.Point(nil), st.Geometry...)
		moved.Geometry[len(moved.Geometry)/2].Ele += 300
		require.Equal(t, moved.RiderTime(slow).RidingHours, h.of(moved, slow, key))
		require.NotEqual(t, first, h.of(moved, slow, key), "the climb moved the hours")
		require.Equal(t, 2, h.entries.Len())
	})
	t.Run("the settings key tells every setting apart", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, settingsFields, reflect.TypeOf(trip.Settings{}).NumField(),
			"trip.Settings has another field: add it to settingsKey (and count it in settingsFields)")
		a, b := trip.DefaultSettings(), trip.DefaultSettings()
		require.Equal(t, settingsKey(a), settingsKey(b))
		b.FatigueFactor = a.FatigueFactor + 1e-12
		require.NotEqual(t, settingsKey(a), settingsKey(b))
		b = a
		b.StartDate = trip.DateOf(fixedNow)
		require.NotEqual(t, settingsKey(a), settingsKey(b))
		b = a
		b.AccommodationTypes = b.AccommodationTypes[:1]
		require.NotEqual(t, settingsKey(a), settingsKey(b))
		b = a
		b.EbikeMode = !a.EbikeMode
		require.NotEqual(t, settingsKey(a), settingsKey(b))
		b = a
		b.Preset = "custom"
		require.NotEqual(t, settingsKey(a), settingsKey(b))
		b = a
		b.EndDate = trip.DateOf(fixedNow)
		require.NotEqual(t, settingsKey(a), settingsKey(b))
		b = a
		b.RestDayEvery, b.Engine = a.Engine, a.RestDayEvery
		if a.Engine != a.RestDayEvery {
			require.NotEqual(t, settingsKey(a), settingsKey(b), "each number in its own place")
		}
	})
	t.Run("a digest with the memo is the digest without it", func(t *testing.T) {
		t.Parallel()
		s := trip.State{ID: "0b5f3a64-2f0e-5c8a-9a53-6f1f7d9a2c11", Version: 3, Settings: slow, Stages: stages}
		plain := view{today: trip.DateOf(fixedNow)}
		memo := view{today: plain.today, hours: &ridingHours{}}
		for range 2 {
			require.Equal(t, plain.digest(s, nil).String(), memo.digest(s, nil).String())
		}
	})
}

// BenchmarkDigest builds the digest of a trip of the fixture's stages (the
// Oslo–Trondheim route in days of 600 points) with the riding-hours memo
// warm, as a poll after a label or analysis result finds it, and without
// the memo, as every digest was built before.
func BenchmarkDigest(b *testing.B) {
	s := trip.State{ID: "0b5f3a64-2f0e-5c8a-9a53-6f1f7d9a2c11", Version: 3, Settings: trip.DefaultSettings(), Stages: fixtureStages(b)}
	b.Run("memo", func(b *testing.B) {
		v := view{today: trip.DateOf(fixedNow), hours: &ridingHours{}}
		v.digest(s, nil)
		b.ReportAllocs()
		for b.Loop() {
			v.digest(s, nil)
		}
	})
	b.Run("no memo (before)", func(b *testing.B) {
		v := view{today: trip.DateOf(fixedNow)}
		b.ReportAllocs()
		for b.Loop() {
			v.digest(s, nil)
		}
	})
}
