package export

import (
	"bufio"
	"encoding/xml"
	"io"
	"strconv"
	"time"
)

// GPXOptions chooses the personal metadata a GPX export carries. The zero
// value writes none: no <time> anywhere and no <author>. That is the default
// for every export and what share links must use (DOMAIN §8: a public
// visitor sees no timestamps or author metadata). Track points never carry a
// <time>, whatever the options: a planned route has no times, and times
// copied from an uploaded recording would reveal when its owner rode.
type GPXOptions struct {
	// Time, when non-zero, is written as <metadata><time> in UTC: the moment
	// the owner generated the file, given by the caller's clock.
	Time time.Time
	// Author, when non-empty, is written as <metadata><author><name>.
	Author string
}

// The GPX 1.1 namespace and schema location, so strict validators (and
// Garmin BaseCamp) accept the file.
const (
	gpxNamespace      = "http://www.topografix.com/GPX/1/1"
	gpxSchemaLocation = "http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd"
)

// WriteTripGPX writes the whole trip as a GPX 1.1 file a GPS unit shows day
// by day: metadata (title and a link to the source), then for every riding
// day its named points as <wpt> — the rider's waypoints, the resupply points
// (water, food shops, cafés) and other POIs, the day's summit (its highest
// point, when it climbs SummitMinRiseM to it), where to sleep (the chosen
// accommodation, or the candidates while none is chosen) and a waypoint at
// the day's end — and one <trk> per riding day named "Day 3 · Lillehammer →
// Otta · 2026-06-03" (its label and date when known), numbered by its day.
func WriteTripGPX(w io.Writer, t Trip, opts GPXOptions) error {
	if err := t.validate(); err != nil {
		return err
	}
	return writeGPX(w, t, tripCourse(t), opts)
}

// WriteStageGPX writes the stage at position i (0-based) of the trip as its
// own GPX 1.1 file: the trip's metadata, the day's waypoints as the whole
// trip has them, and its one <trk>.
func WriteStageGPX(w io.Writer, t Trip, i int, opts GPXOptions) error {
	if err := t.validate(); err != nil {
		return err
	}
	c, err := stageCourse(t, i)
	if err != nil {
		return err
	}
	return writeGPX(w, t, c, opts)
}

func writeGPX(w io.Writer, t Trip, c course, opts GPXOptions) error {
	if len(c.points) == 0 {
		return ErrNoPoints
	}
	g := gpxWriter{w: bufio.NewWriter(w)}
	g.raw(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	g.raw(`<gpx version="1.1" creator="Roadbook" xmlns="` + gpxNamespace +
		`" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="` + gpxSchemaLocation + `">` + "\n")

	// Metadata children follow the schema's order: name, author, link, time.
	g.raw("  <metadata>\n")
	g.element("    ", "name", t.Title)
	if author := cleanText(opts.Author); author != "" {
		g.raw("    <author>\n")
		g.element("      ", "name", author)
		g.raw("    </author>\n")
	}
	if src := cleanText(t.SourceURL); src != "" {
		g.raw(`    <link href="`)
		g.text(src)
		g.raw("\">\n")
		g.element("      ", "text", "Source route")
		g.raw("    </link>\n")
	}
	if !opts.Time.IsZero() {
		g.element("    ", "time", opts.Time.UTC().Format(time.RFC3339))
	}
	g.raw("  </metadata>\n")

	// The schema wants every <wpt> before the first <trk>.
	for _, d := range c.days {
		for _, m := range d.marks {
			g.waypoint(m)
		}
	}
	for _, d := range c.days {
		// Track children in the schema's order: name, desc, number, trkseg.
		g.raw("  <trk>\n")
		g.element("    ", "name", d.title)
		g.element("    ", "desc", d.marks[len(d.marks)-1].desc)
		g.element("    ", "number", strconv.Itoa(d.n))
		g.raw("    <trkseg>\n")
		for _, p := range c.points[d.first : d.last+1] {
			g.raw(`      <trkpt lat="` + formatCoord(p.Lat) + `" lon="` + formatCoord(p.Lon) + `"`)
			if p.HasEle {
				g.raw("><ele>" + formatEle(p.Ele) + "</ele></trkpt>\n")
			} else {
				g.raw("/>\n")
			}
		}
		g.raw("    </trkseg>\n  </trk>\n")
	}
	g.raw("</gpx>\n")
	if g.err != nil {
		return g.err
	}
	return g.w.Flush()
}

// poiSymbol is the Garmin symbol name devices and BaseCamp draw for a kind.
func poiSymbol(k POIKind) string {
	switch k {
	case POIFood:
		return "Restaurant"
	case POIWater:
		return "Drinking Water"
	case POIStore:
		return "Shopping Center"
	case POIFirstAid:
		return "First Aid"
	case POISummit:
		return "Summit"
	case POICampsite:
		return "Campground"
	case POIShelter:
		return "Lodging"
	case POIToilet:
		return "Restroom"
	case POIViewpoint:
		return "Scenic Area"
	default:
		return "Flag, Blue"
	}
}

// lodgingSymbol draws camp sites as tents and every roofed place as a bed.
func lodgingSymbol(typ string) string {
	if typ == "camp_site" {
		return "Campground"
	}
	return "Lodging"
}

// lodgingType is the GPX <type> of an accommodation: its DOMAIN §6 type,
// which never collides with a POI kind, or "accommodation" when unknown.
func lodgingType(typ string) string {
	if typ == "" {
		return "accommodation"
	}
	return typ
}

// gpxWriter writes GPX text and keeps the first write error, so the layout
// code above reads top to bottom without an error check per line.
type gpxWriter struct {
	w   *bufio.Writer
	err error
}

func (g *gpxWriter) raw(s string) {
	if g.err == nil {
		_, g.err = g.w.WriteString(s)
	}
}

// text writes third-party text escaped for both element content and
// attribute values (xml.EscapeText escapes <, >, &, ' and ").
func (g *gpxWriter) text(s string) {
	if g.err == nil {
		g.err = xml.EscapeText(g.w, []byte(s))
	}
}

// element writes <name>value</name> on its own line, or nothing when the
// cleaned value is empty (an empty <name/> helps no device).
func (g *gpxWriter) element(indent, name, value string) {
	value = cleanText(value)
	if value == "" {
		return
	}
	g.raw(indent + "<" + name + ">")
	g.text(value)
	g.raw("</" + name + ">\n")
}

// waypoint writes one <wpt> with its children in the schema's order (name,
// desc, sym, type).
func (g *gpxWriter) waypoint(m mark) {
	g.raw(`  <wpt lat="` + formatCoord(m.lat) + `" lon="` + formatCoord(m.lon) + "\">\n")
	g.element("    ", "name", m.name)
	g.element("    ", "desc", m.desc)
	g.element("    ", "sym", m.sym)
	g.element("    ", "type", m.typ)
	g.raw("  </wpt>\n")
}
