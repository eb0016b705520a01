package workerserver

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/roadbook/roadbook/domain/alert"
	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/services/worker/internal/consumer"
	"github.com/roadbook/roadbook/services/worker/internal/fetch"
	"github.com/roadbook/roadbook/services/worker/internal/geocode"
	"github.com/roadbook/roadbook/services/worker/internal/provider"
	"github.com/roadbook/roadbook/services/worker/internal/upstream"
	"github.com/roadbook/roadbook/tripstore"
)

// routeFetcher adapts fetch.Fetcher to the consumers' RouteFetcher and
// CollectionFetcher (a Komoot collection becomes one stage per tour).
type routeFetcher struct{ f *fetch.Fetcher }

// Fetch implements consumer.RouteFetcher.
func (r routeFetcher) Fetch(ctx context.Context, src trip.Source) (*route.Route, error) {
	return r.f.Fetch(ctx, src)
}

// FetchTours implements consumer.CollectionFetcher.
func (r routeFetcher) FetchTours(ctx context.Context, src trip.Source) ([]consumer.Tour, error) {
	tours, err := r.f.FetchTours(ctx, src)
	if err != nil {
		return nil, err
	}
	out := make([]consumer.Tour, 0, len(tours))
	for _, t := range tours {
		ct := consumer.Tour{ID: t.ID, Title: t.Title}
		if t.Route != nil {
			ct.Points = t.Route.Points
		}
		out = append(out, ct)
	}
	return out, nil
}

// syncLabeler labels every stage at once with a fast, offline geocoder (the
// gazetteer): the analysis records the labels itself.
type syncLabeler struct{ g geocode.Geocoder }

// Name implements consumer.Labeler.
func (l syncLabeler) Name() string { return l.g.Name() }

// Labels implements consumer.Labeler. A point with no place near is an
// empty name (the stage is still labelled); any other error fails the
// whole batch, which the analysis records as unavailable.
func (l syncLabeler) Labels(ctx context.Context, _ uuid.UUID, stages []trip.Stage) ([]trip.StageLabel, error) {
	names := map[route.Point]string{}
	name := func(p route.Point) (string, error) {
		key := route.Point{Lat: p.Lat, Lon: p.Lon}
		if n, ok := names[key]; ok {
			return n, nil
		}
		place, err := l.g.Reverse(ctx, p.Lat, p.Lon)
		switch {
		case errors.Is(err, geocode.ErrNoPlace):
		case err != nil:
			return "", err
		}
		names[key] = place.Name
		return place.Name, nil
	}
	out := make([]trip.StageLabel, 0, len(stages))
	for _, s := range stages {
		start, err := name(s.Start)
		if err != nil {
			return nil, err
		}
		end, err := name(s.End)
		if err != nil {
			return nil, err
		}
		out = append(out, trip.StageLabel{Stage: trip.StageRef{Index: s.Index, ContentHash: s.ContentHash}, Start: start, End: end})
	}
	return out, nil
}

// queueLabeler hands stages to the paced geocoding queue (Nominatim): it
// answers nothing now, and the labels reach the trip through the queue's
// sink a few stages at a time.
type queueLabeler struct{ q *geocode.Queue }

// Name implements consumer.Labeler.
func (l queueLabeler) Name() string { return l.q.Name() }

// Labels implements consumer.Labeler.
func (l queueLabeler) Labels(ctx context.Context, tripID uuid.UUID, stages []trip.Stage) ([]trip.StageLabel, error) {
	ends := make([]geocode.StageEnds, len(stages))
	for i, s := range stages {
		ends[i] = geocode.StageEnds{Index: s.Index, ContentHash: s.ContentHash,
			Start: geocode.Point{Lat: s.Start.Lat, Lon: s.Start.Lon}, End: geocode.Point{Lat: s.End.Lat, Lon: s.End.Lon}}
	}
	return nil, l.q.Label(ctx, tripID.String(), ends)
}

// labelSink records the queue's labels (LabelsResolved) and outages
// (LabelsUnavailable) on the trips through the trip store.
type labelSink struct{ trips *tripstore.Store }

var labelOptions = tripstore.Options{Metadata: eventstore.Metadata{Actor: "worker:labels"}}

// resolved is the geocode.LabelSink.
func (s labelSink) resolved(ctx context.Context, tripID, geocoder string, labels []geocode.StageLabel) error {
	id, err := uuid.Parse(tripID)
	if err != nil {
		return fmt.Errorf("label sink: trip id %q: %w", tripID, err)
	}
	cmd := trip.RecordLabels{Geocoder: geocoder}
	for _, l := range labels {
		cmd.Labels = append(cmd.Labels, trip.StageLabel{Stage: trip.StageRef{Index: l.Index, ContentHash: l.ContentHash}, Start: l.Start, End: l.End})
	}
	_, err = s.trips.Execute(ctx, tripstore.System(), id, cmd, labelOptions)
	if errors.Is(err, trip.ErrNotFound) {
		return nil // deleted meanwhile
	}
	return err
}

// unavailable is the queue's outage hook.
func (s labelSink) unavailable(ctx context.Context, tripID, geocoder, reason string, stages []geocode.StageEnds) {
	id, err := uuid.Parse(tripID)
	if err != nil || len(stages) == 0 {
		return
	}
	cmd := trip.RecordLabelsUnavailable{Geocoder: geocoder, Reason: reason}
	for _, st := range stages {
		cmd.Stages = append(cmd.Stages, trip.StageRef{Index: st.Index, ContentHash: st.ContentHash})
	}
	_, _ = s.trips.Execute(ctx, tripstore.System(), id, cmd, labelOptions)
}

