package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/services/worker/internal/upstream"
)

// OSRM asks an OSRM-compatible routing endpoint for bicycle distances, for
// the routed detour of a waypoint (DOMAIN §4). Optional: without it the
// detour is twice the straight-line distance, said to be an estimate.
type OSRM struct {
	c *upstream.Client
}

// NewOSRM wraps a configured upstream client (base URL = the server root).
func NewOSRM(c *upstream.Client) (*OSRM, error) {
	if c == nil {
		return nil, fmt.Errorf("%w: osrm: nil client", upstream.ErrInvalidOption)
	}
	return &OSRM{c: c}, nil
}

// Distance is the routed bicycle distance in metres through pts in order
// (/route/v1/bicycle/lon,lat;lon,lat… → routes[0].distance).
func (o *OSRM) Distance(ctx context.Context, pts ...route.Point) (float64, error) {
	if len(pts) < 2 {
		return 0, fmt.Errorf("%w: osrm: a route needs at least 2 points, got %d", upstream.ErrInvalidOption, len(pts))
	}
	path := "/route/v1/bicycle/"
	for i, p := range pts {
		if i > 0 {
			path += ";"
		}
		path += coord(p.Lon) + "," + coord(p.Lat)
	}
	resp, err := o.c.Do(ctx, upstream.Request{Path: path, Query: map[string][]string{"overview": {"false"}}})
	if errors.Is(err, upstream.ErrRejected) {
		// OSRM answers every non-Ok code (NoRoute, NoSegment…) with HTTP 400.
		return 0, fmt.Errorf("%w: osrm refused to route the points: %w", ErrNoRoute, err)
	}
	if err != nil {
		return 0, err
	}
	var doc struct {
		Code   string `json:"code"`
		Routes []struct {
			Distance float64 `json:"distance"`
		} `json:"routes"`
	}
	if err := json.Unmarshal(resp.Body, &doc); err != nil {
		return 0, fmt.Errorf("%w: osrm answer is not the documented JSON: %v", ErrBadAnswer, err)
	}
	if doc.Code != "Ok" || len(doc.Routes) == 0 {
		return 0, fmt.Errorf("%w: osrm: no route (code %q)", ErrNoRoute, doc.Code)
	}
	return doc.Routes[0].Distance, nil
}

// Detour is the waypoint detour: from the nearest route point to the
// waypoint and back, routed. routed is false when o is nil and the value is
// the straight-line estimate (2 × Haversine).
func Detour(ctx context.Context, o *OSRM, nearest, waypoint route.Point) (meters float64, routed bool, err error) {
	if o == nil {
		return 2 * route.Haversine(nearest, waypoint), false, nil
	}
	d, err := o.Distance(ctx, nearest, waypoint, nearest)
	if err != nil {
		return 0, false, err
	}
	return d, true, nil
}
