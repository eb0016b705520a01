package consumer

import (
	"context"
	"errors"
	"fmt"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/services/worker/internal/job"
	"github.com/roadbook/roadbook/tripstore"
)

// errNoFetcher: this worker was built without route fetchers.
var errNoFetcher = errors.New("no route fetcher is configured")

// importRoute fetches a URL source, stores the points and records
// RouteImported (the stages job follows from it).
func (w *Workers) importRoute(ctx context.Context, j job.Job, progress func()) error {
	l, err := w.trips.LoadAtLeast(ctx, tripstore.System(), j.TripID, j.At)
	if err != nil {
		return err
	}
	st := l.State
	if st.RouteImport.Status != trip.ComputationRequested {
		return nil // already imported or failed: a redelivery
	}
	if w.fetcher == nil {
		return &PermanentError{ImportCode: trip.ImportSourceUnavailable, Err: errNoFetcher}
	}
	info, pts, err := w.fetch(ctx, st.Source)
	if err != nil {
		return err
	}
	progress()
	hash, err := w.trips.PutRoute(ctx, pts)
	if err != nil {
		return fmt.Errorf("store route: %w", err)
	}
	info.Hash = hash
	ref, err := tripstore.HashBytes(hash)
	if err != nil {
		return err
	}
	opts := options(j, "imported", hash)
	opts.BlobRefs = [][]byte{ref}
	_, err = w.trips.Execute(ctx, tripstore.System(), j.TripID, trip.RecordRouteImported{Route: info}, opts)
	return err
}

// fetch gets the route (or a collection's tours) and measures it.
func (w *Workers) fetch(ctx context.Context, src trip.Source) (trip.RouteInfo, []route.Point, error) {
	var info trip.RouteInfo
	if cf, ok := w.fetcher.(CollectionFetcher); ok && src.Kind == trip.SourceKomootCollection {
		tours, err := cf.FetchTours(ctx, src)
		if err != nil {
			return info, nil, err
		}
		var pts []route.Point
		for _, t := range tours {
			if len(t.Points) == 0 {
				continue
			}
			info.Tours = append(info.Tours, trip.SourceTour{TourID: t.ID, Title: t.Title, StartPoint: len(pts), EndPoint: len(pts) + len(t.Points) - 1})
			pts = append(pts, t.Points...)
		}
		return measure(info, &route.Route{Points: pts, ElevationKnown: elevationKnown(pts)})
	}
	r, err := w.fetcher.Fetch(ctx, src)
	if err != nil {
		return info, nil, err
	}
	return measure(info, r)
}

// measure fills the route facts the trip records (trip.MeasureRoute, as
// for an upload), keeping a collection's tours.
func measure(info trip.RouteInfo, r *route.Route) (trip.RouteInfo, []route.Point, error) {
	if r == nil || len(r.Points) < 2 {
		return info, nil, &PermanentError{ImportCode: trip.ImportEmptyRoute, Err: errors.New("the source's route has fewer than 2 points")}
	}
	m := trip.MeasureRoute(r)
	m.Tours = info.Tours
	return m, r.Points, nil
}

func elevationKnown(pts []route.Point) bool {
	for _, p := range pts {
		if !p.HasEle {
			return false
		}
	}
	return len(pts) > 0
}

// importFailed records RouteImportFailed with the code the error carries.
func (w *Workers) importFailed(ctx context.Context, j job.Job, cause error, retryable bool) error {
	c := trip.RecordRouteImportFailed{Code: trip.ImportRouteFetchFailed, Reason: cause.Error(), Retryable: retryable}
	var perm *PermanentError
	var imp ImportFailure
	switch {
	case errors.As(cause, &imp):
		c.Code, c.HTTPStatus, c.Retryable = imp.ImportCode(), imp.HTTPStatus(), imp.Retryable()
	case errors.As(cause, &perm) && perm.ImportCode != "":
		c.Code, c.HTTPStatus = perm.ImportCode, perm.HTTPStatus
	}
	_, err := w.trips.Execute(ctx, tripstore.System(), j.TripID, c, options(j, "failed", ""))
	return err
}
