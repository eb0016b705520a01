package pacing

// Preset names a documented set of rider values (docs/design/PACING.md
// "Presets"), so a rider can start from "I am a beginner" instead of five
// numbers. A preset only fills values: they stay visible in the trip's
// settings and editable one by one, and a trip whose values match no preset
// is Custom.
type Preset string

// The presets. Custom is not a set of values: it names settings that match
// none of the others (including every trip paced before presets existed).
const (
	PresetBeginner     Preset = "beginner"
	PresetIntermediate Preset = "intermediate"
	PresetExpert       Preset = "expert"
	PresetCustom       Preset = "custom"
)

// presetValues are the values a preset sets. Loaded touring or bikepacking
// on mixed surfaces, not racing: the flat speeds are moving speeds with a
// loaded bike; the elevation penalties put a 5 % climb at 5.8, 9 and
// 12.8 km/h (about 290, 450 and 640 m of climbing an hour); a fresh day is
// 4.5, 6 or 8 hours in the saddle; the km caps sit well above a flat day at
// those speeds so they only bind on long descents; fatigue settles at
// FatigueFloor after 3, 4 or 6 riding days.
type presetValues struct {
	fatigueFactor, elevationPenalty, maxDistanceKm, averageSpeedKmh, dailyRidingHours float64
	restDayEvery                                                                      int
}

var presets = map[Preset]presetValues{
	PresetBeginner:     {fatigueFactor: 0.85, elevationPenalty: 35, maxDistanceKm: 90, averageSpeedKmh: 14, dailyRidingHours: 4.5},
	PresetIntermediate: {fatigueFactor: 0.9, elevationPenalty: 50, maxDistanceKm: 150, averageSpeedKmh: 18, dailyRidingHours: 6},
	PresetExpert:       {fatigueFactor: 0.95, elevationPenalty: 70, maxDistanceKm: 250, averageSpeedKmh: 22, dailyRidingHours: 8},
}

// Presets lists the presets that carry values, easiest first.
func Presets() []Preset { return []Preset{PresetBeginner, PresetIntermediate, PresetExpert} }

// Valid reports whether p is one of the four preset names.
func (p Preset) Valid() bool {
	_, ok := presets[p]
	return ok || p == PresetCustom
}

// Apply sets the preset's values on s (the rider's fitness: fatigue,
// climbing, cap, speed, daily hours, planned rest days) and leaves the
// others (dates, departure, e-bike mode) alone. Custom changes nothing.
func (p Preset) Apply(s Settings) Settings {
	p.apply(&s)
	return s
}

func (p Preset) apply(s *Settings) {
	v, ok := presets[p]
	if !ok {
		return
	}
	s.FatigueFactor, s.ElevationPenalty, s.MaxDistancePerDayKm = v.fatigueFactor, v.elevationPenalty, v.maxDistanceKm
	s.AverageSpeedKmh, s.DailyRidingHours, s.RestDayEvery = v.averageSpeedKmh, v.dailyRidingHours, v.restDayEvery
}

// PresetOf names the preset whose values s has, or Custom: the preset a
// trip shows is derived from its values, so editing one value of a preset
// makes the trip custom and setting them all back makes it that preset
// again.
func PresetOf(s Settings) Preset {
	for _, p := range Presets() {
		if sameValues(p.Apply(s), s) {
			return p
		}
	}
	return PresetCustom
}

// sameValues compares the values a preset sets.
func sameValues(a, b Settings) bool {
	return a.FatigueFactor == b.FatigueFactor && a.ElevationPenalty == b.ElevationPenalty &&
		a.MaxDistancePerDayKm == b.MaxDistancePerDayKm && a.AverageSpeedKmh == b.AverageSpeedKmh &&
		a.DailyRidingHours == b.DailyRidingHours && a.RestDayEvery == b.RestDayEvery
}
