package apiserver

import (
	"math"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/roadbook/roadbook/domain/alert"
	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
)

// view turns folded trips into API messages. It holds what the mapping
// needs beyond the state: today (for the lock) and the share URLs.
type view struct {
	today   trip.Date
	baseURL string
	// hours remembers the stages' riding hours (nil: computed every time).
	hours *ridingHours
}

func (s *shared) view() view {
	return view{today: trip.DateOf(s.cfg.Clock()), baseURL: s.cfg.PublicBaseURL, hours: &s.hours}
}

// ridingHours is st.RiderTime(set).RidingHours, from v.hours when it has it.
func (v view) ridingHours(st trip.Stage, set trip.Settings, settings string) float64 {
	if v.hours == nil {
		return st.RiderTime(set).RidingHours
	}
	return v.hours.of(st, set, settings)
}

// digest is GetTrip's answer for s; info (may be nil) adds the times.
func (v view) digest(s trip.State, info *eventstore.StreamInfo) *roadbookv1.TripDigest {
	d := &roadbookv1.TripDigest{
		TripId:   s.ID,
		Version:  s.Version,
		Title:    s.Title,
		Status:   statusPB(s),
		Source:   sourcePB(s.Source),
		Settings: v.settings(s),
		Progress: progress(s),
		Share:    v.share(s, nil),
	}
	tot := s.Totals()
	d.DistanceM, d.AscentM, d.DescentM = tot.DistanceM, tot.AscentM, tot.DescentM
	if s.Route != nil {
		d.ElevationKnown = s.Route.ElevationKnown
		for _, t := range s.Route.Tours {
			d.SourceTourTitles = append(d.SourceTourTitles, t.Title)
		}
	}
	d.Partial = partial(s)
	if d.Partial {
		d.Next = getTripNext(s.ID, 2, "a computation is still running; read the trip again")
	}
	counts := &roadbookv1.AlertCounts{}
	settings := ""
	if v.hours != nil && len(s.Stages) > 0 {
		settings = settingsKey(s.Settings)
	}
	for _, st := range s.Stages {
		sd := &roadbookv1.StageDigest{
			Index: uint32(st.Index), Date: st.Date.String(), RestDay: st.RestDay,
			DistanceM: st.DistanceM, AscentM: st.AscentM, DescentM: st.DescentM,
			StartLabel: st.StartLabel, EndLabel: st.EndLabel, Analyzed: st.Analyzed,
			RidingHours: v.ridingHours(st, s.Settings, settings),
		}
		if st.Analyzed {
			sd.AlertCounts = alertCounts(st.Alerts)
			counts.Critical += sd.AlertCounts.Critical
			counts.Warning += sd.AlertCounts.Warning
			counts.Nudge += sd.AlertCounts.Nudge
		}
		if st.Chosen != nil {
			sd.AccommodationName = st.Chosen.Name
			d.AccommodationsChosen++
		}
		d.Stages = append(d.Stages, sd)
	}
	d.AlertCounts = counts
	for _, a := range s.TripAlerts {
		d.TripAlerts = append(d.TripAlerts, alertPB(a))
	}
	if info != nil {
		d.CreatedAt, d.UpdatedAt = ts(info.CreatedAt), ts(info.UpdatedAt)
	}
	return d
}

func ts(t time.Time) *timestamppb.Timestamp {
	if t.IsZero() {
		return nil
	}
	return timestamppb.New(t)
}

// partial is true while any computation the trip waits for is incomplete.
func partial(s trip.State) bool {
	if s.RouteImport.Status == trip.ComputationRequested || s.StagesProgress.Status == trip.ComputationRequested {
		return true
	}
	return s.AnalysisRunning()
}

// phases are the API's spelling of every trip phase.
var phases = map[trip.Phase]roadbookv1.TripStatus{
	trip.PhaseComputing: roadbookv1.TripStatus_TRIP_STATUS_COMPUTING,
	trip.PhaseFailed:    roadbookv1.TripStatus_TRIP_STATUS_FAILED,
	trip.PhaseDraft:     roadbookv1.TripStatus_TRIP_STATUS_DRAFT,
	trip.PhaseReady:     roadbookv1.TripStatus_TRIP_STATUS_READY,
}

