package trip

import (
	"maps"
	"slices"

	"github.com/roadbook/roadbook/domain/route"
)

// Status is a trip's readiness (DOMAIN §1): ready once it has at least two
// stages, a draft before.
type Status string

// The two statuses.
const (
	StatusDraft Status = "draft"
	StatusReady Status = "ready"
)

// MinStages is the fewest stages a ready trip has, and the floor a delete
// cannot go below.
const MinStages = 2

// Origin says how a stage came to be, so an impact summary can name the
// manual edits a re-pacing would throw away.
type Origin string

// The stage origins.
const (
	OriginPaced        Origin = "paced"
	OriginSourceTour   Origin = "source_tour"
	OriginInserted     Origin = "inserted"
	OriginManualSplit  Origin = "manual_split"
	OriginManualPoints Origin = "manual_points"
	OriginMerged       Origin = "merged"
	OriginRestDay      Origin = "rest_day"
)

// Manual reports whether the stage records a user's edit (lost on re-pacing).
func (o Origin) Manual() bool {
	return o != OriginPaced && o != OriginSourceTour && o != ""
}

// State is everything the rules need to know about one trip, folded from its
// events. It is plain data: copy it freely, Evolve never mutates its input.
type State struct {
	// ID is the trip (stream) id; set by Load, not carried by events.
	ID string
	// Owner is the owning user; set by Load from the stream's owner.
	Owner string
	// Exists is true once a TripCreated or TripDuplicated was folded.
	Exists bool
	// Deleted is true after TripDeleted: every command answers not-found.
	Deleted bool
	// Version is the trip version, the structural clock callers send back.
	Version int64
	// StreamVersion is the number of events folded: the store's CAS position.
	StreamVersion int64
	// Title is the user's title, or the route's when the user gave none.
	Title string
	// TitleFromUser is true when the title was set by a user and a route
	// import must not overwrite it.
	TitleFromUser bool
	// Source is where the route comes from.
	Source Source
	// DuplicatedFrom is the source trip id of a copy.
	DuplicatedFrom string
	// Settings are the current settings, in full.
	Settings Settings
	// Route is the imported route; nil until RouteImported.
	Route *RouteInfo
	// Stages are the days in order; Stage.Index equals the position.
	Stages []Stage
	// OverCapacityDays is the number of extra riding days the cap would need
	// when the dates fix too few (pacing_over_capacity); 0 otherwise.
	OverCapacityDays int
	// TripAlerts are analysis alerts about the whole trip.
	TripAlerts []Alert
	// RouteImport is the import computation.
	RouteImport ComputationState
	// StagesProgress is the stages computation, keyed by StagesKey.
	StagesProgress StagesProgress
	// Analyses are the analyses requested, oldest first.
	Analyses []Analysis
	// AccommodationSearch is the latest accommodation search; its status is
	// none while no search was ever requested.
	AccommodationSearch AccommodationSearch
	// Share is the public link.
	Share ShareLink
}

// RouteInfo is what the trip knows of its imported route; the points live in
// a content-addressed blob named by Hash.
type RouteInfo struct {
	Hash           string
	PointCount     int
	DistanceM      float64
	AscentM        float64
	DescentM       float64
	ElevationKnown bool
	Title          string
	// Tours are a Komoot collection's tours as point spans; nil otherwise.
	Tours []SourceTour
}

// SourceTour is one tour of a Komoot collection as a span of route points.
type SourceTour struct {
	TourID     string
	Title      string
	StartPoint int
	EndPoint   int
}

