package sharepage

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"math"
	"strconv"
	"time"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/services/api/routesvg"
)

// Profile sizes on the share page: the samples bound each drawing's size
// whatever the route (so a 30-day page stays within its weight budget).
const (
	tripProfileSamples = 240
	dayProfileSamples  = 120
)

// sharePage is what the share page shows: no owner, no timestamps, no
// source link — the same facts the public RPCs give.
type sharePage struct {
	Title             string
	DistanceKm        string
	AscentM, DescentM int
	ElevationKnown    bool
	Days, RestDays    int
	DateRange         string
	Outline, Profile  template.HTML
	TripAlerts        []pageAlert
	GPX, FIT          string
	Stages            []pageDay
}

// pageDay is one day's row.
type pageDay struct {
	N                 int
	Date              string
	RestDay           bool
	Km                string
	AscentM, DescentM int
	Start, End        string
	Alerts            []pageAlert
	Stay              *pageStay
	Profile           template.HTML
	GPX, FIT          string
}

// pageAlert is an analysis finding (severity: critical | warning | nudge).
type pageAlert struct{ Severity, Message string }

// pageStay is the night's chosen accommodation.
type pageStay struct{ Name, Kind, Price string }

// sharePageView builds the page of a shared trip. Every SVG is computed
// here from the stored stage geometry; the template marks them safe, so
// the SVG builders escape the only text they carry (titles).
func (c *Pages) sharePageView(ctx context.Context, code string, s trip.State) (*sharePage, error) {
	p := &sharePage{Title: s.Title, Days: len(s.Stages), GPX: "/s/" + code + ".gpx", FIT: "/s/" + code + ".fit"}
	if p.Title == "" {
		p.Title = "Untitled trip"
	}
	if s.Route != nil {
		p.ElevationKnown = s.Route.ElevationKnown
		p.DistanceKm = km(s.Route.DistanceM)
		p.AscentM, p.DescentM = int(math.Round(s.Route.AscentM)), int(math.Round(s.Route.DescentM))
	}
	if len(s.Stages) > 0 && !s.Stages[0].Date.IsZero() {
		p.DateRange = dateRange(s.Stages[0].Date, s.Stages[len(s.Stages)-1].Date)
	}
	for _, a := range s.TripAlerts {
		p.TripAlerts = append(p.TripAlerts, pageAlert{a.Severity, a.Message})
	}

	var (
		line    []route.Point
		marks   []float64
		labels  []string
		dayEnds []route.Point
		along   float64
	)
	for _, st := range s.Stages {
		d := pageDay{N: st.Index + 1, RestDay: st.RestDay, Km: km(st.DistanceM),
			AscentM: int(math.Round(st.AscentM)), DescentM: int(math.Round(st.DescentM)),
			Start: st.StartLabel, End: st.EndLabel,
			GPX: fmt.Sprintf("/s/%s/stages/%d.gpx", code, st.Index+1), FIT: fmt.Sprintf("/s/%s/stages/%d.fit", code, st.Index+1)}
		if !st.Date.IsZero() {
			d.Date = longDate(st.Date)
		}
		if st.Analyzed {
			for _, a := range st.Alerts {
				d.Alerts = append(d.Alerts, pageAlert{a.Severity, a.Message})
			}
		}
		if st.Chosen != nil {
			d.Stay = &pageStay{Name: st.Chosen.Name, Kind: string(st.Chosen.Type), Price: price(st.Chosen.PriceMinEUR, st.Chosen.PriceMaxEUR)}
		}
		if st.RestDay {
			p.RestDays++
			p.Stages = append(p.Stages, d)
			continue
		}
		pts, err := c.planner.StagePoints(ctx, st)
		if err != nil {
			return nil, err
		}
		if p.ElevationKnown {
			svg, err := routesvg.Profile(pts, routesvg.ProfileOptions{Width: 500, Height: 140, Samples: dayProfileSamples,
				ID: "p" + strconv.Itoa(d.N), Title: fmt.Sprintf("Elevation profile of day %d", d.N)})
			if err == nil {
				d.Profile = template.HTML(svg) //nolint:gosec // built by package routesvg, which escapes its text
			} else if !errors.Is(err, routesvg.ErrTooShort) && !errors.Is(err, routesvg.ErrNoElevation) {
				return nil, err
			}
		}
		if len(line) > 0 {
			marks = append(marks, along)
			labels = append(labels, strconv.Itoa(d.N))
		}
		along += route.Length(pts)
		if len(line) > 0 && len(pts) > 0 && line[len(line)-1] == pts[0] {
			pts = pts[1:]
		}
		line = append(line, pts...)
		if len(pts) > 0 {
			dayEnds = append(dayEnds, pts[len(pts)-1])
		}
		p.Stages = append(p.Stages, d)
	}
	if len(line) == 0 && s.Route != nil {
		// Before the stages exist the page still shows the route.
		var err error
		if line, err = c.planner.RouteLine(ctx, s); err != nil {
			return nil, err
		}
	}
	if svg := routesvg.Outline(line, dayEnds, "Route outline of "+p.Title); svg != nil {
		p.Outline = template.HTML(svg) //nolint:gosec // built by routesvg.Outline, which escapes its text
	}
	if p.ElevationKnown {
		svg, err := routesvg.Profile(line, routesvg.ProfileOptions{Width: 600, Height: 200, Samples: tripProfileSamples, ID: "pt",
			Title: "Elevation profile of the whole trip", Marks: marks, MarkLabels: labels})
		switch {
		case err == nil:
			p.Profile = template.HTML(svg) //nolint:gosec // built by package routesvg, which escapes its text
		case errors.Is(err, routesvg.ErrTooShort), errors.Is(err, routesvg.ErrNoElevation):
		default:
			return nil, err
		}
	}
	return p, nil
}

// km is a distance in kilometres with one decimal.
func km(m float64) string { return strconv.FormatFloat(m/1000, 'f', 1, 64) }

// longDate is "Mon 1 Jun 2026".
func longDate(d trip.Date) string {
	t, err := time.Parse(time.DateOnly, d.String())
	if err != nil {
		return d.String()
	}
	return t.Format("Mon 2 Jan 2006")
}

// dateRange is "Mon 1 Jun 2026 – Tue 30 Jun 2026" (one date for one day).
func dateRange(first, last trip.Date) string {
	if first == last {
		return longDate(first)
	}
	return longDate(first) + " – " + longDate(last)
}

// price is "€40–60", "€45" or "" when unknown.
func price(lo, hi float64) string {
	switch {
	case lo <= 0 && hi <= 0:
		return ""
	case hi <= lo || lo <= 0:
		return "€" + strconv.Itoa(int(math.Round(math.Max(lo, hi))))
	}
	return "€" + strconv.Itoa(int(math.Round(lo))) + "–" + strconv.Itoa(int(math.Round(hi)))
}
