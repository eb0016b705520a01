package trip

import (
	"io"

	"github.com/roadbook/roadbook/domain/route"
)

// Command is anything Decide accepts. The set is closed: every command type
// is declared in this package, so Decide's switch is exhaustive.
type Command interface {
	command()
}

// Create starts a trip from exactly one of a source URL or an upload.
type Create struct {
	// SourceURL is a Komoot tour/collection, Strava or RideWithGPS link.
	SourceURL string
	// Upload is a GPX document already parsed and stored by the API.
	Upload *CreateUpload
	// Title is the user's title; empty means "from the route".
	Title string
	// Settings override the defaults.
	Settings SettingsPatch
}

// CreateUpload is an uploaded route: where it came from and what the import
// found (the route blob is already stored under Route.Hash).
type CreateUpload struct {
	Filename  string
	SizeBytes int64
	Route     RouteInfo
}

// Duplicate starts a new trip (the state Decide is given, empty) as a copy of
// Source: its route, settings and stages, not its shares, choices or
// analyses.
type Duplicate struct {
	Source State
	// Title of the copy; empty means the source's title.
	Title string
}

// RecordRouteImported is the import worker's success.
type RecordRouteImported struct {
	Route RouteInfo
}

// ImportErrorCode classifies an import failure (DOMAIN §2).
type ImportErrorCode string

// The import failure codes.
const (
	ImportRouteFetchFailed  ImportErrorCode = "route_fetch_failed"
	ImportEmptyRoute        ImportErrorCode = "empty_route"
	ImportInvalidGPX        ImportErrorCode = "invalid_gpx"
	ImportRouteTooLarge     ImportErrorCode = "route_too_large"
	ImportSourceUnavailable ImportErrorCode = "source_unavailable"
	ImportForbiddenAddress  ImportErrorCode = "forbidden_address"
)

// RecordRouteImportFailed is the import worker's terminal failure.
type RecordRouteImportFailed struct {
	Code       ImportErrorCode
	Reason     string
	Retryable  bool
	HTTPStatus int // 0 when the source answered none
}

// RecordStagesComputed is the stages worker's result for a key. Stages carry
// Start, End, Geometry, DistanceM, AscentM, DescentM, the route span and the
// origin (paced or source tour); Decide fills in index, date and hash.
type RecordStagesComputed struct {
	For              StagesKey
	Stages           []Stage
	OverCapacityDays int
}

// RecordStagesFailed is the stages worker's terminal failure for a key.
type RecordStagesFailed struct {
	For       StagesKey
	Reason    string
	Retryable bool
}

// UpdateSettings changes settings and/or the title.
type UpdateSettings struct {
	Version int64
	// Title, when set, replaces the title (only the title changes).
	Title *string
	Patch SettingsPatch
	// Repace re-cuts the days with the current pacing engine even when no
	// setting changes: how a trip whose days were cut by engine 1 gets the
	// effort model's plan. Refused when the settings already are the
	// current engine's.
	Repace bool
}

// InsertStage adds a straight-line stage at Position (0..len, len appends).
type InsertStage struct {
	Version    int64
	Position   int
	Start, End route.Point
}

// UpdateStage re-cuts a stage. With DistanceM it walks the route from the
// stage's start and cuts there (Route must hold the trip route's points);
// otherwise Start and/or End re-point it as a straight line.
type UpdateStage struct {
	Version    int64
	Index      int
	DistanceM  *float64
	Start, End *route.Point
	// Route is the trip's route (State.Route.Hash), read by the caller from
	// the blob store, measured (route.Line); needed only with DistanceM.
	Route route.Line
}

// MoveStage moves a stage to another position.
type MoveStage struct {
	Version  int64
	From, To int
}

// DeleteStage removes a stage (a rest day) or merges it into a neighbour.
type DeleteStage struct {
	Version int64
	Index   int
}

// AddRestDay inserts a 0-km rest day after a riding stage.
type AddRestDay struct {
	Version    int64
	AfterIndex int
}

// AddWaypoint stores a POI detour on a stage; the version does not move.
type AddWaypoint struct {
	Version    int64
	StageIndex int
	// ID is the waypoint's UUID, chosen by the caller.
	ID       string
	Name     string
	Category string
	Location route.Point
}

// RecordWaypointDetour is the detour worker's routed distance for a
// waypoint (DOMAIN §4): it replaces the straight-line estimate. Stage names
// the stage content the detour was routed from; a result for a waypoint
// gone, or for a stage edited since, records nothing. The version does not
// move.
type RecordWaypointDetour struct {
	WaypointID string
	Stage      StageRef
	// DetourM is the routed extra riding, there and back, in metres.
	DetourM float64
	// Engine names the routing engine ("osrm").
	Engine string
}

