package provider

import (
	"context"
	"time"

	"github.com/roadbook/roadbook/domain/alert"
	"github.com/roadbook/roadbook/domain/route"
)

// Accommodation search radii of DOMAIN §6: 5 km around the stage end, then
// a re-scan up to 15 km when nothing was found.
const (
	AccommodationRadiusM       = 5000.0
	AccommodationRescanRadiusM = 15000.0
)

// Stage is what the analyzer needs of one stage.
type Stage struct {
	// Index is the stage's 0-based position.
	Index int
	// Date is the civil date ridden; zero when the trip has no dates (the
	// weather rules then have nothing to forecast).
	Date time.Time
	// Start and End are the stage's endpoints.
	Start, End route.Point
	// Points is the stage geometry (for the OSM rules).
	Points []route.Point
	// RestDay marks a 0 km rest day (skipped).
	RestDay bool
	// Rider is the day's schedule (trip.Stage.RiderTime: the effort model
	// under the trip's settings), from which the time the rider passes each
	// resupply point is read; zero leaves open-at-passage unknown.
	Rider alert.RiderTime
}

// StageResupply is one stage's resupply points: the nearest few per kind and
// stretch (alert.SelectResupply) in route order, and the counts of the rest.
type StageResupply struct {
	Points  []alert.ResupplyPoint
	Omitted []alert.ResupplyOmitted
}

// Result is what the data providers found, with the availability of each
// family they cover — evaluated, or unavailable with a reason; never silent.
type Result struct {
	// Alerts are the OSM alerts (EventFamily names the event family of
	// each) and the weather alerts (comfort per stage, headwind trip-wide).
	Alerts []alert.Alert
	// Accommodations are the shortlists (≤ 5) per stage index.
	Accommodations map[int][]alert.Accommodation
	// Resupply are the resupply points per riding stage index, when the OSM
	// family was evaluated.
	Resupply map[int]StageResupply
	// Weather is each dated riding stage's weather by stage index, when the
	// weather family was evaluated.
	Weather map[int]alert.DayWeather
	// Availability has one entry for alert.FamilyOSM and one for
	// alert.FamilyWeather.
	Availability []alert.Availability
}

// Analyzer evaluates the provider-backed rule families. A nil provider is
// "not configured": its family is unavailable with that reason.
type Analyzer struct {
	// Overpass serves accommodations and the OSM rules (FamilyOSM: one
	// query per stage, see Along); nil = off.
	Overpass *Overpass
	// Weather serves forecasts (FamilyWeather); nil = off.
	Weather *OpenMeteo
	// Enabled are the accommodation types the trip wants (nil = all).
	Enabled []alert.AccommodationType
	// SkipAccommodations leaves the shortlists to their own job
	// (AccommodationsRequested): the analysis then asks Overpass only for
	// the elements of the OSM rules.
	SkipAccommodations bool
	// Holiday reports whether date is a public holiday at lat/lon, for the
	// PH rules of opening hours; nil means none is known.
	Holiday func(lat, lon float64, date time.Time) bool
}

// Analyze runs both families over the stages. A provider failure marks its
// family unavailable (and drops that family's partial findings); only the
// caller's context ending is returned as an error.
func (a *Analyzer) Analyze(ctx context.Context, stages []Stage) (Result, error) {
	res := Result{Accommodations: map[int][]alert.Accommodation{}}
	osmAlerts, accs, resupply, osmAvail := a.osm(ctx, stages)
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	res.Resupply = resupply
	wAlerts, weather, wAvail := a.weather(ctx, stages)
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	res.Weather = weather
	res.Alerts = append(osmAlerts, wAlerts...)
	if accs != nil {
		res.Accommodations = accs
	}
	res.Availability = []alert.Availability{osmAvail, wAvail}
	return res, nil
}

func (a *Analyzer) osm(ctx context.Context, stages []Stage) ([]alert.Alert, map[int][]alert.Accommodation, map[int]StageResupply, alert.Availability) {
	if a.Overpass == nil {
		return nil, nil, nil, alert.Unavailable(alert.FamilyOSM, "OSM data provider not configured")
	}
	var alerts []alert.Alert
	accs := map[int][]alert.Accommodation{}
	resupply := map[int]StageResupply{}
	for _, s := range stages {
		if s.RestDay {
			continue
		}
		if !a.SkipAccommodations {
			shortlist, err := a.Shortlist(ctx, s, AccommodationRadiusM)
			if err != nil {
				return nil, nil, nil, alert.Unavailable(alert.FamilyOSM, unavailableReason("overpass", err))
			}
			accs[s.Index] = shortlist
		}

		if len(s.Points) < 2 {
			continue
		}
		feats, err := a.Overpass.Along(ctx, s.Points)
		if err != nil {
			return nil, nil, nil, alert.Unavailable(alert.FamilyOSM, unavailableReason("overpass", err))
		}
		t := newTrack(s.Points, trackStepM)
		pts := resupplyPoints(t, feats)
		a.openAtPassage(s, pts)
		alerts = append(alerts, osmAlerts(s, t, feats, pts)...)
		kept, omitted := alert.SelectResupply(pts)
		resupply[s.Index] = StageResupply{Points: kept, Omitted: omitted}
	}
	return alerts, accs, resupply, alert.Evaluated(alert.FamilyOSM)
}

