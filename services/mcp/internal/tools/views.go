package tools

import (
	"fmt"
	"math"
	"regexp"
	"strings"

	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
)

// uuidRe is a trip id as the API writes it.
var uuidRe = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// Next is the one call an agent should make next: the same shape in results
// and inside errors.
type Next struct {
	Tool         string    `json:"tool" jsonschema:"the tool to call"`
	Arguments    Arguments `json:"arguments" jsonschema:"the arguments to pass, as is"`
	AfterSeconds int       `json:"afterSeconds,omitempty" jsonschema:"wait this long before calling"`
	Why          string    `json:"why" jsonschema:"why this call, written by Roadbook"`
}

func nextFromAPI(n *roadbookv1.NextCall) *Next {
	args := map[string]any{}
	if n.GetArguments() != nil {
		args = n.GetArguments().AsMap()
	}
	return &Next{Tool: n.GetTool(), Arguments: args, AfterSeconds: int(n.GetAfterSeconds()), Why: n.GetWhy()}
}

// getTripNext is "read the trip again in a moment".
func getTripNext(tripID, why string) *Next {
	return &Next{Tool: "get_trip", Arguments: map[string]any{"tripId": tripID}, AfterSeconds: 2, Why: why}
}

// LatLon is a WGS-84 position.
type LatLon struct {
	Lat float64 `json:"lat" jsonschema:"latitude in decimal degrees, -90 to 90"`
	Lon float64 `json:"lon" jsonschema:"longitude in decimal degrees, -180 to 180"`
}

func latLon(p *roadbookv1.LatLon) *LatLon {
	if p == nil {
		return nil
	}
	return &LatLon{Lat: round(p.GetLat(), 5), Lon: round(p.GetLon(), 5)}
}

func (p *LatLon) pb() *roadbookv1.LatLon {
	if p == nil {
		return nil
	}
	return &roadbookv1.LatLon{Lat: p.Lat, Lon: p.Lon}
}

// AlertCounts counts alerts by severity.
type AlertCounts struct {
	Critical int `json:"critical,omitempty"`
	Warning  int `json:"warning,omitempty"`
	Nudge    int `json:"nudge,omitempty"`
}

func counts(c *roadbookv1.AlertCounts) *AlertCounts {
	if c == nil {
		return nil
	}
	return &AlertCounts{Critical: int(c.GetCritical()), Warning: int(c.GetWarning()), Nudge: int(c.GetNudge())}
}

// Part is one computation's progress.
type Part struct {
	State     string `json:"state" jsonschema:"pending, running, done, failed or unavailable"`
	Done      int    `json:"done,omitempty" jsonschema:"items finished, when counted"`
	Total     int    `json:"total,omitempty" jsonschema:"items in total, when counted"`
	Reason    string `json:"reason,omitempty" jsonschema:"for failed or unavailable: what went wrong"`
	Retryable bool   `json:"retryable,omitempty" jsonschema:"for failed: whether retrying can help"`
}

// Progress is where each asynchronous computation of a trip stands.
type Progress struct {
	Route    Part `json:"route"`
	Stages   Part `json:"stages"`
	Labels   Part `json:"labels"`
	Analysis Part `json:"analysis"`
}

func part(p *roadbookv1.PartProgress) Part {
	st := strings.ToLower(strings.TrimPrefix(p.GetState().String(), "COMPUTATION_STATE_"))
	if p.GetState() == roadbookv1.ComputationState_COMPUTATION_STATE_UNSPECIFIED {
		st = "pending"
	}
	return Part{State: st, Done: int(p.GetDone()), Total: int(p.GetTotal()), Reason: bound(p.GetReason(), 200), Retryable: p.GetRetryable()}
}

func (p Part) pending() bool { return p.State == "pending" || p.State == "running" }

