package apiserver

import (
	"github.com/roadbook/roadbook/domain/pacing"
	"github.com/roadbook/roadbook/domain/trip"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
)

// presetFromPB maps the API's presets to the engine's; UNSPECIFIED (and
// CUSTOM, which has no values) leave the settings as they are.
var presetFromPB = map[roadbookv1.RiderPreset]pacing.Preset{
	roadbookv1.RiderPreset_RIDER_PRESET_BEGINNER:     pacing.PresetBeginner,
	roadbookv1.RiderPreset_RIDER_PRESET_INTERMEDIATE: pacing.PresetIntermediate,
	roadbookv1.RiderPreset_RIDER_PRESET_EXPERT:       pacing.PresetExpert,
}

// presetPB names a trip's preset in the API's enum: CUSTOM when its values
// match none.
func presetPB(p pacing.Preset) roadbookv1.RiderPreset {
	if k, ok := keyOf(presetFromPB, p); ok {
		return k
	}
	return roadbookv1.RiderPreset_RIDER_PRESET_CUSTOM
}

// keyOf reads one of the API's enum tables backwards: the key whose value is
// v, and whether there is one.
func keyOf[K, V comparable](m map[K]V, v V) (K, bool) {
	for k, x := range m {
		if x == v {
			return k, true
		}
	}
	var zero K
	return zero, false
}

// settingsPatch turns a validated settings input into a domain patch.
func settingsPatch(in *roadbookv1.TripSettingsInput) (trip.SettingsPatch, error) {
	var p trip.SettingsPatch
	if in == nil {
		return p, nil
	}
	p.FatigueFactor = in.FatigueFactor
	p.ElevationPenaltyM = in.ElevationPenaltyMPerKm
	p.MaxDistancePerDayKm = in.MaxDistancePerDayKm
	p.AverageSpeedKmH = in.AverageSpeedKmPerH
	if in.DepartureHour != nil {
		h := int(*in.DepartureHour)
		p.DepartureHour = &h
	}
	p.EbikeMode = in.EbikeMode
	p.DailyRidingHours = in.DailyRidingHours
	if in.RestDayEvery != nil {
		n := int(*in.RestDayEvery)
		p.RestDayEvery = &n
	}
	if in.Preset != nil {
		if pr, ok := presetFromPB[*in.Preset]; ok {
			p.Preset = &pr
		}
	}
	if in.StartDate != nil {
		d, err := trip.ParseDate("settings.startDate", *in.StartDate)
		if err != nil {
			return p, err
		}
		p.StartDate = &d
	}
	if in.EndDate != nil {
		d, err := trip.ParseDate("settings.endDate", *in.EndDate)
		if err != nil {
			return p, err
		}
		p.EndDate = &d
	}
	if in.EnabledAccommodationTypes != nil {
		p.AccommodationTypes = []trip.AccommodationType{}
		for _, t := range in.EnabledAccommodationTypes.GetTypes() {
			p.AccommodationTypes = append(p.AccommodationTypes, accTypeFromPB(t))
		}
	}
	return p, nil
}