// Shortlist searches accommodations radiusM around the stage's end
// (re-scanning up to AccommodationRescanRadiusM when nothing was found) and
// ranks them (alert.Shortlist, ≤ 5). Overpass must be set.
func (a *Analyzer) Shortlist(ctx context.Context, s Stage, radiusM float64) ([]alert.Accommodation, error) {
	cands, err := a.Overpass.Accommodations(ctx, s.End, radiusM)
	if err == nil && len(cands) == 0 && radiusM < AccommodationRescanRadiusM {
		cands, err = a.Overpass.Accommodations(ctx, s.End, AccommodationRescanRadiusM)
	}
	if err != nil {
		return nil, err
	}
	var month time.Month
	if !s.Date.IsZero() {
		month = s.Date.Month()
	}
	return alert.Shortlist(cands, a.Enabled, month), nil
}

// weather finds each dated riding stage's weather at the middle of its
// route — a forecast within the horizon, typical conditions beyond it —
// and raises the comfort alerts (forecast and typical, said which) and the
// trip-wide headwind alert (forecast days only).
func (a *Analyzer) weather(ctx context.Context, stages []Stage) ([]alert.Alert, map[int]alert.DayWeather, alert.Availability) {
	if a.Weather == nil {
		return nil, nil, alert.Unavailable(alert.FamilyWeather, "weather provider not configured")
	}
	days := map[int]alert.DayWeather{}
	var typical []WeatherAt
	var typicalOf []int
	dated := 0
	for i, s := range stages {
		if s.RestDay || s.Date.IsZero() {
			continue
		}
		dated++
		at := midpoint(s)
		if a.Weather.Forecastable(s.Date) {
			w, ok, err := a.Weather.Forecast(ctx, at, s.Date)
			switch {
			case err != nil && !beyondForecast(err):
				return nil, nil, alert.Unavailable(alert.FamilyWeather, unavailableReason("open-meteo", err))
			case ok:
				days[i] = w
				continue
			}
		}
		typical = append(typical, WeatherAt{Point: at, Date: s.Date})
		typicalOf = append(typicalOf, i)
	}
	if len(typical) > 0 {
		tw, err := a.Weather.Typical(ctx, typical)
		if err != nil {
			return nil, nil, alert.Unavailable(alert.FamilyWeather, unavailableReason("open-meteo", err))
		}
		for j, w := range tw {
			days[typicalOf[j]] = w
		}
	}
	switch {
	case dated == 0:
		return nil, nil, alert.Unavailable(alert.FamilyWeather, "the trip has no dates to forecast")
	case len(days) == 0:
		return nil, nil, alert.Unavailable(alert.FamilyWeather, "no forecast yet for the stage dates")
	}
	var sw []alert.StageWeather
	out := map[int]alert.DayWeather{}
	for i, s := range stages {
		w, ok := days[i]
		if !ok {
			continue
		}
		w = w.Finish(alert.Bearing(s.Start, s.End))
		out[s.Index] = w
		sw = append(sw, alert.StageWeather{Index: s.Index, Start: s.Start, End: s.End, Typical: w.Typical,
			Weather: alert.Weather{TemperatureC: w.TempMaxC, WindKmh: w.WindMaxKmh, WindFromDeg: w.WindFromDeg,
				HumidityPct: w.HumidityPct, RainProbabilityPct: w.PrecipProbabilityPct}})
	}
	alerts := alert.ComfortAlerts(sw)
	if h, ok := alert.HeadwindAlert(sw); ok {
		alerts = append(alerts, h)
	}
	return alerts, out, alert.Evaluated(alert.FamilyWeather)
}

// midpoint is the point halfway along a stage's route (its end when it has
// no geometry): where its weather is read.
func midpoint(s Stage) route.Point {
	if len(s.Points) < 2 {
		return s.End
	}
	total := 0.0
	for i := 1; i < len(s.Points); i++ {
		total += route.Haversine(s.Points[i-1], s.Points[i])
	}
	walked := 0.0
	for i := 1; i < len(s.Points); i++ {
		walked += route.Haversine(s.Points[i-1], s.Points[i])
		if walked >= total/2 {
			return s.Points[i]
		}
	}
	return s.End
}
