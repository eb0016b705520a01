package alert

import (
	"fmt"
	"math"
	"time"

	"github.com/roadbook/roadbook/domain/pacing"
)

// earliestSuggestedDeparture is the floor of the departure hour the sunset
// rule suggests (DOMAIN §5): nobody is told to leave before 5 am.
const earliestSuggestedDeparture = 5

// SunsetCheck is the sunset rule's reasoning for one stage, exposed so an
// API can show "arrival 22:55, dark at 22:40".
type SunsetCheck struct {
	// Zone is the IANA zone of the stage end point.
	Zone string
	// Civil is the civil-twilight passage at the stage end on the stage date.
	Civil Passage
	// TwilightEndHour is civil dusk in local hours after local midnight of
	// the stage date (may exceed 24); meaningful only when Civil.Kind ==
	// Crosses.
	TwilightEndHour float64
	// Rider is the rider-time estimate for the stage.
	Rider RiderTime
}

// ArrivesAfterTwilight says whether the rider arrives in the dark: after
// civil dusk, or at all during a polar night when civil twilight never comes
// (the sun stays more than 6° below the horizon all day). Under the midnight
// sun or white nights (civil twilight never ends) nobody arrives in the dark.
func (c SunsetCheck) ArrivesAfterTwilight() bool {
	switch c.Civil.Kind {
	case AlwaysAbove:
		return false
	case AlwaysBelow:
		return true
	}
	return c.Rider.ArrivalHour() > c.TwilightEndHour
}

// SuggestedDepartureHour is max(5, floor(twilight − ride duration)), the
// departure that arrives before civil dusk. ok is false when no departure
// fixes the day: polar night, or the suggestion is not earlier than the
// current departure (the day is too long for the daylight; split it).
func (c SunsetCheck) SuggestedDepartureHour() (hour int, ok bool) {
	if c.Civil.Kind != Crosses {
		return 0, false
	}
	h := int(math.Max(earliestSuggestedDeparture, math.Floor(c.TwilightEndHour-c.Rider.DurationHours())))
	return h, float64(h) < c.Rider.DepartureHour
}

// CheckSunset computes the sunset rule's inputs for stage s: the time zone of
// its end point, civil twilight there on its date and the rider time. The
// stage must have a date.
func CheckSunset(s Stage, set Settings, zones ZoneFinder) (SunsetCheck, error) {
	return checkSunset(s, set, pacing.NewModel(set), zones)
}

// checkSunset is CheckSunset with the model already built.
func checkSunset(s Stage, set Settings, model pacing.Model, zones ZoneFinder) (SunsetCheck, error) {
	if s.Date.IsZero() {
		return SunsetCheck{}, fmt.Errorf("%w: stage %d has no date for the sunset rule", ErrInvalidInput, s.Index)
	}
	loc, zone, err := zoneLocation(zones, s.End.Lat, s.End.Lon)
	if err != nil {
		return SunsetCheck{}, err
	}
	y, m, d := civilDate(s.Date)
	day := SolarEvents(y, m, d, s.End.Lat, s.End.Lon)
	c := SunsetCheck{
		Zone:  zone,
		Civil: day.Civil,
		Rider: estimate(s, set, model),
	}
	if day.Civil.Kind == Crosses {
		c.TwilightEndHour = clockHours(day.Civil.Set.In(loc), y, m, d)
	}
	return c, nil
}

// sunsetArrival raises sunset_arrival_after_twilight for a dated riding
// stage arriving after civil dusk.
func sunsetArrival(s Stage, set Settings, m pacing.Model, zones ZoneFinder) (Alert, bool, error) {
	if s.RestDay || s.Date.IsZero() || s.DistanceM == 0 {
		return Alert{}, false, nil
	}
	c, err := checkSunset(s, set, m, zones)
	if err != nil {
		return Alert{}, false, err
	}
	if !c.ArrivesAfterTwilight() {
		return Alert{}, false, nil
	}
	a := Alert{
		Code:       CodeSunsetArrivalAfterTwilight,
		Severity:   SeverityWarning,
		StageIndex: s.Index,
		HasPoint:   true,
		Lat:        s.End.Lat,
		Lon:        s.End.Lon,
		Value:      c.Rider.ArrivalHour(),
	}
	arrival := clock(c.Rider.ArrivalHour())
	switch h, ok := c.SuggestedDepartureHour(); {
	case c.Civil.Kind == AlwaysBelow:
		a.Message = fmt.Sprintf("Stage %d ends in polar night: the sun stays more than 6° below the horizon all day (arrival %s, %s).", s.Index+1, arrival, c.Zone)
	case ok:
		a.Message = fmt.Sprintf("Stage %d arrives at %s, after civil twilight ends at %s (%s); leave at %02d:00 instead.", s.Index+1, arrival, clock(c.TwilightEndHour), c.Zone, h)
		a.Action = &Action{Kind: ActionSetDepartureHour, DepartureHour: h}
	default:
		a.Message = fmt.Sprintf("Stage %d arrives at %s, after civil twilight ends at %s (%s), even leaving at %02d:00; consider splitting it.", s.Index+1, arrival, clock(c.TwilightEndHour), c.Zone, h)
	}
	return a, true, nil
}

// clockHours reads t as wall-clock hours after midnight of the civil date
// y-m-d (25.5 is 01:30 the next day). Wall clock, not elapsed time: on a
// daylight-saving day the rider's departureHour is a clock hour too.
func clockHours(t time.Time, y int, m time.Month, d int) float64 {
	ty, tm, td := t.Date()
	days := date(ty, tm, td).Sub(date(y, m, d)).Hours() / 24
	return days*24 + float64(t.Hour()) + float64(t.Minute())/60 + float64(t.Second())/3600
}

// clock formats fractional hours as HH:MM (hours past 24 stay past 24, so
// "25:10" reads as 1:10 the next morning).
func clock(h float64) string {
	m := int(math.Round(h * 60))
	return fmt.Sprintf("%02d:%02d", m/60, m%60)
}
