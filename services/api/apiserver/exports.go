package apiserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"connectrpc.com/connect"

	"github.com/roadbook/roadbook/domain/export"
	"github.com/roadbook/roadbook/domain/trip"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
)

// exportService implements roadbookv1connect.ExportServiceHandler.
type exportService struct{ *core }

var _ roadbookv1connect.ExportServiceHandler = (*exportService)(nil)

// exportTrip maps a trip to the export package's shape (public=true leaves
// out the source link: a visitor sees no author metadata).
func (c *core) exportTrip(ctx context.Context, s trip.State, public bool) (export.Trip, error) {
	t := export.Trip{Title: s.Title}
	if !public {
		t.SourceURL = s.Source.URL
	}
	known := s.Route != nil && s.Route.ElevationKnown
	for _, st := range s.Stages {
		pts, err := c.stagePoints(ctx, st)
		if err != nil {
			return export.Trip{}, err
		}
		es := export.Stage{RestDay: st.RestDay, DistanceM: st.DistanceM, AscentM: st.AscentM, DescentM: st.DescentM,
			ElevationUnknown: !known, Points: pts}
		if st.StartLabel != "" && st.EndLabel != "" {
			es.Label = st.StartLabel + " → " + st.EndLabel
		}
		es.EndLabel = st.EndLabel
		es.Resupply, es.ResupplyChecked, es.Weather = exportResupply(st, s.Settings), st.Resupply != nil, exportWeather(st.Weather)
		for _, w := range st.Waypoints {
			es.Waypoints = append(es.Waypoints, export.Waypoint{Name: w.Name, Category: w.Category, Lat: w.Location.Lat, Lon: w.Location.Lon})
		}
		if !st.Date.IsZero() {
			es.Date, _ = time.Parse("2006-01-02", st.Date.String())
		}
		if st.RestDay {
			es.Points = nil
		}
		if st.Chosen != nil {
			a := st.Chosen.Accommodation
			es.Accommodation = &export.Accommodation{Name: a.Name, Type: string(a.Type), Lat: a.Location.Lat, Lon: a.Location.Lon, PriceMinEUR: a.PriceMinEUR, PriceMaxEUR: a.PriceMaxEUR}
		}
		for _, a := range st.Offered {
			es.Candidates = append(es.Candidates, export.Accommodation{Name: a.Name, Type: string(a.Type), Lat: a.Location.Lat, Lon: a.Location.Lon, PriceMinEUR: a.PriceMinEUR, PriceMaxEUR: a.PriceMaxEUR})
		}
		t.Stages = append(t.Stages, es)
	}
	return t, nil
}

// render writes the file. GPX never carries times or an author here (the
// zero GPXOptions); FIT timestamps derive from the plan, not the upload.
func (c *core) render(ctx context.Context, s trip.State, format roadbookv1.ExportFormat, stage *uint32, public bool) (*roadbookv1.ExportedFile, error) {
	t, err := c.exportTrip(ctx, s, public)
	if err != nil {
		return nil, err
	}
	if stage != nil && int(*stage) >= len(t.Stages) {
		return nil, &invalidError{Field: "stage_index", Message: fmt.Sprintf("no such stage (the trip has %d)", len(t.Stages))}
	}
	var buf bytes.Buffer
	name := "roadbook"
	if stage != nil {
		name = fmt.Sprintf("roadbook-stage-%d", *stage+1)
	}
	fitOpts := export.FITOptions{SpeedKmh: s.Settings.AverageSpeedKmH}
	out := &roadbookv1.ExportedFile{}
	switch format {
	case roadbookv1.ExportFormat_EXPORT_FORMAT_GPX:
		out.Filename, out.ContentType = name+".gpx", "application/gpx+xml"
		if stage != nil {
			err = export.WriteStageGPX(&buf, t, int(*stage), export.GPXOptions{})
		} else {
			err = export.WriteTripGPX(&buf, t, export.GPXOptions{})
		}
	case roadbookv1.ExportFormat_EXPORT_FORMAT_FIT:
		out.Filename, out.ContentType = name+".fit", "application/vnd.ant.fit"
		if stage != nil {
			err = export.WriteStageFIT(&buf, t, int(*stage), fitOpts)
		} else {
			err = export.WriteTripFIT(&buf, t, fitOpts)
		}
	case roadbookv1.ExportFormat_EXPORT_FORMAT_TEXT:
		out.Filename, out.ContentType = "roadbook.txt", "text/plain; charset=utf-8"
		err = export.WriteText(&buf, t)
	default:
		return nil, &invalidError{Field: "format", Message: "must be GPX, FIT or TEXT"}
	}
	switch {
	case errors.Is(err, export.ErrNoStages), errors.Is(err, export.ErrNoPoints):
		return nil, &trip.Error{Code: trip.CodePreconditionFailed, Awaiting: trip.ComputationStages, Message: "the trip has no stages to export yet"}
	case errors.Is(err, export.ErrNoSuchStage):
		return nil, &invalidError{Field: "stage_index", Message: "no such stage"}
	case err != nil:
		return nil, err
	}
	out.Content = buf.Bytes()
	return out, nil
}

func (s *exportService) ExportTrip(ctx context.Context, req *connect.Request[roadbookv1.ExportTripRequest]) (*connect.Response[roadbookv1.ExportTripResponse], error) {
	user, err := s.user(ctx)
	if err != nil {
		return nil, err
	}
	l, err := s.load(ctx, user, req.Msg.TripId)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	f, err := s.render(ctx, l.State, req.Msg.Format, req.Msg.StageIndex, false)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return connect.NewResponse(&roadbookv1.ExportTripResponse{Version: l.State.Version, File: f}), nil
}
