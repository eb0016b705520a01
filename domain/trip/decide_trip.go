package trip

import (
	"encoding/base64"
	"io"
	"regexp"
	"slices"

	"github.com/google/uuid"

	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
)

// hashPattern is a lowercase hex SHA-256, the form of every content hash.
var hashPattern = regexp.MustCompile(`^[0-9a-f]{64}$`)

// MaxUploadBytes bounds an uploaded GPX document (DOMAIN §2).
const MaxUploadBytes = 30 << 20

func decideCreate(s State, c Create) ([]Event, error) {
	if s.Exists {
		return nil, ErrTripExists
	}
	if (c.SourceURL == "") == (c.Upload == nil) {
		return nil, invalid("sourceUrl", "give exactly one of sourceUrl or an uploaded GPX")
	}
	if err := validateTitle(c.Title); err != nil {
		return nil, err
	}
	settings := c.Settings.Apply(DefaultSettings())
	if err := settings.Validate(); err != nil {
		return nil, err
	}
	created := &eventsv1.TripCreated{Settings: settingsPB(settings), Title: c.Title}
	if c.SourceURL != "" {
		src, err := ParseSourceURL(c.SourceURL)
		if err != nil {
			return nil, err
		}
		created.Source = &eventsv1.TripCreated_Url{Url: routeSourcePB(src)}
		return []Event{created}, nil
	}
	u := c.Upload
	route := u.Route.cleaned()
	if err := validateRoute(route); err != nil {
		return nil, err
	}
	if u.SizeBytes < 0 || u.SizeBytes > MaxUploadBytes {
		return nil, invalid("gpx", "must be at most 30 MiB")
	}
	if err := validateTitle(u.Filename); err != nil {
		return nil, invalid("filename", "must be at most %d characters", MaxTitleChars)
	}
	created.Source = &eventsv1.TripCreated_Upload{Upload: &eventsv1.UploadSource{
		RouteHash: u.Route.Hash, Filename: u.Filename, SizeBytes: uint64(u.SizeBytes),
	}}
	return []Event{created, routeImportedPB(route)}, nil
}

// validateRoute checks an import result before it is recorded.
func validateRoute(r RouteInfo) error {
	switch {
	case !hashPattern.MatchString(r.Hash):
		return invalid("routeHash", "must be a lowercase hex SHA-256")
	case r.PointCount < 2:
		return invalid("route", "must have at least 2 points")
	case !(r.DistanceM >= 0) || !(r.AscentM >= 0) || !(r.DescentM >= 0):
		return invalid("route", "distances and elevations must be non-negative numbers")
	}
	return validateTitle(r.Title)
}

func decideDuplicate(s State, c Duplicate) ([]Event, error) {
	if s.Exists {
		return nil, ErrTripExists
	}
	src := c.Source
	if !src.Exists || src.Deleted {
		return nil, errNotFound()
	}
	if _, err := uuid.Parse(src.ID); err != nil {
		return nil, invalid("tripId", "must be a UUID")
	}
	if src.RouteImport.Status == ComputationRequested || src.StagesProgress.Status == ComputationRequested {
		return nil, src.stagesAvailable()
	}
	title := c.Title
	if title == "" {
		title = src.Title
	}
	if err := validateTitle(title); err != nil {
		return nil, err
	}
	dup := &eventsv1.TripDuplicated{
		SourceTripId:  src.ID,
		SourceVersion: src.Version,
		Title:         title,
		Settings:      settingsPB(src.Settings),
		Url:           routeSourcePB(src.Source),
	}
	if src.Route != nil {
		dup.Route = routeImportedPB(*src.Route)
	}
	if len(src.Stages) > 0 {
		sc := &eventsv1.StagesComputed{ComputedFor: computedForPB(src.StagesProgress.For)}
		for _, st := range src.Stages {
			sc.Stages = append(sc.Stages, stagePB(st))
		}
		if !src.Settings.StartDate.IsZero() {
			sc.EndDate = src.EndDate().String()
		}
		if src.OverCapacityDays > 0 {
			sc.PacingOverCapacity = &eventsv1.PacingOverCapacity{ExtraDaysNeeded: uint32(src.OverCapacityDays)}
		}
		dup.Stages = sc
	}
	return []Event{dup}, nil
}

