package export_test

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/export"
	"github.com/roadbook/roadbook/domain/route"
)

// fixturePoint is one <trkpt> or <rtept> of a fixture file.
type fixturePoint struct {
	Lat float64  `xml:"lat,attr"`
	Lon float64  `xml:"lon,attr"`
	Ele *float64 `xml:"ele"`
}

// loadFixture reads a testdata GPX file's track points, or its route points
// when it has no track, with encoding/xml: the tests do not depend on the
// route package's own reader.
func loadFixture(t *testing.T, name string) []route.Point {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	var doc struct {
		Trk []struct {
			Seg []struct {
				Pts []fixturePoint `xml:"trkpt"`
			} `xml:"trkseg"`
		} `xml:"trk"`
		Rte []struct {
			Pts []fixturePoint `xml:"rtept"`
		} `xml:"rte"`
	}
	require.NoError(t, xml.Unmarshal(data, &doc))
	var raw []fixturePoint
	for _, trk := range doc.Trk {
		for _, seg := range trk.Seg {
			raw = append(raw, seg.Pts...)
		}
	}
	if len(raw) == 0 {
		for _, rte := range doc.Rte {
			raw = append(raw, rte.Pts...)
		}
	}
	pts := make([]route.Point, len(raw))
	for i, p := range raw {
		pts[i] = route.Point{Lat: p.Lat, Lon: p.Lon}
		if p.Ele != nil {
			pts[i].Ele, pts[i].HasEle = *p.Ele, true
		}
	}
	require.NotEmpty(t, pts, "fixture %s has no points", name)
	return pts
}

// threeStageTrip cuts the Drei Gipfel Lauf route into three stages that
// share their cut points, as the pacing engine's stages do, with POIs and
// accommodations on the way.
func threeStageTrip(t *testing.T) (export.Trip, []route.Point) {
	t.Helper()
	pts := loadFixture(t, "rte-only_drei-gipfel-lauf.gpx")
	a, b := len(pts)/3, 2*len(pts)/3
	hotel := export.Accommodation{Name: "Gasthof Post", Type: "guest_house", Lat: pts[a].Lat, Lon: pts[a].Lon, PriceMinEUR: 40, PriceMaxEUR: 80}
	trip := export.Trip{
		Title:     "Drei Gipfel Lauf",
		SourceURL: "https://www.komoot.com/tour/123456",
		Stages: []export.Stage{
			{
				Label:         "Start → Hütte",
				EndLabel:      "Hütte",
				Points:        pts[:a+1],
				Accommodation: &hotel,
				Candidates: []export.Accommodation{
					hotel,
					{Name: "Camping am See", Type: "camp_site", Lat: pts[a].Lat + 0.001, Lon: pts[a].Lon, PriceMinEUR: 8, PriceMaxEUR: 15},
				},
				POIs: []export.POI{
					{Name: "Brunnen", Kind: export.POIWater, Lat: pts[10].Lat, Lon: pts[10].Lon},
					{Name: "Bäckerei", Kind: export.POIFood, Lat: pts[100].Lat + 0.0002, Lon: pts[100].Lon},
				},
			},
			{
				Points:          pts[a : b+1],
				ResupplyChecked: true,
				Waypoints:       []export.Waypoint{{Name: "Quelle", Category: "water", Lat: pts[a+20].Lat, Lon: pts[a+20].Lon}},
				Resupply: []export.Resupply{
					{Kind: export.ResupplyShop, Name: "Spar", Lat: pts[a+80].Lat, Lon: pts[a+80].Lon + 0.001, AtM: 4100, OpeningHours: "Mo-Sa 07:00-19:00", Open: "closed", PassAt: "19:40"},
					{Kind: export.ResupplyWater, Lat: pts[a+30].Lat, Lon: pts[a+30].Lon, AtM: 1500},
				},
				POIs: []export.POI{
					{Name: "Gipfelkreuz", Kind: export.POISummit, Lat: pts[a+50].Lat, Lon: pts[a+50].Lon},
					{Name: "Apotheke", Kind: export.POIFirstAid, Lat: pts[b-5].Lat, Lon: pts[b-5].Lon},
				},
			},
			{
				Label:  "Abstieg",
				Points: pts[b:],
				POIs:   []export.POI{{Name: "Aussicht", Lat: pts[len(pts)-3].Lat, Lon: pts[len(pts)-3].Lon}},
			},
		},
	}
	return trip, pts
}
