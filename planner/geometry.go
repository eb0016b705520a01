package planner

import (
	"context"
	"strconv"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/domain/trip"
)

// StagePoints is a stage's stored line (inline, or the blob it names); a
// rest day is its one point.
func (p *Planner) StagePoints(ctx context.Context, st trip.Stage) ([]route.Point, error) {
	if len(st.Geometry) > 0 || st.GeometryBlobHash == "" {
		if st.RestDay && len(st.Geometry) == 0 {
			return []route.Point{st.Start}, nil
		}
		return st.Geometry, nil
	}
	return p.trips.Route(ctx, st.GeometryBlobHash)
}

// RouteLine is the whole trip's stored decimated line: the stages joined,
// or the route decimated at route.DecimationToleranceM before stages exist.
func (p *Planner) RouteLine(ctx context.Context, s trip.State) ([]route.Point, error) {
	if len(s.Stages) > 0 {
		var line []route.Point
		for _, st := range s.Stages {
			if st.RestDay {
				continue
			}
			pts, err := p.StagePoints(ctx, st)
			if err != nil {
				return nil, err
			}
			if len(line) > 0 && len(pts) > 0 && line[len(line)-1] == pts[0] {
				pts = pts[1:]
			}
			line = append(line, pts...)
		}
		return line, nil
	}
	if s.Route == nil {
		return nil, nil
	}
	raw, err := p.trips.Route(ctx, s.Route.Hash)
	if err != nil {
		return nil, err
	}
	return route.Simplify(raw, route.DecimationToleranceM), nil
}

// Line is one stage's line (stage set) or the whole trip's.
func (p *Planner) Line(ctx context.Context, s trip.State, stage *uint32) ([]route.Point, error) {
	if stage == nil {
		return p.RouteLine(ctx, s)
	}
	st, err := StageAt(s, int(*stage))
	if err != nil {
		return nil, err
	}
	return p.StagePoints(ctx, st)
}

// StageAt is stage i of s, or an invalid argument naming stageIndex.
func StageAt(s trip.State, i int) (trip.Stage, error) {
	if i < 0 || i >= len(s.Stages) {
		return trip.Stage{}, &InvalidError{Field: "stageIndex", Message: "no such stage (the trip has " + strconv.Itoa(len(s.Stages)) + ")"}
	}
	return s.Stages[i], nil
}
