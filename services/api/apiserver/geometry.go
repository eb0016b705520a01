package apiserver

import (
	"context"
	"math"
	"strconv"
	"strings"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/domain/trip"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
)

// encodePolyline is Google's encoded polyline at precision 5, the format
// map libraries decode natively.
func encodePolyline(pts []route.Point) string {
	var b strings.Builder
	var pLat, pLon int64
	enc := func(v int64) {
		u := uint64(v) << 1
		if v < 0 {
			u = ^u
		}
		for u >= 0x20 {
			b.WriteByte(byte((0x20 | (u & 0x1f)) + 63))
			u >>= 5
		}
		b.WriteByte(byte(u + 63))
	}
	for _, p := range pts {
		lat, lon := int64(math.Round(p.Lat*1e5)), int64(math.Round(p.Lon*1e5))
		enc(lat - pLat)
		enc(lon - pLon)
		pLat, pLon = lat, lon
	}
	return b.String()
}

// decimate reduces pts to at most maxPoints: Douglas–Peucker with a growing
// tolerance, then an even stride if the line is still too long.
func decimate(pts []route.Point, maxPoints int) []route.Point {
	if maxPoints <= 0 || len(pts) <= maxPoints {
		return pts
	}
	out := pts
	for tol := route.DecimationToleranceM; tol < 1e6 && len(out) > maxPoints; tol *= 2 {
		out = route.Simplify(pts, tol)
	}
	if len(out) <= maxPoints {
		return out
	}
	step := float64(len(out)-1) / float64(maxPoints-1)
	thin := make([]route.Point, 0, maxPoints)
	for i := range maxPoints {
		thin = append(thin, out[int(math.Round(float64(i)*step))])
	}
	return thin
}

// geometryPB renders a line; sourceCount is the count before max_points.
func geometryPB(pts []route.Point, sourceCount int, maxPoints uint32) *roadbookv1.RouteGeometry {
	line := decimate(pts, int(maxPoints))
	known := len(line) > 0
	for _, p := range line {
		known = known && p.HasEle
	}
	g := &roadbookv1.RouteGeometry{
		Polyline: encodePolyline(line), ElevationKnown: known,
		PointCount: uint32(len(line)), SourcePointCount: uint32(sourceCount), DistanceM: route.Length(line),
	}
	if known {
		g.ElevationsM = make([]float32, len(line))
		for i, p := range line {
			g.ElevationsM[i] = float32(p.Ele)
		}
	}
	return g
}

// stagePoints is a stage's stored line (inline, or the blob it names).
func (c *core) stagePoints(ctx context.Context, st trip.Stage) ([]route.Point, error) {
	if len(st.Geometry) > 0 || st.GeometryBlobHash == "" {
		if st.RestDay && len(st.Geometry) == 0 {
			return []route.Point{st.Start}, nil
		}
		return st.Geometry, nil
	}
	return c.trips.Route(ctx, st.GeometryBlobHash)
}

// routeLine is the whole trip's stored decimated line: the stages joined,
// or the route decimated at 20 m before stages exist.
func (c *core) routeLine(ctx context.Context, s trip.State) ([]route.Point, error) {
	if len(s.Stages) > 0 {
		var line []route.Point
		for _, st := range s.Stages {
			if st.RestDay {
				continue
			}
			pts, err := c.stagePoints(ctx, st)
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
	raw, err := c.trips.Route(ctx, s.Route.Hash)
	if err != nil {
		return nil, err
	}
	return route.Simplify(raw, route.DecimationToleranceM), nil
}

// geometry answers GetRouteGeometry and GetSharedRoute.
func (c *core) geometry(ctx context.Context, s trip.State, stage *uint32, maxPoints *uint32) (*roadbookv1.RouteGeometry, error) {
	var pts []route.Point
	var err error
	if stage != nil {
		st, serr := stageAt(s, int(*stage), "stage_index")
		if serr != nil {
			return nil, serr
		}
		pts, err = c.stagePoints(ctx, st)
	} else {
		pts, err = c.routeLine(ctx, s)
	}
	if err != nil {
		return nil, err
	}
	var mp uint32
	if maxPoints != nil {
		mp = *maxPoints
	}
	return geometryPB(pts, len(pts), mp), nil
}

// stageAt returns stage i or an invalid-argument error naming field.
func stageAt(s trip.State, i int, field string) (trip.Stage, error) {
	if i < 0 || i >= len(s.Stages) {
		return trip.Stage{}, &invalidError{Field: field, Message: "no such stage (the trip has " + itoa(len(s.Stages)) + ")"}
	}
	return s.Stages[i], nil
}

func itoa(n int) string { return strconv.Itoa(n) }
