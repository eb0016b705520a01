// Package benchtrip builds the trip the read benchmarks measure (bench-api and
// bench-mcp): the Oslo–Trondheim fixture uploaded through the trip store, a
// given number of stages recorded the way the stages worker records its
// result, and the analysis they start completed. Both benchmarks read the
// same stream, so their figures compare.
package benchtrip

import (
	"bytes"
	"context"

	"github.com/google/uuid"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/tripstore"
)

// Create uploads the GPX document raw (fixtures.OsloTrondheim for both
// benchmarks) as user's trip, records stageCount stages of equal point count
// and completes their analysis; it returns the trip id.
func Create(ctx context.Context, ts *tripstore.Store, raw []byte, user string, stageCount int) (string, error) {
	r, err := route.ReadGPX(bytes.NewReader(raw))
	if err != nil {
		return "", err
	}
	hash, err := ts.PutRoute(ctx, r.Points)
	if err != nil {
		return "", err
	}
	ref, _ := tripstore.HashBytes(hash)
	gain, loss := route.Elevation(r.Points)
	id := uuid.New()
	_, err = ts.Execute(ctx, tripstore.User(user), id, trip.Create{Title: "Oslo – Trondheim", Upload: &trip.CreateUpload{
		Filename: "oslo.gpx", SizeBytes: int64(len(raw)), Route: trip.RouteInfo{Hash: hash, PointCount: len(r.Points),
			DistanceM: route.Length(r.Points), ElevationKnown: true, AscentM: gain, DescentM: loss}}}, tripstore.Options{BlobRefs: [][]byte{ref}})
	if err != nil {
		return "", err
	}
	l, err := ts.Load(ctx, tripstore.System(), id)
	if err != nil {
		return "", err
	}
	pts := r.Points
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
