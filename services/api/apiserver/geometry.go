package apiserver

import (
	"context"
	"math"
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

// geometryPB renders a line; sourceCount is the count before max_points.
func geometryPB(pts []route.Point, sourceCount int, maxPoints uint32) *roadbookv1.RouteGeometry {
	line := route.Decimate(pts, int(maxPoints))
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

// geometry answers GetRouteGeometry and GetSharedRoute.
func (s *shared) geometry(ctx context.Context, st trip.State, stage *uint32, maxPoints *uint32) (*roadbookv1.RouteGeometry, error) {
	pts, err := s.planner.Line(ctx, st, stage)
	if err != nil {
		return nil, err
	}
	var mp uint32
	if maxPoints != nil {
		mp = *maxPoints
	}
	return geometryPB(pts, len(pts), mp), nil
}

// stageGeometries answers GetRouteGeometry with every_stage: each stage's
// line from the one state st, a rest day's empty.
func (s *shared) stageGeometries(ctx context.Context, st trip.State, maxPoints *uint32) ([]*roadbookv1.RouteGeometry, error) {
	var mp uint32
	if maxPoints != nil {
		mp = *maxPoints
	}
	out := make([]*roadbookv1.RouteGeometry, len(st.Stages))
	for i, stage := range st.Stages {
		if stage.RestDay {
			out[i] = geometryPB(nil, 0, mp)
			continue
		}
		pts, err := s.planner.StagePoints(ctx, stage)
		if err != nil {
			return nil, err
		}
		out[i] = geometryPB(pts, len(pts), mp)
	}
	return out, nil
}