// Settings are a trip's settings with defaults filled in.
type Settings struct {
	Preset                 string   `json:"preset" jsonschema:"beginner, intermediate, expert (the values below match that preset) or custom"`
	DailyRidingHours       float64  `json:"dailyRidingHours" jsonschema:"riding hours of a fresh day, breaks not included: the rider's daily capacity"`
	RestDayEvery           int      `json:"restDayEvery" jsonschema:"a rest day is planned after every N riding days; 0 = none planned"`
	MaxDistancePerDayKm    float64  `json:"maxDistancePerDayKm"`
	AverageSpeedKmh        float64  `json:"averageSpeedKmh"`
	FatigueFactor          float64  `json:"fatigueFactor"`
	ElevationPenaltyMPerKm float64  `json:"elevationPenaltyMPerKm"`
	DepartureHour          int      `json:"departureHour"`
	EbikeMode              bool     `json:"ebikeMode"`
	PacingEngine           int      `json:"pacingEngine" jsonschema:"1 = days cut by the old distance-only engine (kept until a pacing setting changes or repace is sent), 2 = the effort model"`
	StartDate              string   `json:"startDate,omitempty"`
	EndDate                string   `json:"endDate,omitempty"`
	AccommodationTypes     []string `json:"accommodationTypes"`
	Locked                 bool     `json:"locked" jsonschema:"the trip has started: structural edits and settings changes are refused"`
}

func settings(s *roadbookv1.TripSettings) Settings {
	out := Settings{
		Preset:           strings.ToLower(strings.TrimPrefix(s.GetPreset().String(), "RIDER_PRESET_")),
		DailyRidingHours: s.GetDailyRidingHours(), RestDayEvery: int(s.GetRestDayEvery()), PacingEngine: int(s.GetPacingEngine()),
		MaxDistancePerDayKm: s.GetMaxDistancePerDayKm(), AverageSpeedKmh: s.GetAverageSpeedKmPerH(),
		FatigueFactor: s.GetFatigueFactor(), ElevationPenaltyMPerKm: s.GetElevationPenaltyMPerKm(),
		DepartureHour: int(s.GetDepartureHour()), EbikeMode: s.GetEbikeMode(),
		StartDate: s.GetStartDate(), EndDate: s.GetEndDate(), Locked: s.GetLocked(),
		AccommodationTypes: []string{},
	}
	for _, t := range s.GetEnabledAccommodationTypes() {
		out.AccommodationTypes = append(out.AccommodationTypes, accommodationType(t))
	}
	return out
}

// accommodationTypes are the seven kinds, as agents spell them.
var accommodationTypes = []any{"hotel", "guest_house", "chalet", "hostel", "alpine_hut", "camp_site", "wilderness_hut"}

func accommodationType(t roadbookv1.AccommodationType) string {
	return strings.ToLower(strings.TrimPrefix(t.String(), "ACCOMMODATION_TYPE_"))
}

// SettingsInput is a settings change: only the fields present are set.
type SettingsInput struct {
	Preset                 *string  `json:"preset,omitempty" jsonschema:"set a rider preset's values first (beginner: 14 km/h, 4.5 h a day, 35 m, 90 km, fatigue 0.85; intermediate, the default: 18 km/h, 6 h, 50 m, 150 km, 0.9; expert: 22 km/h, 8 h, 70 m, 250 km, 0.95); the other fields of this change then override them (and make the trip custom)"`
	DailyRidingHours       *float64 `json:"dailyRidingHours,omitempty" jsonschema:"riding hours of a fresh day, breaks not included, 1 to 16 (default 6): with no dates the number of days follows from the route's riding time and this"`
	RestDayEvery           *int     `json:"restDayEvery,omitempty" jsonschema:"plan a rest day after every N riding days: 0 (none, default) or 2 to 30"`
	MaxDistancePerDayKm    *float64 `json:"maxDistancePerDayKm,omitempty" jsonschema:"hard cap on one day's distance in km, 30 to 300 (default 150)"`
	AverageSpeedKmh        *float64 `json:"averageSpeedKmh,omitempty" jsonschema:"riding speed on level ground in km/h, 5 to 50 (default 18); calibrates the riding-time model"`
	FatigueFactor          *float64 `json:"fatigueFactor,omitempty" jsonschema:"each riding day after the first of a block rides this share of the day before, down to 80 % of a fresh day; 0.5 to 1.0, 1 = no fatigue (default 0.9)"`
	ElevationPenaltyMPerKm *float64 `json:"elevationPenaltyMPerKm,omitempty" jsonschema:"metres of climbing that cost as much riding time as one extra flat km (a 5 % climb is ridden at averageSpeed × penalty / (penalty + 50)), above 0 (default 50)"`
	DepartureHour          *int     `json:"departureHour,omitempty" jsonschema:"local departure hour, 0 to 23 (default 8)"`
	EbikeMode              *bool    `json:"ebikeMode,omitempty" jsonschema:"e-bike: motor help on climbs, days within the battery range (80 km minus 1 km per 25 m climbed) and the e-bike range alert"`
	StartDate              *string  `json:"startDate,omitempty" jsonschema:"first day, YYYY-MM-DD; empty string clears it"`
	EndDate                *string  `json:"endDate,omitempty" jsonschema:"last day, YYYY-MM-DD, after startDate; empty string clears it"`
	AccommodationTypes     []string `json:"accommodationTypes,omitempty" jsonschema:"accommodation kinds to search, at least one"`
}

