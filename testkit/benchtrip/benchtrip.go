// Package benchtrip builds the trip the read benchmarks measure (bench-api and
// bench-mcp): the Oslo–Trondheim fixture uploaded the way the API does
// (planner.CreateFromUpload), a given number of stages recorded the way the
// stages worker records its result, and the analysis they start completed. Both benchmarks read the
// same stream, so their figures compare.
package benchtrip

import (
	"context"

	"github.com/roadbook/roadbook/auth"
	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/planner"
	"github.com/roadbook/roadbook/tripstore"
)

// Create uploads the GPX document raw (fixtures.OsloTrondheim for both
// benchmarks) as user's trip, records stageCount stages of equal point count
// and completes their analysis; it returns the trip id.
func Create(ctx context.Context, ts *tripstore.Store, raw []byte, user string, stageCount int) (string, error) {
	plan, err := planner.New(planner.Config{Trips: ts})
	if err != nil {
		return "", err
	}
	created, err := plan.CreateFromUpload(auth.WithPrincipal(ctx, auth.Principal{UserID: user}), planner.Write{},
		planner.CreateFromUpload{Filename: "oslo.gpx", Content: raw, Title: "Oslo – Trondheim"})
	if err != nil {
		return "", err
	}
	id := created.Trip
	r, err := ts.Route(ctx, created.After.Route.Hash)
	if err != nil {
		return "", err
	}
	l, err := ts.Load(ctx, tripstore.System(), id)
	if err != nil {
		return "", err
	}
	pts := r
	per := (len(pts) - 1) / stageCount
	var stages []trip.Stage
	for i := range stageCount {
		lo, hi := i*per, (i+1)*per
		if i == stageCount-1 {
			hi = len(pts) - 1
		}
		span := pts[lo : hi+1]
		up, down := route.Elevation(span)
		geom := route.Simplify(span, route.DecimationToleranceM)
		stages = append(stages, trip.Stage{Start: span[0], End: span[len(span)-1], Geometry: geom,
			DistanceM: route.Length(geom), AscentM: up, DescentM: down, Origin: trip.OriginPaced})
	}
	if _, err := ts.Execute(ctx, tripstore.System(), id, trip.RecordStagesComputed{For: l.State.StagesProgress.For, Stages: stages}, tripstore.Options{}); err != nil {
		return "", err
	}
	l, err = ts.Load(ctx, tripstore.System(), id)
	if err != nil {
		return "", err
	}
	for _, a := range l.State.Analyses {
		var done []trip.StageAnalysis
		for _, s := range a.Stages {
			done = append(done, trip.StageAnalysis{Stage: s, Families: map[trip.Family]trip.Availability{"geometry": "available"}})
		}
		if _, err := ts.Execute(ctx, tripstore.System(), id, trip.RecordAnalysis{AnalysisID: a.ID, Stages: done, Final: true}, tripstore.Options{}); err != nil {
			return "", err
		}
	}
	return id.String(), nil
}
