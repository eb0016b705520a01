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

// Overpass reads OpenStreetMap nodes and ways from an Overpass-compatible
// endpoint (Overpass QL, [out:json]) through an upstream client, which the
// caller configures (base URL, pacer, cache, breaker).
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

// Element is one element of an Overpass JSON answer: a node
// ({"type":"node","id":…,"lat":…,"lon":…,"tags":{…}}) or, printed with
// "out geom", a way with its geometry
// ({"type":"way","id":…,"geometry":[{"lat":…,"lon":…},…],"tags":{…}}).
type Element struct {
	Type     string            `json:"type"`
	ID       int64             `json:"id"`
	Lat      float64           `json:"lat"`
	Lon      float64           `json:"lon"`
	Tags     map[string]string `json:"tags"`
	Geometry []*LatLon         `json:"geometry"`
	// Center is a way's centre, printed by "out center" (shops mapped as
	// building outlines).
	Center *LatLon `json:"center"`
}

// LatLon is one vertex of a way's geometry (null in the answer when the
// vertex lies outside a bounding box the query set).
type LatLon struct {
	Lat float64 `json:"lat"`
	Lon float64 `json:"lon"`
}

// Feature is one OSM element as the rules see it: a node (Line holds its
// one point) or a way (Line is its geometry, at least one point).
type Feature struct {
	// Type is "node" or "way".
	Type string
	// ID is the OSM reference, "node/123" or "way/456".
	ID string
	// Tags are the element's OSM tags (third-party text).
	Tags map[string]string
	// Line is where the element is.
	Line []route.Point
}

// accommodationTags are the OSM tourism values of DOMAIN §6.
var accommodationTags = []string{"hotel", "guest_house", "chalet", "hostel", "alpine_hut", "camp_site", "wilderness_hut"}

// Accommodations lists accommodation nodes within radiusM of p, as
// candidates for alert.Shortlist.
func (o *Overpass) Accommodations(ctx context.Context, p route.Point, radiusM float64) ([]alert.Candidate, error) {
	q := fmt.Sprintf(`[out:json][timeout:25];node(around:%d,%s,%s)["tourism"~"^(%s)$"];out body;`,
		int(radiusM), coord(p.Lat), coord(p.Lon), strings.Join(accommodationTags, "|"))
	feats, err := o.query(ctx, q)
	if err != nil {
		return nil, err
	}
	out := make([]alert.Candidate, 0, len(feats))
	for _, f := range feats {
		if f.Type == "node" {
			p := f.Line[0]
			out = append(out, alert.Candidate{ID: f.ID, Name: f.Tags["name"], Lat: p.Lat, Lon: p.Lon, Tags: f.Tags})
		}
	}
	return out, nil
}

// query posts one Overpass QL query and returns its nodes and ways with
// usable coordinates (other elements are dropped). An answer that says the
// query failed on the server ("remark":"runtime error: …", sent with 200 and
// possibly partial elements) is ErrBadAnswer: partial data would read as
// "nothing there".
func (o *Overpass) query(ctx context.Context, q string) ([]Feature, error) {
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
	if (doc.Elements == nil && doc.Remark != "") || strings.Contains(doc.Remark, "runtime error") {
		return nil, fmt.Errorf("%w: overpass: %.200q", ErrBadAnswer, doc.Remark)
	}
	out := make([]Feature, 0, len(doc.Elements))
	for _, e := range doc.Elements {
		f := Feature{Type: e.Type, ID: e.Type + "/" + strconv.FormatInt(e.ID, 10), Tags: e.Tags}
		switch e.Type {
		case "node":
			if validCoord(e.Lat, e.Lon) {
				f.Line = []route.Point{{Lat: e.Lat, Lon: e.Lon}}
			}
		case "way":
			for _, v := range e.Geometry {
				if v != nil && validCoord(v.Lat, v.Lon) {
					f.Line = append(f.Line, route.Point{Lat: v.Lat, Lon: v.Lon})
				}
			}
			if len(f.Line) == 0 && e.Center != nil && validCoord(e.Center.Lat, e.Center.Lon) {
				f.Line = []route.Point{{Lat: e.Center.Lat, Lon: e.Center.Lon}}
			}
		}
		if len(f.Line) > 0 {
			out = append(out, f)
		}
	}
	return out, nil
}

func validCoord(lat, lon float64) bool { return lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180 }

func coord(v float64) string { return strconv.FormatFloat(v, 'f', 6, 64) }