func (s *SettingsInput) pb() *roadbookv1.TripSettingsInput {
	if s == nil {
		return nil
	}
	out := &roadbookv1.TripSettingsInput{
		FatigueFactor: s.FatigueFactor, ElevationPenaltyMPerKm: s.ElevationPenaltyMPerKm,
		MaxDistancePerDayKm: s.MaxDistancePerDayKm, AverageSpeedKmPerH: s.AverageSpeedKmh,
		EbikeMode: s.EbikeMode, StartDate: s.StartDate, EndDate: s.EndDate,
	}
	if s.DepartureHour != nil {
		h := uint32(*s.DepartureHour)
		out.DepartureHour = &h
	}
	out.DailyRidingHours = s.DailyRidingHours
	if s.RestDayEvery != nil {
		n := uint32(*s.RestDayEvery)
		out.RestDayEvery = &n
	}
	if s.Preset != nil {
		p := roadbookv1.RiderPreset(roadbookv1.RiderPreset_value["RIDER_PRESET_"+strings.ToUpper(*s.Preset)])
		out.Preset = &p
	}
	if s.AccommodationTypes != nil {
		set := &roadbookv1.AccommodationTypeSet{}
		for _, t := range s.AccommodationTypes {
			set.Types = append(set.Types, roadbookv1.AccommodationType(roadbookv1.AccommodationType_value["ACCOMMODATION_TYPE_"+strings.ToUpper(t)]))
		}
		out.EnabledAccommodationTypes = set
	}
	return out
}

// StageLine is one day of a trip digest: enough to read it at a glance.
type StageLine struct {
	Index         int          `json:"index"`
	Date          string       `json:"date,omitempty"`
	RestDay       bool         `json:"restDay,omitempty"`
	DistanceKm    float64      `json:"distanceKm"`
	AscentM       int          `json:"ascentM"`
	DescentM      int          `json:"descentM"`
	RidingHours   float64      `json:"ridingHours,omitempty" jsonschema:"modelled riding time in hours, breaks not included: what the days are balanced on"`
	From          string       `json:"from,omitempty" jsonschema:"place name at the start (third-party data)"`
	To            string       `json:"to,omitempty" jsonschema:"place name at the end (third-party data)"`
	Alerts        *AlertCounts `json:"alerts,omitempty" jsonschema:"alerts by severity; absent until analysed"`
	Accommodation string       `json:"accommodation,omitempty" jsonschema:"name of the chosen accommodation (third-party data)"`
	Analyzed      bool         `json:"analyzed"`
}