// providerStages maps the trip's stages to the provider package's view.
func providerStages(in []trip.Stage) []provider.Stage {
	out := make([]provider.Stage, len(in))
	for i, s := range in {
		out[i] = provider.Stage{Index: s.Index, Start: s.Start, End: s.End, Points: s.Geometry, RestDay: s.RestDay}
		if !s.Date.IsZero() {
			out[i].Date, _ = time.Parse(time.DateOnly, s.Date.String())
		}
	}
	return out
}

// familyProvider is one data source of provider.Analyzer as a
// consumer.Provider: OSM (Overpass, one query per stage, the six families of
// trip.SourceFamilies(alert.FamilyOSM)) or weather (Open-Meteo: comfort and
// headwind). A failure makes every family of the source unavailable.
type familyProvider struct {
	a      *provider.Analyzer
	source alert.RuleFamily
}

// Families implements consumer.Provider.
func (p familyProvider) Families() []trip.Family { return trip.SourceFamilies(p.source) }

// Analyze implements consumer.Provider.
func (p familyProvider) Analyze(ctx context.Context, _ trip.State, stages []trip.Stage) (consumer.ProviderResult, error) {
	res, err := p.a.Analyze(ctx, providerStages(stages))
	if err != nil {
		return consumer.ProviderResult{}, err
	}
	for _, av := range res.Availability {
		if av.Family == p.source && av.Status != alert.StatusEvaluated {
			return consumer.ProviderResult{}, &consumer.ProviderUnavailableError{Reason: av.Reason}
		}
	}
	hashByIndex := map[int]string{}
	for _, s := range stages {
		hashByIndex[s.Index] = s.ContentHash
	}
	out := consumer.ProviderResult{StageAlerts: map[string][]trip.Alert{}}
	for _, a := range res.Alerts {
		ta := trip.AlertFrom(a)
		if h, ok := hashByIndex[a.StageIndex]; ok && a.StageIndex != alert.TripWide {
			out.StageAlerts[h] = append(out.StageAlerts[h], ta)
			continue
		}
		out.TripAlerts = append(out.TripAlerts, ta)
	}
	return out, nil
}

// accommodationFinder searches and shortlists accommodations with Overpass.
type accommodationFinder struct{ overpass *provider.Overpass }

// FindAccommodations implements consumer.AccommodationFinder.
func (f accommodationFinder) FindAccommodations(ctx context.Context, t trip.State, stages []trip.Stage, radiusM int) (map[string][]trip.Accommodation, error) {
	a := &provider.Analyzer{Overpass: f.overpass}
	for _, typ := range t.Settings.AccommodationTypes {
		a.Enabled = append(a.Enabled, alert.AccommodationType(typ))
	}
	out := map[string][]trip.Accommodation{}
	for i, ps := range providerStages(stages) {
		if ps.RestDay {
			continue
		}
		list, err := a.Shortlist(ctx, ps, float64(radiusM))
		if err != nil {
			return nil, err
		}
		for _, acc := range list {
			loc := route.Point{Lat: acc.Lat, Lon: acc.Lon}
			out[stages[i].ContentHash] = append(out[stages[i].ContentHash], trip.Accommodation{
				ProviderID: acc.ID, Name: acc.Name, Type: trip.AccommodationType(acc.Type), Location: loc,
				PriceMinEUR: acc.Price.MinEUR, PriceMaxEUR: acc.Price.MaxEUR, PriceExact: acc.Price.Exact,
				PossibleClosed: acc.PossiblyClosed, Website: acc.Tags["website"],
				DistanceFromStageEndM: route.Haversine(ps.End, loc), CompletenessScore: acc.Score,
			})
		}
	}
	return out, nil
}

// detourRouter routes waypoint detours with an OSRM-compatible endpoint:
// provider.Detour through the shared upstream client (pacer, cache,
// breaker).
type detourRouter struct{ osrm *provider.OSRM }

// Engine implements consumer.DetourRouter.
func (detourRouter) Engine() string { return "osrm" }

// Detour implements consumer.DetourRouter. OSRM's NoRoute becomes
// consumer.ErrNoRoute; an answer that is not the documented JSON or a
// request nobody will ever answer (404, 403, refused, too large) is
// permanent; the rest (down, rate limited, breaker open) is transient and
// retried.
func (r detourRouter) Detour(ctx context.Context, from, waypoint route.Point) (float64, error) {
	d, routed, err := provider.Detour(ctx, r.osrm, from, waypoint)
	switch {
	case errors.Is(err, provider.ErrNoRoute):
		return 0, fmt.Errorf("%w: %w", consumer.ErrNoRoute, err)
	case errors.Is(err, provider.ErrBadAnswer), errors.Is(err, upstream.ErrNotFound), errors.Is(err, upstream.ErrForbidden),
		errors.Is(err, upstream.ErrRefused), errors.Is(err, upstream.ErrBodyTooLarge):
		return 0, consumer.Permanent(err)
	case err != nil:
		return 0, err
	case !routed:
		return 0, consumer.Permanent(errors.New("osrm: the detour was not routed"))
	}
	return d, nil
}
