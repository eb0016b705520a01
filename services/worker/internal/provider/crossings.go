package provider

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/roadbook/roadbook/domain/alert"
	"github.com/roadbook/roadbook/domain/route"
)

// Crossing rules of DOMAIN §5 (event family "crossings"): one alert per
// crossing, located where the route meets it, with its distance from the
// stage start (km) as the value. National borders are found offline from
// the country of each point (alert.BorderCrossings, family "borders"), so
// open borders without a mapped control count too.
const (
	// FerryRadiusM: ferry_crossing (warning: check the timetable) for a
	// route=ferry way the route rides: both ends of the line within this
	// distance of the route (a whole crossing), or the route within it
	// along FerryAlongM of the line in one stretch (part of a long line, or
	// a crossing cut by the stage's start or end).
	FerryRadiusM = 100.0
	// FerryAlongM is how far the route must follow a ferry line when it
	// does not meet both ends. Passing a terminal keeps the route that
	// close for at most 2 × FerryRadiusM (the approach to the slip and the
	// way on), whatever the crossing's length.
	FerryAlongM = 300.0
	// FordRadiusM: ford_crossing (warning: may be impassable after rain)
	// for a ford=yes node or way this close to the route.
	FordRadiusM = 50.0
	// MaxCrossingAlerts bounds the alerts of one kind per stage (the first
	// ones along the route); the last one says how many more there are.
	MaxCrossingAlerts = 5
	// crossingMergeM: crossings of one kind this close along the route are
	// one (a ferry line split into several ways, a ford tagged on both the
	// node and the way).
	crossingMergeM = 300.0
)

func isFerry(tags map[string]string) bool { return tags["route"] == "ferry" }
func isFord(tags map[string]string) bool  { return tags["ford"] == "yes" }

// crossing is one place where the route meets a crossing feature.
type crossing struct {
	from, to float64 // metres along the track
	at       route.Point
}

// crossingAlerts raises the ferry and ford alerts of one stage.
func crossingAlerts(index int, t track, feats []Feature) []alert.Alert {
	if len(t.pts) < 2 {
		return nil
	}
	var out []alert.Alert
	for _, r := range []proximityRule{
		{code: alert.CodeFerryCrossing, severity: alert.SeverityWarning, radius: FerryRadiusM, keep: isFerry, rides: true,
			message: "Ferry %.1f km into this stage: the ride needs it, check the timetable."},
		{code: alert.CodeFordCrossing, severity: alert.SeverityWarning, radius: FordRadiusM, keep: isFord,
			message: "Ford %.1f km into this stage: it may be impassable after rain."},
	} {
		found := crossingsOf(t, feats, r)
		for i, c := range found {
			if i == MaxCrossingAlerts {
				break
			}
			msg := fmt.Sprintf(r.message, c.from/1000)
			if i == MaxCrossingAlerts-1 && len(found) > MaxCrossingAlerts {
				msg += fmt.Sprintf(" %d more further on.", len(found)-MaxCrossingAlerts)
			}
			out = append(out, alert.Alert{
				Code: r.code, Severity: r.severity, StageIndex: index, Message: msg,
				HasPoint: true, Lat: c.at.Lat, Lon: c.at.Lon, Value: round1(c.from / 1000),
			})
		}
	}
	return out
}

// crossingsOf finds the features r keeps within r.radius of the track (for
// r.rides, ways the route rides), merged along the route and in route order.
func crossingsOf(t track, feats []Feature, r proximityRule) []crossing {
	radius := r.radius
	var cs []crossing
	for _, f := range feats {
		if !r.keep(f.Tags) {
			continue
		}
		_, at, ok := t.nearest(f.Line, radius)
		if !ok || (r.rides && f.Type == "way" && !rides(t, f.Line, radius)) {
			continue
		}
		c := crossing{from: at, to: at}
		// A way's stretch along the route, so the pieces of one ferry line
		// merge; it is located where the route reaches it.
		for _, p := range f.Line {
			if _, a, ok := t.nearest([]route.Point{p}, radius); ok {
				c.from, c.to = min(c.from, a), max(c.to, a)
			}
		}
		c.at = t.pointAt(c.from)
		if f.Type == "node" {
			c.at = f.Line[0]
		}
		cs = append(cs, c)
	}
	slices.SortFunc(cs, func(a, b crossing) int { return cmp.Compare(a.from, b.from) })
	var out []crossing
	for _, c := range cs {
		if n := len(out); n > 0 && c.from-out[n-1].to <= crossingMergeM {
			out[n-1].to = max(out[n-1].to, c.to)
			continue
		}
		out = append(out, c)
	}
	return out
}

// rides reports whether the track rides line: both of its ends within r of
// the track, or the track within r of it along FerryAlongM in one stretch.
func rides(t track, line []route.Point, r float64) bool {
	if len(line) == 0 {
		return false
	}
	_, _, first := t.nearest(line[:1], r)
	_, _, last := t.nearest(line[len(line)-1:], r)
	if first && last && len(line) > 1 {
		return true
	}
	marks := make([]bool, len(t.pts))
	t.cover(line, r, marks)
	_, longest := t.runs(marks)
	return longest.to-longest.from >= FerryAlongM
}
