package consumer

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/google/uuid"

	"github.com/roadbook/roadbook/domain/alert"
	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/planner"
	"github.com/roadbook/roadbook/services/worker/internal/job"
	"github.com/roadbook/roadbook/tripstore"
)

// Workers holds what the handlers need. Its zero value is not usable; build
// it with NewWorkers.
type Workers struct {
	trips     *tripstore.Store
	planner   *planner.Planner
	fetcher   RouteFetcher
	labeler   Labeler
	providers []Provider
	finder    AccommodationFinder
	router    DetourRouter
	logger    *slog.Logger

	zonesOnce sync.Once
	zones     alert.ZoneFinder
	zonesErr  error
}

// WorkersConfig configures the handlers. Fetcher, Labeler, Providers,
// Accommodations, Detours and Zones are optional: without a fetcher URL
// imports fail as source_unavailable, without a labeler the labels are
// recorded unavailable ("no geocoder is configured"), without providers
// their families are not_configured, without Accommodations a search
// records not_configured, without Detours waypoint detours stay estimated,
// and without Zones the offline time-zone finder is built on the first
// dated trip.
type WorkersConfig struct {
	Trips          *tripstore.Store
	Fetcher        RouteFetcher
	Labeler        Labeler
	Providers      []Provider
	Accommodations AccommodationFinder
	Detours        DetourRouter
	Zones          alert.ZoneFinder
	Logger         *slog.Logger
}

// NewWorkers validates cfg.
func NewWorkers(cfg WorkersConfig) (*Workers, error) {
	if cfg.Trips == nil {
		return nil, fmt.Errorf("consumer: WorkersConfig.Trips is nil")
	}
	for i, p := range cfg.Providers {
		if p == nil || len(p.Families()) == 0 {
			return nil, fmt.Errorf("consumer: WorkersConfig.Providers[%d] is nil or covers no rule family", i)
		}
		for _, f := range p.Families() {
			if !f.Provided() {
				return nil, fmt.Errorf("consumer: WorkersConfig.Providers[%d] covers %q, not a data-provider rule family", i, f)
			}
		}
	}
	plan, err := planner.New(planner.Config{Trips: cfg.Trips, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	w := &Workers{trips: cfg.Trips, planner: plan, fetcher: cfg.Fetcher, labeler: cfg.Labeler, providers: cfg.Providers, finder: cfg.Accommodations, router: cfg.Detours, logger: cfg.Logger, zones: cfg.Zones}
	if w.logger == nil {
		w.logger = slog.New(slog.DiscardHandler)
	}
	if w.zones != nil {
		w.zonesOnce.Do(func() {})
	}
	return w, nil
}

// Handle runs one job; progress tells JetStream the work is alive
// (InProgress) and is called between long steps.
func (w *Workers) Handle(ctx context.Context, j job.Job, progress func()) error {
	switch j.Kind {
	case job.KindImport:
		return w.importRoute(ctx, j, progress)
	case job.KindStages:
		return w.computeStages(ctx, j, progress)
	case job.KindAnalysis:
		return w.analyse(ctx, j, progress)
	case job.KindAccommodations:
		return w.searchAccommodations(ctx, j, progress)
	case job.KindDetour:
		return w.routeDetour(ctx, j, progress)
	}
	return fmt.Errorf("%w: kind %q", job.ErrInvalidJob, j.Kind)
}

// RecordFailure appends the job's terminal failure event (RouteImportFailed,
// StagesFailed, AnalysisFailed, or AccommodationsFound marked unavailable).
// Its id is derived too, so two workers giving up on the same request
// record one failure. A detour records none: its estimate stays.
func (w *Workers) RecordFailure(ctx context.Context, j job.Job, cause error, retryable bool) error {
	switch j.Kind {
	case job.KindImport:
		return w.importFailed(ctx, j, cause, retryable)
	case job.KindStages:
		return w.stagesFailed(ctx, j, cause, retryable)
	case job.KindAnalysis:
		return w.analysisFailed(ctx, j, cause, retryable)
	case job.KindAccommodations:
		return w.accommodationsFailed(ctx, j, cause)
	case job.KindDetour:
		return w.detourFailed(j, cause)
	}
	return fmt.Errorf("%w: kind %q", job.ErrInvalidJob, j.Kind)
}

// zoneFinder is the time-zone finder, built once on first need (it costs a
// second and tens of MB, so undated trips never pay for it).
func (w *Workers) zoneFinder() (alert.ZoneFinder, error) {
	w.zonesOnce.Do(func() {
		z, err := alert.NewTZFFinder()
		w.zones, w.zonesErr = z, err
	})
	return w.zones, w.zonesErr
}

// resultNamespace derives result event ids (UUIDv5).
var resultNamespace = uuid.MustParse("9c1f6f0e-2b7a-5d43-8e11-6a0d2c4b7f58")

// DerivedID is the id of the i-th event a step of the job's work appends:
// UUIDv5 of the request event id, the step and i. A redelivery derives the
// same ids, so the store refuses a second copy.
func DerivedID(requestEventID uuid.UUID, step string, i int) uuid.UUID {
	return uuid.NewSHA1(resultNamespace, fmt.Appendf(nil, "%s/%s/%d", requestEventID, step, i))
}

// options are the tripstore options of one step of a job.
func options(j job.Job, step, computedFor string) tripstore.Options {
	return tripstore.Options{
		EventID: func(i int) uuid.UUID { return DerivedID(j.RequestEventID, step, i) },
		Metadata: eventstore.Metadata{
			CausationID: j.RequestEventID.String(),
			Actor:       "worker:" + string(j.Kind),
			ComputedFor: computedFor,
		},
	}
}
