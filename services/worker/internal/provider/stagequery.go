package provider

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/roadbook/roadbook/domain/route"
)

// How a stage is drawn in the one Overpass query it costs (every request
// waits its turn at the provider's shared pacer, so the rules never ask one
// query each).
const (
	// nodeLineSpacingM: the stage is sampled this often for the "around"
	// line of the node selectors (and the cultural ways).
	nodeLineSpacingM = 1000.0
	// healthLineSpacingM: the sparser line of the 15 km health selector.
	healthLineSpacingM = 5000.0
	// wayLineToleranceM: the road, ferry and ford ways are selected around
	// the stage decimated (Douglas–Peucker) to this tolerance, which is
	// much closer to the road than a 1 km sample on a winding route.
	wayLineToleranceM = 20.0
	// stageQueryTimeoutS: the server gives up before the client does and
	// says so in a remark (then the families are unavailable).
	stageQueryTimeoutS = 25
	// Output caps of the presence selectors: one element within reach is
	// enough, so a city does not send thousands of pharmacies.
	presenceOutputCap = 50
)

// Along asks one Overpass query for every OSM element the rules of one
// stage need (DOMAIN §5): the trunk, primary and secondary roads, rough
// ways (surface, smoothness or tracktype), ferry and ford ways with their
// geometry, and the resupply, water, ford, bicycle shop, station, health
// and cultural nodes. The server selects generously (each
// radius widened by how far the sampled line strays from the stage); the
// rules measure exact distances from the stage themselves.
func (o *Overpass) Along(ctx context.Context, pts []route.Point) ([]Feature, error) {
	if len(pts) < 2 {
		return nil, nil
	}
	return o.query(ctx, stageQuery(pts))
}

// stageQuery is the Overpass QL of Along.
func stageQuery(pts []route.Point) string {
	wayLine := route.Simplify(pts, wayLineToleranceM)
	// Douglas–Peucker keeps every point within the tolerance of its chord;
	// a metre covers the projections' rounding.
	wayAround := func(r float64) string { return around(r+wayLineToleranceM+1, wayLine) }
	nodeLine, nodeSlack := sampleLine(pts, nodeLineSpacingM)
	nodeAround := func(r float64) string { return around(r+nodeSlack, nodeLine) }
	healthLine, healthSlack := sampleLine(pts, healthLineSpacingM)

	wayKeys := "highway|surface|smoothness|tracktype|route|ford"
	var values []string
	for _, vs := range [][]string{mainRoads, {"secondary"}, roughSurfaces, roughSmoothness, roughTracktypes, {"ferry", "yes"}} {
		values = append(values, vs...)
	}
	wayValues := strings.Join(values, "|")
	tourismValues, historicValues := strings.Join(cultureTourism, "|"), strings.Join(cultureHistoric, "|")

	var q strings.Builder
	fmt.Fprintf(&q, "[out:json][timeout:%d];\n", stageQueryTimeoutS)
	// Ways on or across the route: traffic, surface, ferries, fords. One
	// selector (key and value regexes) so the long line is sent once; the
	// rules re-check each way's tags.
	fmt.Fprintf(&q, "way(%s)[~\"^(%s)$\"~\"^(%s)$\"];\nout tags geom;\n", wayAround(max(onWayM, FerryRadiusM, FordRadiusM)), wayKeys, wayValues)
	// Elements every one of which matters: resupply (shops and cafés as
	// nodes or building outlines, printed at their centre), water,
	// springs, fords.
	fmt.Fprintf(&q, "(\nnwr(%s)[\"shop\"~\"^(%s)$\"];\n", nodeAround(POIRadiusM), strings.Join(resupplyShops, "|"))
	fmt.Fprintf(&q, "nwr(%s)[\"amenity\"~\"^(%s)$\"];\n", nodeAround(POIRadiusM), strings.Join(append(append([]string{}, waterAmenities...), foodAmenities...), "|"))
	fmt.Fprintf(&q, "node(%s)[\"man_made\"=\"water_tap\"];\n", nodeAround(POIRadiusM))
	fmt.Fprintf(&q, "node(%s)[\"natural\"=\"spring\"];\n", nodeAround(POIRadiusM))
	fmt.Fprintf(&q, "node(%s)[\"ford\"=\"yes\"];\n);\nout center;\n", nodeAround(FordRadiusM))
	// Presence only: a few are enough.
	fmt.Fprintf(&q, "node(%s)[\"shop\"=\"bicycle\"];\nout body %d;\n", nodeAround(BikeShopRadiusM), presenceOutputCap)
	fmt.Fprintf(&q, "(\nnode(%s)[\"railway\"~\"^(%s)$\"];\n", nodeAround(RailwayRadiusM), strings.Join(railwayKinds, "|"))
	fmt.Fprintf(&q, "node(%s)[\"public_transport\"=\"station\"][\"train\"=\"yes\"];\n);\nout body %d;\n", nodeAround(RailwayRadiusM), presenceOutputCap)
	fmt.Fprintf(&q, "node(%s)[\"amenity\"~\"^(%s)$\"];\nout body %d;\n",
		around(HealthRadiusM+healthSlack, healthLine), strings.Join(healthAmenities, "|"), presenceOutputCap)
	// Named cultural places, nodes or outlines.
	fmt.Fprintf(&q, "(\n")
	for _, typ := range []string{"node", "way"} {
		fmt.Fprintf(&q, "%s(%s)[\"tourism\"~\"^(%s)$\"][\"name\"];\n", typ, nodeAround(CultureRadiusM), tourismValues)
		fmt.Fprintf(&q, "%s(%s)[\"historic\"~\"^(%s)$\"][\"name\"];\n", typ, nodeAround(CultureRadiusM), historicValues)
	}
	fmt.Fprintf(&q, ");\nout geom %d;\n", presenceOutputCap)
	return q.String()
}

// around is an Overpass "around" filter: within r metres of the polyline
// pts, rounded up to the metre (a millimetre of float noise aside).
func around(r float64, pts []route.Point) string {
	var b strings.Builder
	fmt.Fprintf(&b, "around:%d", int(math.Ceil(r-1e-3)))
	for _, p := range pts {
		b.WriteString("," + coord(p.Lat) + "," + coord(p.Lon))
	}
	return b.String()
}

// sampleLine keeps a point about every spacing metres (Haversine), always
// the first and last, and measures the slack: how far the stage strays from
// the chords between kept points (so a selector's radius can be widened by
// it and still reach everything within its own radius of the stage).
func sampleLine(pts []route.Point, spacing float64) (line []route.Point, slackM float64) {
	if len(pts) == 0 {
		return nil, 0
	}
	keep := []int{0}
	walked, last := 0.0, 0.0
	for i := 1; i < len(pts); i++ {
		walked += route.Haversine(pts[i-1], pts[i])
		if walked-last >= spacing || i == len(pts)-1 {
			keep = append(keep, i)
			last = walked
		}
	}
	for k := 1; k < len(keep); k++ {
		a, b := pts[keep[k-1]], pts[keep[k]]
		pr := newProjector(a)
		bx, by := pr.xy(b)
		for i := keep[k-1] + 1; i < keep[k]; i++ {
			x, y := pr.xy(pts[i])
			d, _ := pointSeg(x, y, 0, 0, bx, by)
			slackM = math.Max(slackM, d)
		}
	}
	for _, i := range keep {
		line = append(line, pts[i])
	}
	return line, slackM
}
