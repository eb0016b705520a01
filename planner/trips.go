package planner

import (
	"bytes"
	"context"

	"github.com/google/uuid"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/domain/trip"
	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
	"github.com/roadbook/roadbook/tripstore"
)

// CreateFromURL starts a trip from a Komoot, Strava or RideWithGPS link;
// the import worker fetches the route.
type CreateFromURL struct {
	URL      string
	Title    string
	Settings trip.SettingsPatch
}

// CreateFromURL creates the caller's trip from a link (DOMAIN §2), counted
// against the create limit.
func (p *Planner) CreateFromURL(ctx context.Context, w Write, c CreateFromURL) (Outcome, error) {
	user, err := p.callerWithin(ctx, LimitCreate)
	if err != nil {
		return Outcome{}, err
	}
	return p.change(ctx, user, w, derivedID(user, w), command(trip.Create{SourceURL: c.URL, Title: c.Title, Settings: c.Settings}),
		tripstore.Options{Collection: eventsv1.CollectionChange_COLLECTION_CHANGE_CREATED, Creates: true}, "")
}

// CreateFromUpload starts a trip from an uploaded GPX document.
type CreateFromUpload struct {
	Filename string
	Content  []byte
	Title    string
	Settings trip.SettingsPatch
}

// CreateFromUpload reads the caller's GPX document (bounded, hostile input
// refused by route.ReadGPX), stores its points once as a route blob and
// creates the trip with its route already imported (TripCreated and
// RouteImported in one append, so the stages job follows at once). Counted
// against the upload limit.
func (p *Planner) CreateFromUpload(ctx context.Context, w Write, c CreateFromUpload) (Outcome, error) {
	user, err := p.callerWithin(ctx, LimitUpload)
	if err != nil {
		return Outcome{}, err
	}
	r, err := route.ReadGPX(bytes.NewReader(c.Content), route.WithMaxBytes(trip.MaxUploadBytes))
	if err != nil {
		return Outcome{}, err
	}
	if len(r.Points) < 2 {
		return Outcome{}, &InvalidError{Field: "content", Message: "the GPX document has fewer than 2 track or route points"}
	}
	info := trip.MeasureRoute(r)
	if info.Hash, err = p.trips.PutRoute(ctx, r.Points); err != nil {
		return Outcome{}, err
	}
	ref, err := tripstore.HashBytes(info.Hash)
	if err != nil {
		return Outcome{}, err
	}
	create := trip.Create{Title: c.Title, Settings: c.Settings,
		Upload: &trip.CreateUpload{Filename: c.Filename, SizeBytes: int64(len(c.Content)), Route: info}}
	return p.change(ctx, user, w, derivedID(user, w), command(create),
		tripstore.Options{BlobRefs: [][]byte{ref}, Collection: eventsv1.CollectionChange_COLLECTION_CHANGE_CREATED, Creates: true}, "")
}

// Duplicate copies the caller's trip source (route, settings, stages; not
// its share, choices or analyses) into a new trip titled title (empty: the
// source's). Counted against the duplicate limit.
func (p *Planner) Duplicate(ctx context.Context, w Write, source, title string) (Outcome, error) {
	user, src, err := p.callersTrip(ctx, source)
	if err != nil {
		return Outcome{}, err
	}
	if err := p.limits.Allow(ctx, LimitDuplicate, user); err != nil {
		return Outcome{}, err
	}
	var refs [][]byte
	if src.State.Route != nil {
		if raw, err := tripstore.HashBytes(src.State.Route.Hash); err == nil {
			refs = append(refs, raw)
		}
	}
	return p.change(ctx, user, w, derivedID(user, w), command(trip.Duplicate{Source: src.State, Title: title}),
		tripstore.Options{BlobRefs: refs, Collection: eventsv1.CollectionChange_COLLECTION_CHANGE_DUPLICATED, Creates: true}, "")
}

// Change runs (or previews) one of the caller's commands on their trip that
// needs nothing but the trip: settings, the stage edits but a cut at a
// distance (UpdateStage), an accommodation choice, unsharing.
func (p *Planner) Change(ctx context.Context, w Write, tripID string, cmd trip.Command) (Outcome, error) {
	user, id, err := callerAnd(ctx, tripID)
	if err != nil {
		return Outcome{}, err
	}
	return p.change(ctx, user, w, id, command(cmd), tripstore.Options{}, "")
}

// Analyze requests an analysis of the caller's trip (DOMAIN §5); its id is
// derived from the idempotency key, so a replay names the same analysis.
// Counted against the recompute limit of the trip.
func (p *Planner) Analyze(ctx context.Context, w Write, tripID string, version int64) (Outcome, error) {
	user, id, err := p.recomputing(ctx, tripID)
	if err != nil {
		return Outcome{}, err
	}
	analysis := derivedID(user, w).String()
	return p.change(ctx, user, w, id, command(trip.Analyze{Version: version, AnalysisID: analysis}), tripstore.Options{}, analysis)
}

// callerWithin is the caller, once one more call of theirs is within limit.
func (p *Planner) callerWithin(ctx context.Context, limit Limit) (string, error) {
	user, err := Caller(ctx)
	if err != nil {
		return "", err
	}
	return user, p.limits.Allow(ctx, limit, user)
}

// recomputing is the caller and their trip, once one more recomputation of
// that trip (an analysis, an accommodation search) is within the limit.
func (p *Planner) recomputing(ctx context.Context, tripID string) (string, uuid.UUID, error) {
	user, id, err := callerAnd(ctx, tripID)
	if err != nil {
		return "", uuid.Nil, err
	}
	return user, id, p.limits.Allow(ctx, LimitRecompute, user+"/"+tripID)
}

// callerAnd is the caller and a trip id of their request.
func callerAnd(ctx context.Context, tripID string) (string, uuid.UUID, error) {
	user, err := Caller(ctx)
	if err != nil {
		return "", uuid.Nil, err
	}
	id, err := parseTrip(tripID)
	return user, id, err
}