// Stage is one day of the trip.
type Stage struct {
	// Index is the 0-based position (day number − 1).
	Index int
	// ContentHash names the content results depend on (geometry, date and
	// the settings that matter for analysis); see StageContentHash.
	ContentHash string
	// Origin says how the stage came to be.
	Origin Origin
	// RestDay marks a 0-km rest day at one point.
	RestDay bool
	// Start and End are the first and last points.
	Start, End route.Point
	// DistanceM is the Vincenty length of the decimated geometry.
	DistanceM float64
	// AscentM and DescentM come from the raw points of the stage's span.
	AscentM, DescentM float64
	// Geometry is the Douglas–Peucker (20 m) polyline; nil for a rest day or
	// when it is stored as a blob (GeometryBlobHash).
	Geometry []route.Point
	// GeometryBlobHash names a geometry too large to inline.
	GeometryBlobHash string
	// Date is the calendar day when the trip has a start date.
	Date Date
	// OnRoute says RouteStartM and RouteEndM are known (the stage follows
	// the route between those distances); false for straight-line stages.
	OnRoute bool
	// RouteStartM and RouteEndM are distances along the route in metres.
	RouteStartM, RouteEndM float64
	// StartLabel and EndLabel are place names (third-party text).
	StartLabel, EndLabel string
	// Labelled is true once a geocoder answered for this stage's ends, even
	// when it knows no place there (the labels then stay empty).
	Labelled bool
	// LabelsUnavailable says why labels could not be produced (no geocoder,
	// the geocoder down); empty otherwise. Labelling clears it.
	LabelsUnavailable string
	// Waypoints are POI detours stored on the stage.
	Waypoints []Waypoint
	// Chosen is the night's accommodation; nil when none was chosen.
	Chosen *ChosenAccommodation
	// Offered are the candidate accommodations found near the end.
	Offered []Accommodation
	// Alerts are the analysis findings for this content.
	Alerts []Alert
	// Families says, per rule family, whether its provider answered.
	Families map[Family]Availability
	// FamilyReasons says why, for the families that are unavailable.
	FamilyReasons map[Family]string
	// Analyzed is true once an analysis result for ContentHash landed.
	Analyzed bool
}

// Waypoint is a POI detour on a stage (DOMAIN §4).
type Waypoint struct {
	ID       string
	Name     string
	Category string
	Location route.Point
	// DetourM is the extra riding to visit and come back.
	DetourM float64
	// DetourEstimated is true when DetourM is twice the straight-line
	// distance from the route (an estimate, and said so).
	DetourEstimated bool
	// MeasuredOn identifies the line DetourM was measured from (the
	// stage's lineKey). When the waypoint's stage no longer has that line
	// (an edit, a re-cut, a move to another stage), DetourM is estimated
	// again from the new one; a new date or pace leaves it alone.
	MeasuredOn string
}

// Accommodation is one place to sleep near a stage end (DOMAIN §6).
type Accommodation struct {
	ProviderID            string
	Name                  string
	Type                  AccommodationType
	Location              route.Point
	PriceMinEUR           float64
	PriceMaxEUR           float64
	PriceExact            bool
	PossibleClosed        bool
	Website               string
	DistanceFromStageEndM float64
	CompletenessScore     float64
}

// ChosenAccommodation is the night a rider picked for a stage.
type ChosenAccommodation struct {
	Accommodation
	// Manual is true for a free-text entry rather than an offered candidate.
	Manual bool
}

// Alert is one finding of the rule engine, as recorded by an analysis.
type Alert struct {
	Code     string
	Severity string // critical | warning | nudge
	Message  string
	Family   Family
	Location *route.Point
	Metrics  map[string]float64
	// Action is the proposed fix, when there is one.
	Action *AlertAction
}

// AlertAction is an alert's one-click fix as a typed edit.
type AlertAction struct {
	// Kind is split_stage, set_departure_hour or add_rest_day.
	Kind          string
	AtDistanceM   float64
	DepartureHour int
	AfterIndex    int
}

// ComputationStatus is where a background computation stands. There is no
// "running" event: requested covers queued and running alike.
type ComputationStatus string

// The computation statuses.
const (
	ComputationNone       ComputationStatus = ""
	ComputationRequested  ComputationStatus = "requested"
	ComputationDone       ComputationStatus = "done"
	ComputationFailed     ComputationStatus = "failed"
	ComputationSuperseded ComputationStatus = "superseded"
)

// Computation names what a precondition waits for.
type Computation string

// The computations a write can wait for.
const (
	ComputationRoute    Computation = "route"
	ComputationStages   Computation = "stages"
	ComputationAnalysis Computation = "analysis"
)

// ComputationState is the progress of one computation.
type ComputationState struct {
	Status ComputationStatus
	// Reason and Retryable describe a failure.
	Reason    string
	Retryable bool
}

// StagesKey is what a stages result is for (ARCHITECTURE §3).
type StagesKey struct {
	RouteHash  string
	PacingHash string
}

// StagesProgress is the stages computation and the key it is for.
type StagesProgress struct {
	ComputationState
	// For is the key the pending (or last) computation is for.
	For StagesKey
	// Superseded are keys of results that arrived too late and were dropped.
	Superseded []StagesKey
}

