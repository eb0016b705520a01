package tripcli

import (
	"fmt"
	"strings"

	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
)

// progressPart is one named part of a trip's computation, in the order a
// roadbook is built.
type progressPart struct {
	name string
	part *roadbookv1.PartProgress
}

// parts lists the parts of p that the trip has (an unspecified part is not
// part of this trip's work).
func parts(p *roadbookv1.Progress) []progressPart {
	all := []progressPart{
		{"route", p.GetRoute()}, {"stages", p.GetStages()}, {"labels", p.GetLabels()},
		{"analysis", p.GetAnalysis()}, {"accommodations", p.GetAccommodations()},
	}
	var out []progressPart
	for _, pp := range all {
		if pp.part.GetState() != roadbookv1.ComputationState_COMPUTATION_STATE_UNSPECIFIED {
			out = append(out, pp)
		}
	}
	return out
}

// settled reports whether a part will not change without a new request.
func settled(s roadbookv1.ComputationState) bool {
	switch s {
	case roadbookv1.ComputationState_COMPUTATION_STATE_PENDING, roadbookv1.ComputationState_COMPUTATION_STATE_RUNNING:
		return false
	}
	return true
}

// fraction is how far one part is: settled parts count whole, running
// parts by done/total when they report it.
func fraction(pp *roadbookv1.PartProgress) float64 {
	if settled(pp.GetState()) {
		return 1
	}
	if pp.GetState() == roadbookv1.ComputationState_COMPUTATION_STATE_RUNNING && pp.GetTotal() > 0 {
		return min(float64(pp.GetDone())/float64(pp.GetTotal()), 1)
	}
	return 0
}

// overall is the mean fraction over the trip's parts.
func overall(p *roadbookv1.Progress) float64 {
	ps := parts(p)
	if len(ps) == 0 {
		return 0
	}
	sum := 0.0
	for _, pp := range ps {
		sum += fraction(pp.part)
	}
	return sum / float64(len(ps))
}

// progressLine renders the bar and the state of each part, e.g.
// "[██████░░░░░░░░░░░░░░]  33%  route done · stages running 3/10".
func progressLine(p *roadbookv1.Progress, width int) string {
	f := overall(p)
	filled := int(f * float64(width))
	var b strings.Builder
	b.WriteString("[" + strings.Repeat("█", filled) + strings.Repeat("░", width-filled) + "]")
	fmt.Fprintf(&b, " %3.0f%% ", f*100)
	for i, pp := range parts(p) {
		if i > 0 {
			b.WriteString(" ·")
		}
		fmt.Fprintf(&b, " %s %s", pp.name, stateName(pp.part.GetState()))
		if pp.part.GetTotal() > 0 && !settled(pp.part.GetState()) {
			fmt.Fprintf(&b, " %d/%d", pp.part.GetDone(), pp.part.GetTotal())
		}
	}
	return b.String()
}

// stateName is a ComputationState in lower case ("running").
func stateName(s roadbookv1.ComputationState) string {
	return strings.ToLower(strings.TrimPrefix(s.String(), "COMPUTATION_STATE_"))
}

// statusName is a TripStatus in lower case ("ready").
func statusName(s roadbookv1.TripStatus) string {
	return strings.ToLower(strings.TrimPrefix(s.String(), "TRIP_STATUS_"))
}

// roadbookDone reports whether the watch can stop: the trip failed, or it
// is ready and no longer partial (route, stages and any requested analysis
// settled). Labels and accommodations fill in progressively after that and
// a stage may have none, so they do not hold the CLI.
func roadbookDone(t *roadbookv1.TripDigest) bool {
	switch t.GetStatus() {
	case roadbookv1.TripStatus_TRIP_STATUS_FAILED:
		return true
	case roadbookv1.TripStatus_TRIP_STATUS_READY:
		return !t.GetPartial()
	}
	return false
}