func decideUpdateSettings(s State, c UpdateSettings, today Date) ([]Event, error) {
	if err := s.check(today, guard{lock: true, version: c.Version}); err != nil {
		return nil, err
	}
	next := c.Patch.Apply(s.Settings)
	if err := next.Validate(); err != nil {
		return nil, err
	}
	if next.Engine < EngineCurrent && (c.Repace || splitChanges(s.Settings, next)) {
		// A change to what moves the split (or a re-pace) moves an
		// engine-1 trip to the effort model; anything else (departure,
		// accommodation types, both dates shifted) keeps its days.
		next.Engine = EngineCurrent
	} else if c.Repace {
		if s.Route == nil {
			return nil, invalid("repace", "the trip has no route to pace yet")
		}
		return nil, invalid("repace", "the days are already cut by the current pacing engine; change a setting to re-cut them")
	}
	ev := &eventsv1.TripSettingsUpdated{Settings: settingsPB(next), PacingSettingsHash: next.PacingHash()}
	titleChanged := false
	if c.Title != nil {
		if err := validateTitle(*c.Title); err != nil {
			return nil, err
		}
		t := *c.Title
		ev.Title = &t
		titleChanged = t != s.Title
	}
	if !titleChanged && settingsEqual(s.Settings, next) {
		return nil, invalid("settings", "the change leaves the trip as it is")
	}
	events := []Event{ev}
	if next.PacingHash() != s.Settings.PacingHash() && s.Route != nil {
		// The stages will be recomputed; analysis follows them.
		return events, nil
	}
	return withAnalysis(s, events, AnalysisStagesEdited), nil
}

// settingsEqual compares every field.
func settingsEqual(a, b Settings) bool {
	return a.FatigueFactor == b.FatigueFactor && a.ElevationPenaltyM == b.ElevationPenaltyM &&
		a.MaxDistancePerDayKm == b.MaxDistancePerDayKm && a.AverageSpeedKmH == b.AverageSpeedKmH &&
		a.DailyRidingHours == b.DailyRidingHours && a.RestDayEvery == b.RestDayEvery && a.Engine == b.Engine &&
		a.DepartureHour == b.DepartureHour && a.EbikeMode == b.EbikeMode &&
		a.StartDate == b.StartDate && a.EndDate == b.EndDate &&
		slices.Equal(a.AccommodationTypes, b.AccommodationTypes)
}

// ShareCodeBytes is the randomness in a new share code: 12 bytes = 96 bits,
// which base64url spells in exactly 16 characters of [A-Za-z0-9_-] (DOMAIN
// §8) — too many to guess at any request rate. Codes drawn before were 6
// bytes (8 characters); they stay valid, and the contracts accept both.
const ShareCodeBytes = 12

func decideShare(s State, c Share, today Date) ([]Event, error) {
	if err := s.check(today, guard{version: c.Version}); err != nil {
		return nil, err
	}
	if s.Share.Active() {
		e := *ErrAlreadyShared
		e.Message = "the trip already has an active share link; unshare it first"
		return nil, &e
	}
	if c.Rand == nil {
		return nil, invalid("rand", "a random source is required")
	}
	// A revoked code is never reissued: draw again in the (2^-96) case of a
	// collision with one.
	for range 4 {
		var b [ShareCodeBytes]byte
		if _, err := io.ReadFull(c.Rand, b[:]); err != nil {
			return nil, err
		}
		code := base64.RawURLEncoding.EncodeToString(b[:])
		if !slices.Contains(s.Share.Revoked, code) {
			return []Event{&eventsv1.TripShared{ShareCode: code}}, nil
		}
	}
	return nil, &Error{Code: CodeConflict, Reason: "share_code_reused", Message: "the random source keeps producing revoked codes"}
}

func decideUnshare(s State, c Unshare, today Date) ([]Event, error) {
	if err := s.check(today, guard{version: c.Version}); err != nil {
		return nil, err
	}
	if !s.Share.Active() {
		return nil, &Error{Code: CodeNotFound, Reason: "not_shared", Message: "the trip has no active share link"}
	}
	if c.Code != "" && c.Code != s.Share.Code {
		return nil, &Error{Code: CodeConflict, Reason: "share_link_changed",
			Message: "the trip's active share link is not the one named (it was shared again since); nothing was revoked"}
	}
	return []Event{&eventsv1.TripUnshared{ShareCode: s.Share.Code}}, nil
}

func decideDelete(s State, c Delete, today Date) ([]Event, error) {
	if err := s.check(today, guard{version: c.Version}); err != nil {
		return nil, err
	}
	ev := &eventsv1.TripDeleted{}
	if s.Route != nil {
		ev.RouteHash = s.Route.Hash
	}
	return []Event{ev}, nil
}
