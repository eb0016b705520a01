package gazetteer

import (
	"context"
	"fmt"
	"math"

	"github.com/roadbook/roadbook/services/worker/internal/geocode"
)

// Reverse-lookup tuning. A stage end is labelled with the place minimising
// distance / population^popExponent among places within maxRadiusKm: with
// 0.25, a town of 20,000 five kilometres away loses to a village of 1,000 one
// kilometre away, but a capital two kilometres away beats a suburb at three.
// Distances under minDistanceKm count as minDistanceKm so standing in a
// village's centre does not make it infinitely attractive against the city it
// belongs to.
const (
	maxRadiusKm   = 75.0
	popExponent   = 0.25
	minDistanceKm = 0.2
)

// Nearest returns the population-weighted nearest place within 75 km, and
// false when there is none (open sea, deep wilderness; Reverse then looks
// farther).
func (g *Gazetteer) Nearest(lat, lon float64) (geocode.Place, bool) {
	best, bestScore := int32(-1), math.Inf(1)
	g.eachWithin(lat, lon, maxRadiusKm, func(i int32, d float64) {
		pop := math.Max(1000, float64(g.entries[i].population))
		score := math.Max(d, minDistanceKm) / math.Pow(pop, popExponent)
		if score < bestScore || (score == bestScore && i < best) {
			best, bestScore = i, score
		}
	})
	if best < 0 {
		return geocode.Place{}, false
	}
	return g.place(best), true
}

// Reverse implements geocode.Geocoder: Nearest when the point is in that
// place (within geocode.NearPlaceM), else the nearest place by distance
// alone (the label then says where the point is from it), the nearest within
// farRadiusKm when none is within 75 km, ErrNoPlace beyond, and
// ErrInvalidArgument for coordinates outside WGS-84.
func (g *Gazetteer) Reverse(ctx context.Context, lat, lon float64) (geocode.Place, error) {
	if err := ctx.Err(); err != nil {
		return geocode.Place{}, err
	}
	if math.IsNaN(lat) || math.IsNaN(lon) || lat < -90 || lat > 90 || lon < -180 || lon > 180 {
		return geocode.Place{}, fmt.Errorf("%w: lat %v lon %v is outside WGS-84 (lat −90…90, lon −180…180)", geocode.ErrInvalidArgument, lat, lon)
	}
	p, ok := g.Nearest(lat, lon)
	if ok && haversineKm(lat, lon, p.Lat, p.Lon)*1000 > geocode.NearPlaceM {
		// Not in the place the weighting prefers: the label will say
		// where the point is from a place, and the nearest one says it
		// best ("4 km N of Sel" rather than "33 km NE of Vinstra").
		if q, found := g.nearestPlain(lat, lon, maxRadiusKm); found {
			p = q
		}
	}
	if !ok {
		// Far from any place (a basin, a plateau): the nearest one within
		// farRadiusKm, which the label says the point is relative to
		// ("58 km NW of Otta").
		if p, ok = g.nearestPlain(lat, lon, farRadiusKm); !ok {
			return geocode.Place{}, geocode.ErrNoPlace
		}
	}
	return p, nil
}

// farRadiusKm bounds the search for the nearest place when none is within
// maxRadiusKm; beyond it (open ocean, polar ice) the label is the
// coordinates.
const farRadiusKm = 400.0

// nearestPlain is the nearest place within radiusKm by distance alone.
func (g *Gazetteer) nearestPlain(lat, lon, radiusKm float64) (geocode.Place, bool) {
	best, bestD := int32(-1), math.Inf(1)
	g.eachWithin(lat, lon, radiusKm, func(i int32, d float64) {
		if d < bestD || (d == bestD && i < best) {
			best, bestD = i, d
		}
	})
	if best < 0 {
		return geocode.Place{}, false
	}
	return g.place(best), true
}

// Name implements geocode.Geocoder.
func (g *Gazetteer) Name() string { return "gazetteer" }

// place converts an entry to the shared result shape. Type follows
// Nominatim's vocabulary so clients see the same words from both geocoders.
func (g *Gazetteer) place(i int32) geocode.Place {
	e := &g.entries[i]
	typ := "village"
	switch {
	case e.feature == "PPLC" || e.population >= 100_000:
		typ = "city"
	case e.population >= 10_000:
		typ = "town"
	}
	return geocode.Place{Name: e.name, Lat: e.lat, Lon: e.lon, DisplayName: e.name + ", " + e.country, Type: typ}
}
