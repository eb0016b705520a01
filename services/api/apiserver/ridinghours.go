package apiserver

import (
	"fmt"
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
// every field, printed (%v prints each float64 in its shortest exact form),
// so a field added to the settings joins the key by itself.
func settingsKey(s trip.Settings) string { return fmt.Sprintf("%v", s) }

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
