package alert

import (
	"fmt"

	"github.com/roadbook/roadbook/domain/pacing"
)

// Evaluate runs every geometry-only rule of DOMAIN §5 over a trip's stages
// and returns the alerts in a deterministic order: by stage, and within a
// stage in this rule order — continuity gap before it, elevation_gain,
// stage_over_capacity, steep_gradient (along the stage), ebike_range_exceeded,
// sunset_arrival_after_twilight, rest_day_suggested, calendar_sunday,
// calendar_public_holiday. pacing_over_capacity is the pacing engine's and
// the weather and OSM rules are the worker's.
//
// stages must be in order with Index equal to their position. zones is only
// consulted for dated stages (sunset and holidays) and may be nil when no
// stage has a date. Invalid input gives an error wrapping ErrInvalidInput;
// a failed zone lookup one wrapping ErrNoZone.
func Evaluate(stages []Stage, set Settings, zones ZoneFinder) ([]Alert, error) {
	if err := checkSettings(set); err != nil {
		return nil, err
	}
	model := pacing.NewModel(set)
	for i, s := range stages {
		if err := s.validate(i); err != nil {
			return nil, err
		}
		if !s.Date.IsZero() && zones == nil {
			return nil, fmt.Errorf("%w: stage %d has a date but no ZoneFinder was given", ErrInvalidInput, i)
		}
	}
	rest := map[int]Alert{}
	for _, a := range restDays(stages, set) {
		rest[a.StageIndex] = a
	}
	var out []Alert
	for i, s := range stages {
		if i > 0 {
			if a, ok := continuityGap(stages[i-1], s); ok {
				out = append(out, a)
			}
		}
		if a, ok := elevationGain(s, set, model); ok {
			out = append(out, a)
		}
		if a, ok := overCapacity(s, set, model); ok {
			out = append(out, a)
		}
		out = append(out, steepGradients(s)...)
		if a, ok := ebikeRange(s, set); ok {
			out = append(out, a)
		}
		a, ok, err := sunsetArrival(s, set, model, zones)
		if err != nil {
			return nil, fmt.Errorf("stage %d sunset rule: %w", i, err)
		}
		if ok {
			out = append(out, a)
		}
		if a, ok := rest[i]; ok {
			out = append(out, a)
		}
		cal, err := calendarDay(s, zones)
		if err != nil {
			return nil, fmt.Errorf("stage %d calendar rule: %w", i, err)
		}
		out = append(out, cal...)
	}
	return out, nil
}