func statusPB(s trip.State) roadbookv1.TripStatus { return phases[s.Phase()] }

// statusFromPhase maps a summary row's phase (rows written before the phase
// was recorded carry only the status, draft or ready).
func statusFromPhase(phase trip.Phase, status string) roadbookv1.TripStatus {
	if phase == "" {
		phase = trip.Phase(status)
	}
	if st, ok := phases[phase]; ok {
		return st
	}
	return roadbookv1.TripStatus_TRIP_STATUS_DRAFT
}

var sourceKinds = map[trip.SourceKind]roadbookv1.RouteSourceKind{
	trip.SourceKomootTour:       roadbookv1.RouteSourceKind_ROUTE_SOURCE_KIND_KOMOOT_TOUR,
	trip.SourceKomootCollection: roadbookv1.RouteSourceKind_ROUTE_SOURCE_KIND_KOMOOT_COLLECTION,
	trip.SourceStravaRoute:      roadbookv1.RouteSourceKind_ROUTE_SOURCE_KIND_STRAVA_ROUTE,
	trip.SourceRideWithGPSRoute: roadbookv1.RouteSourceKind_ROUTE_SOURCE_KIND_RIDEWITHGPS_ROUTE,
	"upload":                    roadbookv1.RouteSourceKind_ROUTE_SOURCE_KIND_UPLOAD,
}

func sourcePB(src trip.Source) *roadbookv1.RouteSource {
	if src.Upload != nil || src.Kind == "" {
		out := &roadbookv1.RouteSource{Kind: roadbookv1.RouteSourceKind_ROUTE_SOURCE_KIND_UPLOAD}
		if src.Upload != nil {
			out.Filename = src.Upload.Filename
		}
		return out
	}
	return &roadbookv1.RouteSource{Kind: sourceKinds[src.Kind], Url: src.URL}
}

var accTypes = map[trip.AccommodationType]roadbookv1.AccommodationType{
	trip.AccommodationHotel:         roadbookv1.AccommodationType_ACCOMMODATION_TYPE_HOTEL,
	trip.AccommodationGuestHouse:    roadbookv1.AccommodationType_ACCOMMODATION_TYPE_GUEST_HOUSE,
	trip.AccommodationChalet:        roadbookv1.AccommodationType_ACCOMMODATION_TYPE_CHALET,
	trip.AccommodationHostel:        roadbookv1.AccommodationType_ACCOMMODATION_TYPE_HOSTEL,
	trip.AccommodationAlpineHut:     roadbookv1.AccommodationType_ACCOMMODATION_TYPE_ALPINE_HUT,
	trip.AccommodationCampSite:      roadbookv1.AccommodationType_ACCOMMODATION_TYPE_CAMP_SITE,
	trip.AccommodationWildernessHut: roadbookv1.AccommodationType_ACCOMMODATION_TYPE_WILDERNESS_HUT,
}

func accTypeFromPB(t roadbookv1.AccommodationType) trip.AccommodationType {
	k, _ := keyOf(accTypes, t)
	return k
}

func (v view) settings(s trip.State) *roadbookv1.TripSettings {
	st := s.Settings
	out := &roadbookv1.TripSettings{
		FatigueFactor: st.FatigueFactor, ElevationPenaltyMPerKm: st.ElevationPenaltyM,
		MaxDistancePerDayKm: st.MaxDistancePerDayKm, AverageSpeedKmPerH: st.AverageSpeedKmH,
		DepartureHour: uint32(st.DepartureHour), EbikeMode: st.EbikeMode,
		StartDate: st.StartDate.String(), EndDate: s.EndDate().String(),
		Locked:           s.Locked(v.today),
		DailyRidingHours: st.DailyRidingHours, RestDayEvery: uint32(st.RestDayEvery),
		Preset: presetPB(st.Preset), PacingEngine: uint32(st.Engine),
	}
	for _, t := range st.AccommodationTypes {
		out.EnabledAccommodationTypes = append(out.EnabledAccommodationTypes, accTypes[t])
	}
	return out
}

