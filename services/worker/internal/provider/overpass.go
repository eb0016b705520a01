package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/roadbook/roadbook/domain/alert"
	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/services/worker/internal/upstream"
)

// DefaultOverpassBaseURL is the public Overpass API instance.
const DefaultOverpassBaseURL = "https://overpass-api.de"

// overpassPath is where an Overpass-compatible endpoint takes queries.
const overpassPath = "/api/interpreter"

// Overpass reads OpenStreetMap nodes from an Overpass-compatible endpoint
// (Overpass QL, [out:json]) through an upstream client, which the caller
// configures (base URL, pacer, cache, breaker).
type Overpass struct {
	c *upstream.Client
}

// NewOverpass wraps a configured upstream client (its base URL is the
// endpoint's root, e.g. DefaultOverpassBaseURL).
func NewOverpass(c *upstream.Client) (*Overpass, error) {
	if c == nil {
		return nil, fmt.Errorf("%w: overpass: nil client", upstream.ErrInvalidOption)
	}
	return &Overpass{c: c}, nil
}

// Element is one node of an Overpass JSON answer
// ({"elements":[{"type":"node","id":…,"lat":…,"lon":…,"tags":{…}}]}).
type Element struct {
	Type string            `json:"type"`
	ID   int64             `json:"id"`
	Lat  float64           `json:"lat"`
	Lon  float64           `json:"lon"`
	Tags map[string]string `json:"tags"`
}

// accommodationTags are the OSM tourism values of DOMAIN §6.
var accommodationTags = []string{"hotel", "guest_house", "chalet", "hostel", "alpine_hut", "camp_site", "wilderness_hut"}

// Accommodations lists accommodation nodes within radiusM of p, as
// candidates for alert.Shortlist.
func (o *Overpass) Accommodations(ctx context.Context, p route.Point, radiusM float64) ([]alert.Candidate, error) {
	q := fmt.Sprintf(`[out:json][timeout:25];node(around:%d,%s,%s)["tourism"~"^(%s)$"];out body;`,
		int(radiusM), coord(p.Lat), coord(p.Lon), strings.Join(accommodationTags, "|"))
	els, err := o.query(ctx, q)
	if err != nil {
		return nil, err
	}
	out := make([]alert.Candidate, 0, len(els))
	for _, e := range els {
		out = append(out, alert.Candidate{ID: "node/" + strconv.FormatInt(e.ID, 10), Name: e.Tags["name"], Lat: e.Lat, Lon: e.Lon, Tags: e.Tags})
	}
	return out, nil
}

// POI is a resupply or water point near a route.
type POI struct {
	ID       string
	Lat, Lon float64
	// Resupply: food can be bought (shops); Water: drinking water (a shop
	// also sells water).
	Resupply, Water bool
}

// POIsAlong lists resupply and water nodes within radiusM of the polyline
// pts (Overpass "around" with a list of coordinates).
func (o *Overpass) POIsAlong(ctx context.Context, pts []route.Point, radiusM float64) ([]POI, error) {
	if len(pts) == 0 {
		return nil, nil
	}
	var line strings.Builder
	for i, p := range pts {
		if i > 0 {
			line.WriteByte(',')
		}
		line.WriteString(coord(p.Lat) + "," + coord(p.Lon))
	}
	around := fmt.Sprintf("around:%d,%s", int(radiusM), line.String())
	q := fmt.Sprintf(`[out:json][timeout:60];(node(%[1]s)["shop"~"^(supermarket|convenience|bakery|general|greengrocer)$"];node(%[1]s)["amenity"~"^(drinking_water|water_point)$"];node(%[1]s)["man_made"="water_tap"];);out body;`, around)
	els, err := o.query(ctx, q)
	if err != nil {
		return nil, err
	}
	out := make([]POI, 0, len(els))
	for _, e := range els {
		p := POI{ID: "node/" + strconv.FormatInt(e.ID, 10), Lat: e.Lat, Lon: e.Lon}
		if e.Tags["shop"] != "" {
			p.Resupply, p.Water = true, true
		}
		switch {
		case e.Tags["amenity"] == "drinking_water", e.Tags["amenity"] == "water_point", e.Tags["man_made"] == "water_tap":
			p.Water = true
		}
		if p.Resupply || p.Water {
			out = append(out, p)
		}
	}
	return out, nil
}

func (o *Overpass) query(ctx context.Context, q string) ([]Element, error) {
	resp, err := o.c.Do(ctx, upstream.Request{
		Method: "POST", Path: overpassPath,
		Body: []byte("data=" + url.QueryEscape(q)), ContentType: "application/x-www-form-urlencoded",
	})
	if err != nil {
		return nil, err
	}
	var doc struct {
		Elements []Element `json:"elements"`
		Remark   string    `json:"remark"`
	}
	if err := json.Unmarshal(resp.Body, &doc); err != nil {
		return nil, fmt.Errorf("%w: overpass answer is not the documented JSON: %v", ErrBadAnswer, err)
	}
	if doc.Elements == nil && doc.Remark != "" {
		return nil, fmt.Errorf("%w: overpass: %.200s", ErrBadAnswer, doc.Remark)
	}
	els := doc.Elements[:0]
	for _, e := range doc.Elements {
		if e.Type == "node" && e.Lat >= -90 && e.Lat <= 90 && e.Lon >= -180 && e.Lon <= 180 {
			els = append(els, e)
		}
	}
	return els, nil
}

func coord(v float64) string { return strconv.FormatFloat(v, 'f', 6, 64) }
