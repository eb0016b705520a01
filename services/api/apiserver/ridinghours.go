package apiserver

import (
	"strconv"
	"sync"
	"weak"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/domain/trip"
)

// ridingHours remembers each stage's modelled riding hours, the one field
// of a trip digest that is computed rather than copied: the effort model
// runs over the day's whole geometry (trip.Stage.RiderTime), for every
// stage on every digest built. A digest is built again each time the
// trip's stream moves — an agent polls get_trip while labels and the
// analysis land, which leave the geometry as it was — so the model ran
// again over unchanged days on most reads (2.7 % of the API's CPU under
// `bench-api -cycle`).
//
// An entry is keyed by the geometry itself (a weak pointer to its first
// point, and its length), the stage's other inputs to the model and the
// settings as printed. Folded states never modify a geometry in place (the
// per-process state cache shares them between states the same way), and a
// weak pointer never equals one made for another allocation, even at a
// reused address, so a hit is the value RiderTime would compute
// (TestRidingHoursAreRiderTimes). The cache holds no geometry alive.
type ridingHours struct {
	once    sync.Once
	entries *lru.Cache[ridingKey, float64]
}

type ridingKey struct {
	geometry                    weak.Pointer[route.Point]
	points                      int
	restDay                     bool
	distanceM, ascentM, descent float64
	settings                    string
}

// ridingHoursSize bounds the memo: 30 stages of about 270 trips.
const ridingHoursSize = 8192

// settingsKey is the part of the memo's key that the trip's settings make:
// every field, each float64 in its shortest exact form, so two settings
// share a key only when they are equal. It is written out field by field
// (fmt's %v of the struct cost as much as the memo saved);
// TestRidingHoursAreRiderTimes fails when trip.Settings gains a field, to
// have it added here.
func settingsKey(s trip.Settings) string {
	b := make([]byte, 0, 160)
	for _, f := range [...]float64{s.FatigueFactor, s.ElevationPenaltyM, s.MaxDistancePerDayKm, s.AverageSpeedKmH, s.DailyRidingHours} {
		b = strconv.AppendFloat(b, f, 'g', -1, 64)
		b = append(b, '|')
	}
	for _, n := range [...]int{s.RestDayEvery, s.Engine, s.DepartureHour} {
		b = strconv.AppendInt(b, int64(n), 10)
		b = append(b, '|')
	}
	b = strconv.AppendBool(b, s.EbikeMode)
	b = append(b, '|')
	b = append(b, s.Preset...)
	b = append(b, '|')
	b = append(b, s.StartDate.String()...)
	b = append(b, '|')
	b = append(b, s.EndDate.String()...)
	for _, t := range s.AccommodationTypes {
		b = append(b, '|')
		b = append(b, t...)
	}
	return string(b)
}

// settingsFields is how many fields of trip.Settings settingsKey writes.
const settingsFields = 13

// of is st.RiderTime(set).RidingHours, computed once per geometry and
// settings; settings is settingsKey(set).
func (r *ridingHours) of(st trip.Stage, set trip.Settings, settings string) float64 {
	if len(st.Geometry) < 2 || st.RestDay {
		return st.RiderTime(set).RidingHours // no model run over points
	}
	r.once.Do(func() { r.entries, _ = lru.New[ridingKey, float64](ridingHoursSize) })
	k := ridingKey{geometry: weak.Make(&st.Geometry[0]), points: len(st.Geometry), restDay: st.RestDay,
		distanceM: st.DistanceM, ascentM: st.AscentM, descent: st.DescentM, settings: settings}
	if h, ok := r.entries.Get(k); ok {
		return h
	}
	h := st.RiderTime(set).RidingHours
	r.entries.Add(k, h)
	return h
}