// share is the owner's view of the active link (nil when not shared).
func (v view) share(s trip.State, created *time.Time) *roadbookv1.ShareLink {
	if !s.Share.Active() {
		return nil
	}
	l := &roadbookv1.ShareLink{
		Code:   s.Share.Code,
		Url:    v.baseURL + "/s/" + s.Share.Code,
		GpxUrl: v.baseURL + "/s/" + s.Share.Code + ".gpx",
		FitUrl: v.baseURL + "/s/" + s.Share.Code + ".fit",
	}
	if created != nil {
		l.CreatedAt = ts(*created)
	}
	return l
}

func part(status trip.ComputationStatus, reason string, retryable bool) *roadbookv1.PartProgress {
	p := &roadbookv1.PartProgress{Reason: reason, Retryable: retryable}
	switch status {
	case trip.ComputationRequested:
		p.State = roadbookv1.ComputationState_COMPUTATION_STATE_PENDING
	case trip.ComputationDone, trip.ComputationSuperseded:
		p.State = roadbookv1.ComputationState_COMPUTATION_STATE_DONE
	case trip.ComputationFailed:
		p.State = roadbookv1.ComputationState_COMPUTATION_STATE_FAILED
	default:
		p.State = roadbookv1.ComputationState_COMPUTATION_STATE_PENDING
	}
	return p
}

// progress is the per-computation view of s.
func progress(s trip.State) *roadbookv1.Progress {
	p := &roadbookv1.Progress{
		Route:  part(s.RouteImport.Status, s.RouteImport.Reason, s.RouteImport.Retryable),
		Stages: part(s.StagesProgress.Status, s.StagesProgress.Reason, s.StagesProgress.Retryable),
	}
	if s.Source.Upload != nil || (s.Route != nil && s.RouteImport.Status == trip.ComputationNone) {
		p.Route.State = roadbookv1.ComputationState_COMPUTATION_STATE_DONE
	}
	if len(s.Stages) > 0 && s.StagesProgress.Status == trip.ComputationNone {
		p.Stages.State = roadbookv1.ComputationState_COMPUTATION_STATE_DONE
	}
	total := uint32(len(s.Stages))
	var labelled, unlabelable, analyzed, offered uint32
	unlabelableWhy := ""
	for _, st := range s.Stages {
		switch {
		case st.Labelled || st.StartLabel != "" || st.EndLabel != "":
			labelled++
		case st.LabelsUnavailable != "":
			unlabelable++
			unlabelableWhy = st.LabelsUnavailable
		}
		if st.Analyzed {
			analyzed++
		}
		if len(st.Offered) > 0 || st.Chosen != nil {
			offered++
		}
	}
	count := func(done uint32) *roadbookv1.PartProgress {
		pp := &roadbookv1.PartProgress{Done: done, Total: total, State: roadbookv1.ComputationState_COMPUTATION_STATE_PENDING}
		switch {
		case total > 0 && done == total:
			pp.State = roadbookv1.ComputationState_COMPUTATION_STATE_DONE
		case done > 0:
			pp.State = roadbookv1.ComputationState_COMPUTATION_STATE_RUNNING
		}
		return pp
	}
	p.Labels, p.Analysis = count(labelled), count(analyzed)
	p.Accommodations = accommodationsProgress(s.AccommodationSearch, count(offered))
	if unlabelable > 0 && labelled+unlabelable == total {
		// Every stage without labels was recorded as unlabelable (no
		// geocoder, the geocoder down): say so rather than "pending" forever.
		p.Labels.State, p.Labels.Reason = roadbookv1.ComputationState_COMPUTATION_STATE_UNAVAILABLE, unlabelableWhy
	}
	if n := len(s.Analyses); n > 0 {
		last := s.Analyses[n-1]
		if last.Status == trip.ComputationFailed {
			p.Analysis.State, p.Analysis.Reason, p.Analysis.Retryable = roadbookv1.ComputationState_COMPUTATION_STATE_FAILED, last.ComputationState.Reason, last.Retryable
		} else if last.Status == trip.ComputationRequested && p.Analysis.State == roadbookv1.ComputationState_COMPUTATION_STATE_DONE {
			p.Analysis.State = roadbookv1.ComputationState_COMPUTATION_STATE_RUNNING
		}
	}
	return p
}

