package gazetteer

import (
	"math"
	"sort"
)

// cellDeg is the grid cell size. Half a degree keeps a reverse lookup's
// 75 km search to a handful of cells (a few hundred candidates at most).
const cellDeg = 0.5

// Gazetteer is the indexed, read-only place list. Safe for concurrent use.
type Gazetteer struct {
	entries []entry
	// cells maps a grid cell to the entries inside it.
	cells map[int32][]int32
	// names is every entry's folded name, sorted, for prefix search.
	names []nameKey
}

// nameKey is one entry of the sorted name index.
type nameKey struct {
	folded string
	idx    int32
}

func cellOf(lat, lon float64) (int32, int32) {
	return int32(math.Floor((lat + 90) / cellDeg)), int32(math.Floor((lon + 180) / cellDeg))
}

func cellKey(row, col int32) int32 {
	cols := int32(360 / cellDeg)
	col = ((col % cols) + cols) % cols
	return row*cols + col
}

// build indexes entries by grid cell and by folded name.
func build(entries []entry) *Gazetteer {
	g := &Gazetteer{entries: entries, cells: make(map[int32][]int32, 20_000), names: make([]nameKey, len(entries))}
	for i, e := range entries {
		r, c := cellOf(e.lat, e.lon)
		k := cellKey(r, c)
		g.cells[k] = append(g.cells[k], int32(i))
		g.names[i] = nameKey{folded: Fold(e.name), idx: int32(i)}
	}
	sort.Slice(g.names, func(a, b int) bool {
		if g.names[a].folded != g.names[b].folded {
			return g.names[a].folded < g.names[b].folded
		}
		return g.names[a].idx < g.names[b].idx
	})
	return g
}

// Len is the number of places.
func (g *Gazetteer) Len() int { return len(g.entries) }

const earthRadiusKm = 6371.0088

// haversineKm is the great-circle distance in kilometres.
func haversineKm(lat1, lon1, lat2, lon2 float64) float64 {
	const rad = math.Pi / 180
	dLat, dLon := (lat2-lat1)*rad, (lon2-lon1)*rad
	a := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(lat1*rad)*math.Cos(lat2*rad)*math.Sin(dLon/2)*math.Sin(dLon/2)
	return 2 * earthRadiusKm * math.Asin(math.Min(1, math.Sqrt(a)))
}

// eachWithin calls fn for every entry within radiusKm of the point.
func (g *Gazetteer) eachWithin(lat, lon, radiusKm float64, fn func(i int32, dKm float64)) {
	dLat := radiusKm / 111.0
	cos := math.Cos(lat * math.Pi / 180)
	dLon := 180.0
	if cos > 0.01 {
		dLon = math.Min(180, radiusKm/(111.0*cos))
	}
	r0, c0 := cellOf(math.Max(-90, lat-dLat), lon-dLon)
	r1, c1 := cellOf(math.Min(89.999, lat+dLat), lon+dLon)
	if c1-c0 >= int32(360/cellDeg) {
		c0, c1 = 0, int32(360/cellDeg)-1
	}
	for r := r0; r <= r1; r++ {
		for c := c0; c <= c1; c++ {
			for _, i := range g.cells[cellKey(r, c)] {
				e := &g.entries[i]
				if d := haversineKm(lat, lon, e.lat, e.lon); d <= radiusKm {
					fn(i, d)
				}
			}
		}
	}
}
