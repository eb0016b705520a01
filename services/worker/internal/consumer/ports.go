package consumer

import (
	"context"

	"github.com/google/uuid"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/domain/trip"
)

// RouteFetcher fetches the route of a URL-sourced trip (Komoot, Strava,
// RideWithGPS; DOMAIN §2). Only the source's kind and id may choose what is
// requested, never the URL's host. Errors should implement ImportFailure so
// the failure event carries the right code; other errors count as transient
// route_fetch_failed.
type RouteFetcher interface {
	Fetch(ctx context.Context, src trip.Source) (*route.Route, error)
}

// CollectionFetcher is optionally implemented by a RouteFetcher that can
// fetch a Komoot collection as its tours; the trip then gets one stage per
// tour (pacing.FromTours) instead of paced days.
type CollectionFetcher interface {
	FetchTours(ctx context.Context, src trip.Source) ([]Tour, error)
}

// Tour is one tour of a collection, with its points.
type Tour struct {
	ID     string
	Title  string
	Points []route.Point
}

// Labeler names stage ends (the configured geocoder: the gazetteer by
// default, Nominatim through the paced queue). A synchronous labeler (the
// gazetteer) answers every stage at once; a progressive one (Nominatim)
// answers none now and delivers the labels later through its own sink. An
// error means the labels cannot be produced now: the analysis records them
// unavailable with the error as the reason, never "pending" forever.
type Labeler interface {
	// Name is the geocoder recorded with the labels ("gazetteer").
	Name() string
	// Labels returns start and end labels for the given stages of the trip
	// (an empty name: the geocoder knows no place there).
	Labels(ctx context.Context, tripID uuid.UUID, stages []trip.Stage) ([]trip.StageLabel, error)
}

// AccommodationFinder searches places to sleep near stage ends (an
// Overpass-compatible endpoint, shortlisted by alert.Shortlist).
type AccommodationFinder interface {
	// FindAccommodations returns the shortlist of each stage, keyed by the
	// stage's content hash, searching radiusM around its end.
	FindAccommodations(ctx context.Context, t trip.State, stages []trip.Stage, radiusM int) (map[string][]trip.Accommodation, error)
}

// Provider is a data provider (an Overpass-compatible endpoint, Open-Meteo)
// evaluating the rule families it covers. A provider that fails marks its
// families unavailable for the analysis; an unconfigured family is
// not_configured — never a silent "no alerts".
type Provider interface {
	// Families are the rule families it evaluates (some of those
	// trip.Family.Provided reports).
	Families() []trip.Family
	// Analyze evaluates the stages (rest days included) of the trip.
	Analyze(ctx context.Context, t trip.State, stages []trip.Stage) (ProviderResult, error)
}

// ProviderResult is what a provider found.
type ProviderResult struct {
	// StageAlerts are keyed by stage content hash.
	StageAlerts map[string][]trip.Alert
	// TripAlerts concern the whole trip (headwind share).
	TripAlerts []trip.Alert
}