// accommodationsProgress is the accommodation search's part: absent when
// no search was ever requested (nothing is pending, and an absent part is
// no part of the trip's work), the stages with candidates while one runs,
// and settled once its result landed — done even where a stage has no
// candidates, unavailable when no provider is configured or it was down.
func accommodationsProgress(search trip.AccommodationSearch, offered *roadbookv1.PartProgress) *roadbookv1.PartProgress {
	switch search.Status {
	case trip.ComputationNone:
		return nil
	case trip.ComputationRequested:
		return offered
	}
	switch search.Availability {
	case trip.NotConfigured:
		offered.State, offered.Reason = roadbookv1.ComputationState_COMPUTATION_STATE_UNAVAILABLE, "no accommodation provider is configured"
	case trip.Unavailable:
		offered.State, offered.Reason = roadbookv1.ComputationState_COMPUTATION_STATE_UNAVAILABLE, "the accommodation provider was unavailable"
	default:
		offered.State = roadbookv1.ComputationState_COMPUTATION_STATE_DONE
	}
	return offered
}

var severities = map[string]roadbookv1.Severity{
	"critical": roadbookv1.Severity_SEVERITY_CRITICAL,
	"warning":  roadbookv1.Severity_SEVERITY_WARNING,
	"nudge":    roadbookv1.Severity_SEVERITY_NUDGE,
}

func alertCounts(alerts []trip.Alert) *roadbookv1.AlertCounts {
	c := &roadbookv1.AlertCounts{}
	for _, a := range alerts {
		switch a.Severity {
		case "critical":
			c.Critical++
		case "warning":
			c.Warning++
		case "nudge":
			c.Nudge++
		}
	}
	return c
}

// families are the API's spelling of every rule family.
var families = map[trip.Family]roadbookv1.RuleFamily{
	trip.FamilyGeometry: roadbookv1.RuleFamily_RULE_FAMILY_GEOMETRY, trip.FamilyDaylight: roadbookv1.RuleFamily_RULE_FAMILY_DAYLIGHT,
	trip.FamilyPacing: roadbookv1.RuleFamily_RULE_FAMILY_PACING, trip.FamilyCalendar: roadbookv1.RuleFamily_RULE_FAMILY_CALENDAR,
	trip.FamilyTraffic: roadbookv1.RuleFamily_RULE_FAMILY_TRAFFIC, trip.FamilySurface: roadbookv1.RuleFamily_RULE_FAMILY_SURFACE,
	trip.FamilyResupply: roadbookv1.RuleFamily_RULE_FAMILY_RESUPPLY, trip.FamilyServices: roadbookv1.RuleFamily_RULE_FAMILY_SERVICES,
	trip.FamilyCrossings: roadbookv1.RuleFamily_RULE_FAMILY_CROSSINGS, trip.FamilyCulture: roadbookv1.RuleFamily_RULE_FAMILY_CULTURE,
	trip.FamilyWeather: roadbookv1.RuleFamily_RULE_FAMILY_WEATHER, trip.FamilyBorders: roadbookv1.RuleFamily_RULE_FAMILY_BORDERS,
}

func alertPB(a trip.Alert) *roadbookv1.Alert {
	out := &roadbookv1.Alert{Code: a.Code, Severity: severities[a.Severity], Message: a.Message, Family: families[a.Family], Metrics: a.Metrics}
	if a.Location != nil {
		out.Location = latLon(*a.Location)
	}
	if a.Action != nil {
		switch a.Action.Kind {
		case "split_stage":
			out.Action = &roadbookv1.AlertAction{Kind: &roadbookv1.AlertAction_SplitAtKm{SplitAtKm: a.Action.AtDistanceM / 1000}}
		case "set_departure_hour":
			out.Action = &roadbookv1.AlertAction{Kind: &roadbookv1.AlertAction_SetDepartureHour{SetDepartureHour: uint32(a.Action.DepartureHour)}}
		case "add_rest_day":
			out.Action = &roadbookv1.AlertAction{Kind: &roadbookv1.AlertAction_AddRestDayAfterIndex{AddRestDayAfterIndex: uint32(a.Action.AfterIndex)}}
		}
	}
	return out
}