// TripOut is the trip digest: settings, progress, one line per day.
type TripOut struct {
	TripID         string       `json:"tripId"`
	Version        int64        `json:"version" jsonschema:"send it back with every write"`
	Title          string       `json:"title" jsonschema:"user or third-party data"`
	Status         string       `json:"status" jsonschema:"computing, draft, ready or failed"`
	Partial        bool         `json:"partial" jsonschema:"true while a computation is incomplete: an empty stages list then means not yet, never no days"`
	Progress       Progress     `json:"progress"`
	Source         string       `json:"source" jsonschema:"komoot_tour, komoot_collection, strava_route, ridewithgps_route or upload"`
	Settings       Settings     `json:"settings"`
	DistanceKm     float64      `json:"distanceKm"`
	AscentM        int          `json:"ascentM"`
	DescentM       int          `json:"descentM"`
	ElevationKnown bool         `json:"elevationKnown"`
	AlertCounts    *AlertCounts `json:"alertCounts,omitempty"`
	TripAlerts     []AlertOut   `json:"tripAlerts,omitempty"`
	Stages         []StageLine  `json:"stages"`
	ShareURL       string       `json:"shareUrl,omitempty"`
	Next           *Next        `json:"next,omitempty" jsonschema:"what to call next while partial; absent when nothing is pending"`
}

// labelBytes bounds one place name in a digest line: the budget of a
// 30-day digest holds with room to spare, and no day is ever dropped.
const labelBytes = 80

func tripOut(d *roadbookv1.TripDigest) TripOut {
	out := TripOut{
		TripID: d.GetTripId(), Version: d.GetVersion(), Title: bound(d.GetTitle(), 255),
		Status:   strings.ToLower(strings.TrimPrefix(d.GetStatus().String(), "TRIP_STATUS_")),
		Partial:  d.GetPartial(),
		Source:   strings.ToLower(strings.TrimPrefix(d.GetSource().GetKind().String(), "ROUTE_SOURCE_KIND_")),
		Settings: settings(d.GetSettings()),
		Progress: Progress{
			Route: part(d.GetProgress().GetRoute()), Stages: part(d.GetProgress().GetStages()),
			Labels: part(d.GetProgress().GetLabels()), Analysis: part(d.GetProgress().GetAnalysis()),
		},
		DistanceKm: km(d.GetDistanceM()), AscentM: int(math.Round(d.GetAscentM())), DescentM: int(math.Round(d.GetDescentM())),
		ElevationKnown: d.GetElevationKnown(), AlertCounts: counts(d.GetAlertCounts()),
		Stages:   make([]StageLine, 0, len(d.GetStages())),
		ShareURL: d.GetShare().GetUrl(),
	}
	for _, a := range d.GetTripAlerts() {
		out.TripAlerts = append(out.TripAlerts, alertOut(a))
	}
	for _, s := range d.GetStages() {
		out.Stages = append(out.Stages, StageLine{
			Index: int(s.GetIndex()), Date: s.GetDate(), RestDay: s.GetRestDay(),
			DistanceKm: km(s.GetDistanceM()), AscentM: int(math.Round(s.GetAscentM())), DescentM: int(math.Round(s.GetDescentM())),
			RidingHours: math.Round(s.GetRidingHours()*10) / 10,
			From:        bound(s.GetStartLabel(), labelBytes), To: bound(s.GetEndLabel(), labelBytes),
			Alerts: counts(s.GetAlertCounts()), Accommodation: bound(s.GetAccommodationName(), labelBytes),
			Analyzed: s.GetAnalyzed(),
		})
	}
	p := out.Progress
	anyPending := p.Route.pending() || p.Stages.pending() || p.Labels.pending() || p.Analysis.pending()
	if anyPending {
		out.Partial = true
	}
	switch {
	case anyPending && d.GetNext() != nil && d.GetNext().GetTool() == "get_trip":
		out.Next = nextFromAPI(d.GetNext())
	case anyPending:
		out.Next = getTripNext(out.TripID, "a computation is still running: "+pendingParts(p))
	case p.Analysis.State == "failed" && p.Analysis.Retryable:
		out.Next = &Next{Tool: "analyze_trip", Arguments: map[string]any{"tripId": out.TripID, "version": out.Version}, Why: "the analysis failed and retrying can help"}
	}
	return out
}

