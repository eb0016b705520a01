package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"time"

	"github.com/roadbook/roadbook/domain/pacing"
	"github.com/roadbook/roadbook/domain/route"
)

// paceFixtureCandidates locate the 627 km Oslo–Trondheim track relative to
// the domain module (`make bench-domain` runs from domain/), the repository
// root, or this command's directory: the domain's one copy of the real
// routes, the route package's testdata (domain/route/testdata/SOURCES.md).
var paceFixtureCandidates = []string{
	"route/testdata/gpx/long_brouter_oslo-trondheim_fastbike.gpx",
	"domain/route/testdata/gpx/long_brouter_oslo-trondheim_fastbike.gpx",
	"../../route/testdata/gpx/long_brouter_oslo-trondheim_fastbike.gpx",
}

const (
	// paceTargetM is the length of the generated route: ≈ 4,000 km, the
	// scale of the Tour Divide that breaks the reference formula.
	paceTargetM = 4_000_000
	// paceMinPoints is the smallest point count the benchmark accepts.
	paceMinPoints = 28_000
	// paceRuns is how many timed runs of each side; the median is reported.
	paceRuns = 9
	// paceShiftLon is the eastward shift (degrees) between copies of the
	// fixture, joined by one connecting segment (≈ 2.5 km at 60–63°N), so
	// the generated route is continuous and stays at real latitudes.
	paceShiftLon = 0.05
)

// benchPace decimates and paces (pacing.Plan at default settings) a
// ≈ 4,000 km route built from the fixture, beside a baseline of one Vincenty
// pass over the same points, and returns the pace-4000km line with the
// median of paceRuns runs of each.
func benchPace() (string, error) {
	fixture, err := loadPaceFixture()
	if err != nil {
		return "", err
	}
	pts := buildPaceRoute(fixture, paceTargetM)
	if len(pts) < paceMinPoints {
		return "", fmt.Errorf("pace: generated route has %d points, want ≥ %d", len(pts), paceMinPoints)
	}

	var res pacing.Result
	ours, err := paceMedian(func() error {
		var err error
		res, err = pacing.Plan(pts, pacing.Defaults())
		return err
	})
	if err != nil {
		return "", fmt.Errorf("pace: %w", err)
	}
	if res.OverCapacity != nil || res.Days < 50 {
		return "", fmt.Errorf("pace: implausible plan of %d days (over capacity %v)", res.Days, res.OverCapacity)
	}
	var sink float64
	base, _ := paceMedian(func() error {
		sink += route.Length(pts)
		return nil
	})
	if sink <= 0 {
		return "", errors.New("pace: baseline measured a zero-length route")
	}
	ms := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
	return fmt.Sprintf("domain pace-4000km ms=%.2f baseline_ms=%.2f ratio=%.2f points=%d",
		ms(ours), ms(base), ms(ours)/ms(base), len(pts)), nil
}

// loadPaceFixture reads the fixture's points with the project's GPX reader.
func loadPaceFixture() ([]route.Point, error) {
	for _, path := range paceFixtureCandidates {
		f, err := os.Open(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r, err := route.ReadGPX(f)
		if err != nil {
			return nil, fmt.Errorf("pace: %s: %w", path, err)
		}
		return r.Points, nil
	}
	return nil, fmt.Errorf("pace: fixture not found (run from domain/): tried %v", paceFixtureCandidates)
}

// buildPaceRoute chains copies of the fixture end to end until the route is
// targetM long: every other copy is reversed (so it starts where the previous
// one ended) and each copy is shifted paceShiftLon further east, the shift
// bridged by the first segment of the copy. Deterministic: the same fixture
// always gives the same points.
func buildPaceRoute(fixture []route.Point, targetM float64) []route.Point {
	var out []route.Point
	total := 0.0
	for k := 0; total < targetM; k++ {
		cp := slices.Clone(fixture)
		if k%2 == 1 {
			slices.Reverse(cp)
		}
		for _, p := range cp {
			p.Lon += float64(k) * paceShiftLon
			if n := len(out); n > 0 {
				total += route.Vincenty(out[n-1], p)
			}
			out = append(out, p)
			if total >= targetM {
				break
			}
		}
	}
	return out
}

// paceMedian runs f paceRuns times (after one warm-up run) and returns the
// median wall time.
func paceMedian(f func() error) (time.Duration, error) {
	if err := f(); err != nil {
		return 0, err
	}
	times := make([]time.Duration, paceRuns)
	for i := range times {
		start := time.Now()
		if err := f(); err != nil {
			return 0, err
		}
		times[i] = time.Since(start)
	}
	slices.Sort(times)
	return times[len(times)/2], nil
}