func latLon(p route.Point) *roadbookv1.LatLon { return &roadbookv1.LatLon{Lat: p.Lat, Lon: p.Lon} }

func accommodationPB(a trip.Accommodation, manual bool) *roadbookv1.Accommodation {
	out := &roadbookv1.Accommodation{
		Id: a.ProviderID, Name: a.Name, Type: accTypes[a.Type],
		PriceMinEur: a.PriceMinEUR, PriceMaxEur: a.PriceMaxEUR, PriceExact: a.PriceExact,
		PossibleClosed: a.PossibleClosed, Website: a.Website,
		DistanceFromStageEndM: a.DistanceFromStageEndM, Manual: manual,
	}
	if a.Location != (route.Point{}) {
		out.Location = latLon(a.Location)
	}
	return out
}

// availability is the API's spelling of every provider availability.
var availability = map[trip.Availability]roadbookv1.ProviderAvailability{
	trip.Available:     roadbookv1.ProviderAvailability_PROVIDER_AVAILABILITY_AVAILABLE,
	trip.NotConfigured: roadbookv1.ProviderAvailability_PROVIDER_AVAILABILITY_NOT_CONFIGURED,
	trip.Unavailable:   roadbookv1.ProviderAvailability_PROVIDER_AVAILABILITY_UNAVAILABLE,
}

// riderTime is a riding day's schedule rt from the effort model
// (trip.Stage.RiderTime, the one the sunset rule and the pacing engine use);
// nil for a rest day.
func riderTime(st trip.Stage, set trip.Settings, rt alert.RiderTime) *roadbookv1.RiderTime {
	if st.RestDay {
		return nil
	}
	hours := func(h float64) time.Duration { return time.Duration(math.Round(h * float64(time.Hour))) }
	return &roadbookv1.RiderTime{
		DepartureMinuteOfDay: uint32(set.DepartureHour * 60),
		ArrivalMinuteOfDay:   uint32(math.Round(rt.ArrivalHour() * 60)),
		RidingDuration:       durationpb.New(hours(rt.RidingHours)),
		BreakDuration:        durationpb.New(hours(rt.BreakHours)),
		EffectiveSpeedKmPerH: rt.EffectiveSpeedKmh,
	}
}

// stageDetail is GetStage's answer for one stage of a trip with settings set.
func stageDetail(st trip.Stage, set trip.Settings) *roadbookv1.StageDetail {
	rt := st.RiderTime(set)
	d := &roadbookv1.StageDetail{
		Index: uint32(st.Index), Date: st.Date.String(), RestDay: st.RestDay,
		Start: latLon(st.Start), End: latLon(st.End), StartLabel: st.StartLabel, EndLabel: st.EndLabel,
		DistanceM: st.DistanceM, AscentM: st.AscentM, DescentM: st.DescentM,
		Analyzed: st.Analyzed, ManuallyEdited: st.Origin.Manual(),
		RiderTime: riderTime(st, set, rt),
		Resupply:  stageResupplyPB(st, rt), Weather: dayWeatherPB(st.Weather),
	}
	for _, a := range st.Alerts {
		d.Alerts = append(d.Alerts, alertPB(a))
	}
	for name, av := range st.Families {
		d.Families = append(d.Families, &roadbookv1.FamilyAvailability{Family: families[name], Availability: availability[av],
			Reason: st.FamilyReasons[name]})
	}
	for _, a := range st.Offered {
		d.AccommodationCandidates = append(d.AccommodationCandidates, accommodationPB(a, false))
	}
	if st.Chosen != nil {
		d.ChosenAccommodation = accommodationPB(st.Chosen.Accommodation, st.Chosen.Manual)
	}
	for _, w := range st.Waypoints {
		d.Waypoints = append(d.Waypoints, waypointPB(w))
	}
	return d
}

func waypointPB(w trip.Waypoint) *roadbookv1.Waypoint {
	return &roadbookv1.Waypoint{
		WaypointId: w.ID, Name: w.Name, Location: latLon(w.Location), Category: w.Category,
		DetourM: w.DetourM, DetourEstimated: w.DetourEstimated,
	}
}