func pendingParts(p Progress) string {
	var names []string
	for _, x := range []struct {
		n string
		p Part
	}{{"route", p.Route}, {"stages", p.Stages}, {"labels", p.Labels}, {"analysis", p.Analysis}} {
		if x.p.pending() {
			names = append(names, x.n)
		}
	}
	return strings.Join(names, ", ")
}

// AlertOut is one finding of the rule engine.
type AlertOut struct {
	Code     string             `json:"code"`
	Severity string             `json:"severity" jsonschema:"critical, warning or nudge"`
	Message  string             `json:"message"`
	Family   string             `json:"family"`
	Location *LatLon            `json:"location,omitempty"`
	Fix      *Next              `json:"fix,omitempty" jsonschema:"the edit this alert proposes, as a call"`
	Metrics  map[string]float64 `json:"metrics,omitempty"`
}

func alertOut(a *roadbookv1.Alert) AlertOut {
	out := AlertOut{
		Code: a.GetCode(), Message: bound(a.GetMessage(), 300), Location: latLon(a.GetLocation()),
		Severity: strings.ToLower(strings.TrimPrefix(a.GetSeverity().String(), "SEVERITY_")),
		Family:   strings.ToLower(strings.TrimPrefix(a.GetFamily().String(), "RULE_FAMILY_")),
		Metrics:  a.GetMetrics(),
	}
	switch k := a.GetAction().GetKind().(type) {
	case *roadbookv1.AlertAction_SplitAtKm:
		out.Fix = &Next{Tool: "edit_stages", Arguments: map[string]any{"action": "update", "distanceKm": k.SplitAtKm}, Why: "shorten the day at this distance (add tripId, version and stageIndex)"}
	case *roadbookv1.AlertAction_SetDepartureHour:
		out.Fix = &Next{Tool: "update_trip_settings", Arguments: map[string]any{"settings": map[string]any{"departureHour": k.SetDepartureHour}}, Why: "leave at this hour (add tripId and version)"}
	case *roadbookv1.AlertAction_AddRestDayAfterIndex:
		out.Fix = &Next{Tool: "edit_stages", Arguments: map[string]any{"action": "rest_day", "afterStageIndex": k.AddRestDayAfterIndex}, Why: "add a rest day here (add tripId and version)"}
	}
	return out
}

// Accommodation is a place to sleep near a stage end.
type Accommodation struct {
	ID             string  `json:"id,omitempty" jsonschema:"pass to choose_accommodation"`
	Name           string  `json:"name" jsonschema:"third-party data"`
	Type           string  `json:"type"`
	Location       *LatLon `json:"location,omitempty"`
	PriceMinEur    float64 `json:"priceMinEur"`
	PriceMaxEur    float64 `json:"priceMaxEur"`
	PriceExact     bool    `json:"priceExact"`
	PossibleClosed bool    `json:"possibleClosed,omitempty"`
	Website        string  `json:"website,omitempty" jsonschema:"third-party data"`
	DistanceM      int     `json:"distanceFromStageEndM"`
	Manual         bool    `json:"manual,omitempty"`
}

func accommodation(a *roadbookv1.Accommodation) *Accommodation {
	if a == nil {
		return nil
	}
	return &Accommodation{
		ID: a.GetId(), Name: bound(a.GetName(), 200), Type: accommodationType(a.GetType()), Location: latLon(a.GetLocation()),
		PriceMinEur: a.GetPriceMinEur(), PriceMaxEur: a.GetPriceMaxEur(), PriceExact: a.GetPriceExact(),
		PossibleClosed: a.GetPossibleClosed(), Website: bound(a.GetWebsite(), 300),
		DistanceM: int(math.Round(a.GetDistanceFromStageEndM())), Manual: a.GetManual(),
	}
}