// RecordAccommodationsFound is a search result: candidates per stage, each
// for the stage content it was searched for.
type RecordAccommodationsFound struct {
	RadiusM int
	Stages  []FoundAccommodations
	// Availability says whether a provider answered.
	Availability Availability
}

// FoundAccommodations are the candidates for one stage.
type FoundAccommodations struct {
	Stage      StageRef
	Candidates []Accommodation
}

// RescanAccommodations asks for a new search (1–15 km); the version does not
// move.
type RescanAccommodations struct {
	Version      int64
	RadiusM      int
	StageIndexes []int
}

// ChooseAccommodation picks the night of a stage: an offered candidate by
// ProviderID, or a Manual entry. It moves the stage end and the next start.
type ChooseAccommodation struct {
	Version    int64
	StageIndex int
	ProviderID string
	// Manual is a free-text entry by the user instead of a candidate.
	Manual *Accommodation
}

// Analyze (re)runs the analysis of every stage; the version does not move.
type Analyze struct {
	Version int64
	// AnalysisID is the UUID results will name, chosen by the caller.
	AnalysisID string
}

// RecordAnalysis lands analysis results. Final marks the terminal result
// (AnalysisCompleted); otherwise it is a part.
type RecordAnalysis struct {
	AnalysisID string
	Stages     []StageAnalysis
	TripAlerts []Alert
	Final      bool
}

// StageAnalysis is the result for one stage content.
type StageAnalysis struct {
	Stage  StageRef
	Alerts []Alert
	// Families says, per rule family, whether its provider answered.
	Families map[Family]Availability
	// Reasons says, for families that are unavailable, why ("overpass:
	// circuit breaker open", "the trip has no dates to forecast"): what an
	// agent needs to decide between waiting and changing the trip. At most
	// MaxFamilyReasonBytes each (longer ones are cut); none for the others.
	Reasons map[Family]string
	// Resupply is the day's water and food points; nil when the OSM data
	// was not looked at.
	Resupply *Resupply
	// Weather is the day's weather; nil when there is none.
	Weather *Weather
}

// RecordAnalysisFailed is an analysis job's terminal failure.
type RecordAnalysisFailed struct {
	AnalysisID string
	Reason     string
	Retryable  bool
}

// RecordLabels lands place names for stage ends.
type RecordLabels struct {
	Labels   []StageLabel
	Geocoder string
}

// StageLabel is the labels of one stage content.
type StageLabel struct {
	Stage      StageRef
	Start, End string
}

// RecordLabelsUnavailable records that the stages' labels could not be
// produced (no geocoder configured, the geocoder down), so progress reports
// labels unavailable with Reason instead of pending forever. Stages already
// labelled are left out.
type RecordLabelsUnavailable struct {
	Stages   []StageRef
	Reason   string
	Geocoder string
}

// RestoreStageLayout puts back the stages the trip had at LayoutVersion
// (undo and redo of stage edits): a new edit, one version step.
// History is the trip's stream from its first event, read by the caller
// from the store: the layout of an earlier version is a fold of it, and
// events are never rewritten, so any read that reaches past LayoutVersion
// holds it.
type RestoreStageLayout struct {
	Version       int64
	LayoutVersion int64
	History       []Event
}

// Share creates the trip's public link; Rand supplies the code's randomness
// (crypto/rand.Reader in production).
type Share struct {
	Version int64
	Rand    io.Reader
}

// Unshare revokes the active link. Code, when set, names the link the
// caller means (the one an impact showed): another active link — shared
// again since, which does not move the version — is refused, not revoked.
type Unshare struct {
	Version int64
	Code    string
}

// Delete deletes the trip.
type Delete struct {
	Version int64
}

func (Create) command()                    {}
func (Duplicate) command()                 {}
func (RecordRouteImported) command()       {}
func (RecordRouteImportFailed) command()   {}
func (RecordStagesComputed) command()      {}
func (RecordStagesFailed) command()        {}
func (UpdateSettings) command()            {}
func (InsertStage) command()               {}
func (UpdateStage) command()               {}
func (MoveStage) command()                 {}
func (DeleteStage) command()               {}
func (AddRestDay) command()                {}
func (AddWaypoint) command()               {}
func (RecordWaypointDetour) command()      {}
func (RecordAccommodationsFound) command() {}
func (RescanAccommodations) command()      {}
func (ChooseAccommodation) command()       {}
func (Analyze) command()                   {}
func (RecordAnalysis) command()            {}
func (RecordAnalysisFailed) command()      {}
func (RecordLabels) command()              {}
func (RecordLabelsUnavailable) command()   {}
func (RestoreStageLayout) command()        {}
func (Share) command()                     {}
func (Unshare) command()                   {}
func (Delete) command()                    {}
