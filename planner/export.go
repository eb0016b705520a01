package planner

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/roadbook/roadbook/domain/alert"
	"github.com/roadbook/roadbook/domain/export"
	"github.com/roadbook/roadbook/domain/trip"
)

// Format is an export's file format.
type Format int

// The formats.
const (
	FormatGPX Format = iota + 1
	FormatFIT
	FormatText
)

// File is an exported document.
type File struct {
	Name        string
	ContentType string
	Content     []byte
}

// Export renders a trip (or its stage, when set) as a file. public leaves
// out the source link: a share-link visitor sees no author metadata. GPX
// never carries times or an author (zero GPXOptions); FIT timestamps derive
// from the plan, not the upload.
func (p *Planner) Export(ctx context.Context, s trip.State, format Format, stage *uint32, public bool) (File, error) {
	t, err := p.exportTrip(ctx, s, public)
	if err != nil {
		return File{}, err
	}
	if stage != nil && int(*stage) >= len(t.Stages) {
		return File{}, &InvalidError{Field: "stageIndex", Message: fmt.Sprintf("no such stage (the trip has %d)", len(t.Stages))}
	}
	if stage != nil && t.Stages[*stage].RestDay && format != FormatText {
		// A rest day has no track: a GPX or FIT file of it would be empty,
		// and "no stages yet" would send the rider looking for the wrong
		// cause.
		return File{}, &InvalidError{Field: "stageIndex", Message: fmt.Sprintf(
			"day %d is a rest day: it has no track for a GPX or FIT file (its text export lists the day)", *stage+1)}
	}
	var buf bytes.Buffer
	name := "roadbook"
	if stage != nil {
		name = fmt.Sprintf("roadbook-stage-%d", *stage+1)
	}
	fitOpts := export.FITOptions{SpeedKmh: s.Settings.AverageSpeedKmH}
	var out File
	switch format {
	case FormatGPX:
		out.Name, out.ContentType = name+".gpx", "application/gpx+xml"
		if stage != nil {
			err = export.WriteStageGPX(&buf, t, int(*stage), export.GPXOptions{})
		} else {
			err = export.WriteTripGPX(&buf, t, export.GPXOptions{})
		}
	case FormatFIT:
		out.Name, out.ContentType = name+".fit", "application/vnd.ant.fit"
		if stage != nil {
			err = export.WriteStageFIT(&buf, t, int(*stage), fitOpts)
		} else {
			err = export.WriteTripFIT(&buf, t, fitOpts)
		}
	case FormatText:
		out.Name, out.ContentType = name+".txt", "text/plain; charset=utf-8"
		if stage != nil {
			err = export.WriteStageText(&buf, t, int(*stage))
		} else {
			err = export.WriteText(&buf, t)
		}
	default:
		return File{}, &InvalidError{Field: "format", Message: "must be GPX, FIT or TEXT"}
	}
	switch {
	case errors.Is(err, export.ErrNoStages), errors.Is(err, export.ErrNoPoints):
		return File{}, &trip.Error{Code: trip.CodePreconditionFailed, Awaiting: trip.ComputationStages, Message: "the trip has no stages to export yet"}
	case errors.Is(err, export.ErrNoSuchStage):
		return File{}, &InvalidError{Field: "stageIndex", Message: "no such stage"}
	case err != nil:
		return File{}, err
	}
	out.Content = buf.Bytes()
	return out, nil
}

// exportTrip maps a trip to the export package's shape.
func (p *Planner) exportTrip(ctx context.Context, s trip.State, public bool) (export.Trip, error) {
	t := export.Trip{Title: s.Title}
	if !public {
		t.SourceURL = s.Source.URL
	}
	known := s.Route != nil && s.Route.ElevationKnown
	for _, st := range s.Stages {
		pts, err := p.StagePoints(ctx, st)
		if err != nil {
			return export.Trip{}, err
		}
		es := export.Stage{RestDay: st.RestDay, DistanceM: st.DistanceM, AscentM: st.AscentM, DescentM: st.DescentM,
			ElevationUnknown: !known, Points: pts, Date: st.Date.Time()}
		if st.StartLabel != "" && st.EndLabel != "" {
			es.Label = st.StartLabel + " → " + st.EndLabel
		}
		es.EndLabel = st.EndLabel
		es.Resupply, es.ResupplyChecked, es.Weather = DayResupply(st, s.Settings), st.Resupply != nil, exportWeather(st.Weather)
		for _, w := range st.Waypoints {
			es.Waypoints = append(es.Waypoints, export.Waypoint{Name: w.Name, Category: w.Category, Lat: w.Location.Lat, Lon: w.Location.Lon})
		}
		if st.RestDay {
			es.Points = nil
		}
		if st.Chosen != nil {
			a := exportAccommodation(st.Chosen.Accommodation)
			es.Accommodation = &a
		}
		for _, a := range st.Offered {
			es.Candidates = append(es.Candidates, exportAccommodation(a))
		}
		t.Stages = append(t.Stages, es)
	}
	return t, nil
}

func exportAccommodation(a trip.Accommodation) export.Accommodation {
	return export.Accommodation{Name: a.Name, Type: string(a.Type), Lat: a.Location.Lat, Lon: a.Location.Lon,
		PriceMinEUR: a.PriceMinEUR, PriceMaxEUR: a.PriceMaxEUR}
}

// DayResupply is a stage's resupply points in the export package's shape —
// what the exports carry and the share page lists — each with the rider's
// time of passage on a dated day (the day's schedule, trip.Stage.RiderTime,
// read at the point: the time GetStage shows and the open-at-passage check
// used); nil until the analysis looked.
func DayResupply(st trip.Stage, set trip.Settings) []export.Resupply {
	if st.Resupply == nil {
		return nil
	}
	var rt alert.RiderTime
	if !st.Date.IsZero() {
		rt = st.RiderTime(set)
	}
	out := make([]export.Resupply, 0, len(st.Resupply.Points))
	for _, p := range st.Resupply.Points {
		r := export.Resupply{Kind: export.ResupplyKind(p.Kind), Name: p.Name, Lat: p.Location.Lat, Lon: p.Location.Lon,
			AtM: p.AtM, OpeningHours: p.OpeningHours, Open: string(p.Open)}
		if !st.Date.IsZero() {
			m := rt.PassageMinute(p.AtM)
			r.PassAt = fmt.Sprintf("%02d:%02d", m/60%24, m%60)
		}
		out = append(out, r)
	}
	return out
}

// exportWeather is a stage's weather in the export package's shape.
func exportWeather(w *trip.Weather) *export.Weather {
	if w == nil {
		return nil
	}
	return &export.Weather{Typical: w.Typical, TempMinC: w.TempMinC, TempMaxC: w.TempMaxC, PrecipitationMM: w.PrecipitationMM,
		WindKmh: w.WindMaxKmh, HeadwindKmh: w.HeadwindKmh, Comfort: w.Comfort}
}
