package pacing

import (
	"sort"

	"github.com/roadbook/roadbook/domain/route"
)

// profile is the route's effort profile: the decimated route with, at each of
// its vertices, the cumulative distance and the cumulative modelled riding
// time from the start. Both are non-decreasing piecewise-linear functions of
// the position along the route, which is what lets the engine turn a time
// target into km (and a km cap into time) with a binary search instead of a
// walk.
//
// Units: distances in metres (Vincenty of the decimated route, the length
// every stage reports) and effort in seconds of riding (the effort model,
// model.go, on the decimated route: the same line the stages carry, so a
// day's time recomputed from its geometry — as the rider time and the alerts
// do — is the time the engine gave it).
//
// cumAscRaw is DOMAIN §2's counted ascent (a rising run counts only when its
// total rise is > 3 m) over the RAW points, prefix-summed; cumBat is the
// e-bike battery position (metres + counted ascent × EbikeClimbMetresPerKm),
// set only in e-bike mode, so the battery range can be held like the km cap.
type profile struct {
	raw    []route.Point
	dec    []route.Point
	decRaw []int     // raw index of each decimated vertex (a subsequence of raw)
	cumM   []float64 // metres from the start at each decimated vertex
	cumEff []float64 // riding seconds from the start at each decimated vertex
	// cumAscRaw[i] is the counted ascent (metres) of raw steps before raw
	// point i.
	cumAscRaw []float64
	// cumBat is the battery position at each decimated vertex (e-bike
	// mode only; nil otherwise).
	cumBat []float64
}

// newProfile decimates pts (Douglas–Peucker, DOMAIN §2's 20 m) and builds the
// cumulative distance and riding time at each kept vertex.
func newProfile(pts []route.Point, m Model) *profile {
	dec := route.Simplify(pts, route.DecimationToleranceM)
	p := &profile{raw: pts, dec: dec, decRaw: subsequenceIndexes(pts, dec), cumAscRaw: countedAscent(pts)}
	p.cumM = make([]float64, len(dec))
	for j := 1; j < len(dec); j++ {
		p.cumM[j] = p.cumM[j-1] + route.Vincenty(dec[j-1], dec[j])
	}
	// Each segment: its time grade by grade on the decimated line, plus the
	// climbing its raw points hide (Model.StageSeconds' rule, segment by
	// segment), never less than half its line time so positions stay
	// strictly increasing.
	line := m.CumulativeSeconds(dec)
	p.cumEff = make([]float64, len(dec))
	prevEle, seen := 0.0, false
	for j := range dec {
		shown := 0.0 // the climbing the line shows on segment j−1 → j (GeometryAscent's rule)
		if dec[j].HasEle {
			if seen && dec[j].Ele > prevEle {
				shown = dec[j].Ele - prevEle
			}
			prevEle, seen = dec[j].Ele, true
		}
		if j == 0 {
			continue
		}
		dt := line[j] - line[j-1]
		hidden := (p.cumAscRaw[p.decRaw[j]] - p.cumAscRaw[p.decRaw[j-1]]) - shown
		p.cumEff[j] = p.cumEff[j-1] + max(dt/2, dt+m.bumpS*hidden)
	}
	if m.ebike {
		p.cumBat = make([]float64, len(dec))
		for j := 1; j < len(dec); j++ {
			asc := p.cumAscRaw[p.decRaw[j]] - p.cumAscRaw[p.decRaw[j-1]]
			p.cumBat[j] = p.cumBat[j-1] + (p.cumM[j] - p.cumM[j-1]) + asc*1000/EbikeClimbMetresPerKm
		}
	}
	return p
}

// totalM is the route's length: the Vincenty sum of the decimated route.
func (p *profile) totalM() float64 { return p.cumM[len(p.cumM)-1] }

// totalEff is the route's modelled riding time (seconds).
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
// route is extended as road ridden at one metre a second, which keeps the
// water-filling's position function strictly increasing; a solved plan never
// ends there.
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
// zero length it answers the effort after it.
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

// batteryEndM is how far (metres from the start) a day starting at metres m
// can ride on one battery charge of rangeM battery metres: the position
// where cumBat has grown by rangeM, interpolated inside its segment; past
// the route's end it extends the route as flat road.
func (p *profile) batteryEndM(m, rangeM float64) float64 {
	b := p.batAt(m) + rangeM
	n := len(p.cumBat)
	if b >= p.cumBat[n-1] {
		return p.totalM() + (b - p.cumBat[n-1])
	}
	j := sort.Search(n, func(k int) bool { return p.cumBat[k] > b }) - 1
	j = min(max(j, 0), n-2)
	sb := p.cumBat[j+1] - p.cumBat[j]
	if sb <= 0 {
		return p.cumM[j+1]
	}
	return p.cumM[j] + (b-p.cumBat[j])/sb*(p.cumM[j+1]-p.cumM[j])
}

// batAt maps metres from the start to a battery position (flat extension
// past the end).
func (p *profile) batAt(m float64) float64 {
	if m >= p.totalM() {
		return p.cumBat[len(p.cumBat)-1] + (m - p.totalM())
	}
	j := p.segmentAtM(m)
	sm := p.cumM[j+1] - p.cumM[j]
	if sm <= 0 {
		return p.cumBat[j+1]
	}
	return p.cumBat[j] + (m-p.cumM[j])/sm*(p.cumBat[j+1]-p.cumBat[j])
}
