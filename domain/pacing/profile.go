package pacing

import (
	"sort"

	"github.com/roadbook/roadbook/domain/route"
)

// profile is the route's effort profile: the decimated route with, at each of
// its vertices, the cumulative distance and the cumulative effort from the
// start. Both are non-decreasing piecewise-linear functions of the position
// along the route, which is what lets the engine turn an effort target into
// km (and a km cap into effort) with a binary search instead of a walk.
//
// Units: distances in metres and effort in "metre-equivalents" (metres of
// road + ascent·1000/elevationPenalty), i.e. DOMAIN §3's km-equivalents × 1000.
//
// Ascent per segment: DOMAIN §2's rule (a rising run counts only when its
// total rise is > 3 m) is applied once over the RAW points and each counted
// run's rise is attributed to the raw steps that make it; a decimated
// segment's ascent is the sum over the raw steps it spans. So the efforts of
// all segments add up to exactly route km + D+/penalty, with D+ as
// route.Elevation computes it on the raw points, and no climbing is lost to
// decimation (which flattens small bumps).
type profile struct {
	raw    []route.Point
	dec    []route.Point
	decRaw []int     // raw index of each decimated vertex (a subsequence of raw)
	cumM   []float64 // metres from the start at each decimated vertex
	cumEff []float64 // effort from the start at each decimated vertex
	// cumAscRaw[i] is the counted ascent (metres) of raw steps before raw
	// point i; used for segment ascent and for the tests' cross-checks.
	cumAscRaw []float64
}

// newProfile decimates pts (Douglas–Peucker, DOMAIN §2's 20 m) and builds the
// cumulative distance and effort at each kept vertex.
func newProfile(pts []route.Point, elevationPenalty float64) *profile {
	dec := route.Simplify(pts, route.DecimationToleranceM)
	p := &profile{raw: pts, dec: dec, decRaw: subsequenceIndexes(pts, dec), cumAscRaw: countedAscent(pts)}
	p.cumM = make([]float64, len(dec))
	p.cumEff = make([]float64, len(dec))
	perM := 1000 / elevationPenalty
	for j := 1; j < len(dec); j++ {
		d := route.Vincenty(dec[j-1], dec[j])
		asc := p.cumAscRaw[p.decRaw[j]] - p.cumAscRaw[p.decRaw[j-1]]
		p.cumM[j] = p.cumM[j-1] + d
		p.cumEff[j] = p.cumEff[j-1] + d + asc*perM
	}
	return p
}

// totalM is the route's length: the Vincenty sum of the decimated route.
func (p *profile) totalM() float64 { return p.cumM[len(p.cumM)-1] }

// totalEff is the route's effort (metre-equivalents).
func (p *profile) totalEff() float64 { return p.cumEff[len(p.cumEff)-1] }

// subsequenceIndexes maps each point of sub (which Simplify built by keeping
// points of pts in order) to its index in pts. Greedy earliest matching is a
// valid embedding; with repeated identical points it may pick an earlier
// twin, which changes no distance and no elevation.
func subsequenceIndexes(pts, sub []route.Point) []int {
	idx := make([]int, len(sub))
	i := 0
	for j, q := range sub {
		for i < len(pts)-1 && pts[i] != q {
			i++
		}
		idx[j] = i
		if i < len(pts)-1 {
			i++
		}
	}
	// The last kept point is the last raw point, even when an identical
	// point appeared just before it.
	if len(sub) > 0 {
		idx[len(sub)-1] = len(pts) - 1
	}
	return idx
}

// countedAscent returns the prefix sums of the ascent that DOMAIN §2's run
// rule counts, attributed step by step: out[i] is the counted rise of the
// steps before point i, so out[len-1] == route.Elevation(pts) gain.
func countedAscent(pts []route.Point) []float64 {
	step := make([]float64, len(pts)) // step[i]: counted rise of step i-1 → i
	runStart, run := 0, 0.0
	flush := func(end int) {
		if run > route.MinClimbRunM {
			for k := runStart + 1; k <= end; k++ {
				step[k] = pts[k].Ele - pts[k-1].Ele
			}
		}
		run = 0
	}
	for i := 1; i < len(pts); i++ {
		d := pts[i].Ele - pts[i-1].Ele
		if d > 0 {
			if run == 0 {
				runStart = i - 1
			}
			run += d
			continue
		}
		flush(i - 1)
	}
	flush(len(pts) - 1)
	out := step // prefix sums in place
	for i := 1; i < len(out); i++ {
		out[i] += out[i-1]
	}
	return out
}

// segmentAt is the decimated segment j (between vertices j and j+1) holding
// the effort position e, choosing a segment of positive effort when e sits
// on a vertex. Positions past the ends clamp to the first/last segment.
func (p *profile) segmentAt(e float64) int {
	n := len(p.cumEff)
	j := sort.Search(n, func(k int) bool { return p.cumEff[k] > e }) - 1
	return min(max(j, 0), n-2)
}

// segmentAtM is segmentAt for a distance position in metres.
func (p *profile) segmentAtM(m float64) int {
	n := len(p.cumM)
	j := sort.Search(n, func(k int) bool { return p.cumM[k] > m }) - 1
	return min(max(j, 0), n-2)
}

// metresAt maps an effort position to metres from the start. Past the end the
// route is extended as flat road (one metre of effort per metre), which keeps
// the water-filling's position function strictly increasing; a solved plan
// never ends there.
func (p *profile) metresAt(e float64) float64 {
	if e >= p.totalEff() {
		return p.totalM() + (e - p.totalEff())
	}
	j := p.segmentAt(e)
	se := p.cumEff[j+1] - p.cumEff[j]
	if se <= 0 {
		return p.cumM[j]
	}
	return p.cumM[j] + (e-p.cumEff[j])/se*(p.cumM[j+1]-p.cumM[j])
}

// effortAt maps metres from the start to an effort position; the inverse of
// metresAt, with the same flat extension past the end. Inside a segment of
// zero length (a vertical step) it answers the effort after the step: a day
// that reaches a point has climbed what is there.
func (p *profile) effortAt(m float64) float64 {
	if m >= p.totalM() {
		return p.totalEff() + (m - p.totalM())
	}
	j := p.segmentAtM(m)
	sm := p.cumM[j+1] - p.cumM[j]
	if sm <= 0 {
		return p.cumEff[j+1]
	}
	return p.cumEff[j] + (m-p.cumM[j])/sm*(p.cumEff[j+1]-p.cumEff[j])
}