// Waypoint is a POI detour stored on a stage.
type Waypoint struct {
	ID              string  `json:"id"`
	Name            string  `json:"name" jsonschema:"user data"`
	Location        *LatLon `json:"location,omitempty"`
	Category        string  `json:"category,omitempty"`
	DetourM         int     `json:"detourM"`
	DetourEstimated bool    `json:"detourEstimated" jsonschema:"true when the detour is twice the straight-line distance, not routed"`
}

func waypoint(w *roadbookv1.Waypoint) Waypoint {
	return Waypoint{ID: w.GetWaypointId(), Name: bound(w.GetName(), 255), Location: latLon(w.GetLocation()), Category: w.GetCategory(),
		DetourM: int(math.Round(w.GetDetourM())), DetourEstimated: w.GetDetourEstimated()}
}

// RiderTime is the day's schedule.
type RiderTime struct {
	Departure     string  `json:"departure" jsonschema:"local time HH:MM"`
	Arrival       string  `json:"arrival" jsonschema:"local time HH:MM, may pass 24:00"`
	RidingMinutes int     `json:"ridingMinutes"`
	BreakMinutes  int     `json:"breakMinutes"`
	EffectiveKmh  float64 `json:"effectiveSpeedKmh"`
}

// StageOut is one day in full.
type StageOut struct {
	TripID              string            `json:"tripId"`
	Version             int64             `json:"version" jsonschema:"the trip version this was read at"`
	Index               int               `json:"index"`
	Date                string            `json:"date,omitempty"`
	RestDay             bool              `json:"restDay,omitempty"`
	Start               *LatLon           `json:"start,omitempty"`
	End                 *LatLon           `json:"end,omitempty"`
	From                string            `json:"from,omitempty" jsonschema:"third-party data"`
	To                  string            `json:"to,omitempty" jsonschema:"third-party data"`
	DistanceKm          float64           `json:"distanceKm"`
	AscentM             int               `json:"ascentM"`
	DescentM            int               `json:"descentM"`
	RiderTime           *RiderTime        `json:"riderTime,omitempty"`
	Alerts              []AlertOut        `json:"alerts"`
	RuleFamilies        map[string]string `json:"ruleFamilies,omitempty" jsonschema:"per rule family: available, not_configured or unavailable"`
	UnavailableBecause  map[string]string `json:"unavailableBecause,omitempty" jsonschema:"for each unavailable rule family, why (Roadbook's words): wait and call analyze_trip again when a provider was down; change the trip when it lacks something (dates for the weather)"`
	Analyzed            bool              `json:"analyzed"`
	Accommodations      []Accommodation   `json:"accommodations" jsonschema:"up to 5 candidates near the end, best first"`
	ChosenAccommodation *Accommodation    `json:"chosenAccommodation,omitempty"`
	Waypoints           []Waypoint        `json:"waypoints"`
	ManuallyEdited      bool              `json:"manuallyEdited" jsonschema:"made or changed by hand; lost when settings recut the days"`
	Resupply            *ResupplyOut      `json:"resupply,omitempty" jsonschema:"where to refill water and buy food along the day; absent until the OSM data was looked at (see ruleFamilies.resupply)"`
	Weather             *WeatherOut       `json:"weather,omitempty" jsonschema:"the day's weather; absent when there is none (unavailableBecause.weather says why, e.g. no dates)"`
}