// AnalysisReason says what triggered an analysis.
type AnalysisReason string

// The analysis reasons.
const (
	AnalysisStagesComputed AnalysisReason = "stages_computed"
	AnalysisStagesEdited   AnalysisReason = "stages_edited"
	AnalysisUserRequested  AnalysisReason = "user_requested"
)

// StageRef names a stage by index and by the content a result is for.
type StageRef struct {
	Index       int
	ContentHash string
}

// Analysis is one requested analysis and its progress.
type Analysis struct {
	ID     string
	Reason AnalysisReason
	Stages []StageRef
	ComputationState
	// Pending are the content hashes still awaiting a result.
	Pending []string
	// Superseded are content hashes whose results were dropped.
	Superseded []string
}

// AccommodationSearch is where the latest accommodation search stands, so
// progress can tell "never requested" from "searching" from "answered"
// (a stage may rightly have no candidates).
type AccommodationSearch struct {
	// Status is none (never requested), requested, or done once a result
	// landed.
	Status ComputationStatus
	// Availability is the last result's.
	Availability Availability
}

// ShareLink is the trip's public link (DOMAIN §8).
type ShareLink struct {
	// Code is the active code; empty when not shared.
	Code string
	// Revoked are codes revoked, which are never reissued.
	Revoked []string
}

// Active reports whether a link is live.
func (l ShareLink) Active() bool { return l.Code != "" }

// Status is ready with at least MinStages stages, else draft.
func (s State) Status() Status {
	if len(s.Stages) >= MinStages {
		return StatusReady
	}
	return StatusDraft
}

// Locked reports whether the trip has started: its stored startDate is on or
// before today in UTC (DOMAIN §1).
func (s State) Locked(now Date) bool {
	return !s.Settings.StartDate.IsZero() && !now.Before(s.Settings.StartDate)
}

// AnalysisRunning reports whether an analysis is still awaiting results.
func (s State) AnalysisRunning() bool {
	for _, a := range s.Analyses {
		if a.Status == ComputationRequested {
			return true
		}
	}
	return false
}

// StagesKey is the key the trip's stages must be for now: its route and its
// pacing settings.
func (s State) StagesKey() StagesKey {
	k := StagesKey{PacingHash: s.Settings.PacingHash()}
	if s.Route != nil {
		k.RouteHash = s.Route.Hash
	}
	return k
}

// Clone is a copy of s that shares nothing Evolve would change: what a
// cache of folded states hands out, so a caller that edits its copy cannot
// change the cached one. (Stage geometry, never changed in place, is
// shared.)
func (s State) Clone() State { return s.clone() }

// clone deep-copies what Evolve may change, so no two states share a slice.
func (s State) clone() State {
	s.Settings = s.Settings.clone()
	if s.Route != nil {
		r := *s.Route
		r.Tours = slices.Clone(r.Tours)
		s.Route = &r
	}
	s.Stages = slices.Clone(s.Stages)
	for i := range s.Stages {
		s.Stages[i] = s.Stages[i].clone()
	}
	s.TripAlerts = slices.Clone(s.TripAlerts)
	s.StagesProgress.Superseded = slices.Clone(s.StagesProgress.Superseded)
	s.Analyses = slices.Clone(s.Analyses)
	for i := range s.Analyses {
		a := &s.Analyses[i]
		a.Stages = slices.Clone(a.Stages)
		a.Pending = slices.Clone(a.Pending)
		a.Superseded = slices.Clone(a.Superseded)
	}
	s.Share.Revoked = slices.Clone(s.Share.Revoked)
	return s
}

// clone copies a stage's slices (geometry is never mutated in place, so it
// is shared).
func (st Stage) clone() Stage {
	st.Waypoints = slices.Clone(st.Waypoints)
	st.Offered = slices.Clone(st.Offered)
	st.Alerts = slices.Clone(st.Alerts)
	if st.Chosen != nil {
		c := *st.Chosen
		st.Chosen = &c
	}
	st.Families = maps.Clone(st.Families)
	st.FamilyReasons = maps.Clone(st.FamilyReasons)
	return st
}

// EndDate is the trip's last day: the date of its last stage when it has a
// start date and stages, else the end date setting.
func (s State) EndDate() Date {
	if !s.Settings.StartDate.IsZero() && len(s.Stages) > 0 {
		return s.Settings.StartDate.AddDays(len(s.Stages) - 1)
	}
	return s.Settings.EndDate
}