func stageOut(tripID string, version int64, s *roadbookv1.StageDetail) StageOut {
	out := StageOut{
		TripID: tripID, Version: version, Index: int(s.GetIndex()), Date: s.GetDate(), RestDay: s.GetRestDay(),
		Start: latLon(s.GetStart()), End: latLon(s.GetEnd()),
		From: bound(s.GetStartLabel(), 200), To: bound(s.GetEndLabel(), 200),
		DistanceKm: km(s.GetDistanceM()), AscentM: int(math.Round(s.GetAscentM())), DescentM: int(math.Round(s.GetDescentM())),
		Alerts: []AlertOut{}, Analyzed: s.GetAnalyzed(), Accommodations: []Accommodation{}, Waypoints: []Waypoint{},
		ChosenAccommodation: accommodation(s.GetChosenAccommodation()), ManuallyEdited: s.GetManuallyEdited(),
	}
	if rt := s.GetRiderTime(); rt != nil {
		out.RiderTime = &RiderTime{
			Departure: clock(rt.GetDepartureMinuteOfDay()), Arrival: clock(rt.GetArrivalMinuteOfDay()),
			RidingMinutes: int(rt.GetRidingDuration().AsDuration().Minutes()), BreakMinutes: int(rt.GetBreakDuration().AsDuration().Minutes()),
			EffectiveKmh: round(rt.GetEffectiveSpeedKmPerH(), 1),
		}
	}
	for _, a := range s.GetAlerts() {
		out.Alerts = append(out.Alerts, alertOut(a))
	}
	for _, f := range s.GetFamilies() {
		if out.RuleFamilies == nil {
			out.RuleFamilies = map[string]string{}
		}
		name := strings.ToLower(strings.TrimPrefix(f.GetFamily().String(), "RULE_FAMILY_"))
		out.RuleFamilies[name] = strings.ToLower(strings.TrimPrefix(f.GetAvailability().String(), "PROVIDER_AVAILABILITY_"))
		if why := f.GetReason(); why != "" {
			if out.UnavailableBecause == nil {
				out.UnavailableBecause = map[string]string{}
			}
			out.UnavailableBecause[name] = bound(why, 200)
		}
	}
	for _, a := range s.GetAccommodationCandidates() {
		out.Accommodations = append(out.Accommodations, *accommodation(a))
	}
	for _, w := range s.GetWaypoints() {
		out.Waypoints = append(out.Waypoints, waypoint(w))
	}
	out.Resupply, out.Weather = resupplyOut(s.GetResupply()), weatherOut(s.GetWeather())
	return out
}

// Impact is what a destructive write would lose.
type Impact struct {
	StageCountBefore     int      `json:"stageCountBefore"`
	StageCountAfter      *int     `json:"stageCountAfter,omitempty"`
	StagesRecomputed     bool     `json:"stagesRecomputed"`
	ManualStageEditsLost int      `json:"manualStageEditsLost"`
	AccommodationsLost   []string `json:"accommodationsLost,omitempty" jsonschema:"names of chosen accommodations discarded (third-party data)"`
	WaypointsLost        int      `json:"waypointsLost"`
	AnalysesInvalidated  int      `json:"analysesInvalidated"`
	ShareLinkRevoked     string   `json:"shareLinkRevoked,omitempty"`
	TripDeleted          bool     `json:"tripDeleted"`
	EndDateAfter         string   `json:"endDateAfter,omitempty"`
	Summary              []string `json:"summary" jsonschema:"one sentence per loss, written by Roadbook"`
}

func impactOut(i *roadbookv1.Impact) *Impact {
	out := &Impact{
		StageCountBefore: int(i.GetStageCountBefore()), StagesRecomputed: i.GetStagesRecomputed(),
		ManualStageEditsLost: int(i.GetManualStageEditsLost()), WaypointsLost: int(i.GetWaypointsLost()),
		AnalysesInvalidated: int(i.GetAnalysesInvalidated()), ShareLinkRevoked: i.GetShareLinkRevoked(),
		TripDeleted: i.GetTripDeleted(), EndDateAfter: i.GetEndDateAfter(), Summary: append([]string{}, i.GetSummary()...),
	}
	if i.StageCountAfter != nil {
		n := int(i.GetStageCountAfter())
		out.StageCountAfter = &n
	}
	for _, a := range i.GetAccommodationsLost() {
		out.AccommodationsLost = append(out.AccommodationsLost, bound(a.GetName(), 120))
	}
	return out
}

func km(m float64) float64 { return round(m/1000, 1) }

func round(f float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(f*p) / p
}

func clock(minute uint32) string { return fmt.Sprintf("%02d:%02d", minute/60, minute%60) }
