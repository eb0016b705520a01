package tools

import (
	"context"
	"errors"
	"math"
	"sort"
	"strings"
	"time"

	"connectrpc.com/connect"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/services/mcp/internal/canonical"
	"github.com/roadbook/roadbook/services/mcp/internal/seal"
)

// readOnly are the annotations of a tool that changes nothing.
func readOnly(title string, openWorld bool) mcp.ToolAnnotations {
	ow := openWorld
	return mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &ow}
}

// ---- list_trips

type listTripsIn struct {
	Limit         *int    `json:"limit,omitempty"`
	Cursor        *string `json:"cursor,omitempty"`
	Status        *string `json:"status,omitempty"`
	TitleContains *string `json:"titleContains,omitempty"`
}

// TripRow is one trip of a listing.
type TripRow struct {
	TripID     string  `json:"tripId"`
	Version    int64   `json:"version"`
	Title      string  `json:"title" jsonschema:"user or third-party data"`
	Status     string  `json:"status"`
	DistanceKm float64 `json:"distanceKm"`
	AscentM    int     `json:"ascentM"`
	StageCount int     `json:"stageCount"`
	StartDate  string  `json:"startDate,omitempty"`
	EndDate    string  `json:"endDate,omitempty"`
	Shared     bool    `json:"shared"`
	Locked     bool    `json:"locked"`
}

type listTripsOut struct {
	Trips      []TripRow `json:"trips"`
	Truncated  bool      `json:"truncated" jsonschema:"more trips follow; pass nextCursor to read them"`
	NextCursor string    `json:"nextCursor,omitempty"`
}

// cursorTTL bounds how long a list cursor stays usable.
const cursorTTL = time.Hour

// cursorPurpose separates cursors from every other sealed token.
const cursorPurpose = "roadbook-mcp/list_trips/cursor/v1"

// cursorState is what a list cursor carries: the user, the query and the
// generation it was issued for, and the API's keyset page token.
type cursorState struct {
	User       string `json:"u"`
	Query      string `json:"q"`
	Generation string `json:"g"`
	Page       string `json:"p"`
}

// maxGenerationPages bounds the walk that fingerprints a user's trip set
// (100 trips a page).
const maxGenerationPages = 50

// generation fingerprints the set of the caller's trips — their ids, not
// their states — so it moves when a trip is created, duplicated or deleted
// and not when one finishes computing. It is only needed when paging (a
// cursor comes in or goes out), so a one-page listing costs one API call.
func (c *call) generation(ctx context.Context) (string, error) {
	var ids []string
	token := ""
	for range maxGenerationPages {
		resp, err := c.env.API.Trips.ListTrips(ctx, connect.NewRequest(&roadbookv1.ListTripsRequest{PageSize: 100, PageToken: token}))
		if err != nil {
			return "", err
		}
		for _, t := range resp.Msg.GetTrips() {
			ids = append(ids, t.GetTripId())
		}
		token = resp.Msg.GetNextPageToken()
		if token == "" {
			break
		}
	}
	sort.Strings(ids)
	parts := make([][]byte, 0, len(ids)+1)
	parts = append(parts, []byte("roadbook-mcp/trip-set/v1"))
	for _, id := range ids {
		parts = append(parts, []byte(id))
	}
	return canonical.Digest(parts...), nil
}

var tripStatuses = []any{"computing", "draft", "ready", "failed"}

func listTrips() Tool {
	return define(spec{
		name: "list_trips", title: "List trips", scope: ScopeRead,
		annotations: readOnly("List trips", false),
		description: "Lists the caller's trips, newest first, one short row each (id, version, title, status, distance, dates). " +
			"Paginated: pass limit (1–50, default 20); when truncated is true, call again with cursor = nextCursor and the same filters. " +
			"A cursor answers stale_cursor when trips were created or deleted since: restart from the first page. " +
			"Next: get_trip with a tripId for the day-by-day digest.",
		input: func(s *jsonschema.Schema) {
			l := prop(s, "limit")
			l.Minimum, l.Maximum, l.Description = f64(1), f64(50), "page size, 1 to 50 (default 20)"
			c := prop(s, "cursor")
			c.MaxLength, c.Description = intp(4096), "nextCursor of the previous page, with the same filters; absent for the first page"
			st := prop(s, "status")
			st.Enum, st.Description = tripStatuses, "only trips in this status"
			tc := prop(s, "titleContains")
			tc.MaxLength, tc.Description = intp(100), "only trips whose title contains this text (case-insensitive)"
		},
	}, func(ctx context.Context, c *call, in listTripsIn) (listTripsOut, error) {
		query := map[string]any{}
		req := &roadbookv1.ListTripsRequest{PageSize: 20}
		if in.Limit != nil {
			req.PageSize = uint32(*in.Limit)
		}
		if in.Status != nil {
			query["status"] = *in.Status
			req.Statuses = []roadbookv1.TripStatus{roadbookv1.TripStatus(roadbookv1.TripStatus_value["TRIP_STATUS_"+strings.ToUpper(*in.Status)])}
		}
		if in.TitleContains != nil {
			query["titleContains"] = *in.TitleContains
			req.TitleContains = *in.TitleContains
		}
		qc, err := canonical.Value(query)
		if err != nil {
			return listTripsOut{}, err
		}
		qd := canonical.Digest(qc)
		// The generation is read before the page it binds, so a page and
		// the cursor it hands out never mix two sets of trips: before a
		// page a cursor comes in for, and, when a first page hands a
		// cursor out, before that page is read again. A listing of one page
		// — the usual one — reads no generation: one API call.
		gen := ""
		if in.Cursor != nil && *in.Cursor != "" {
			if gen, err = c.generation(ctx); err != nil {
				return listTripsOut{}, err
			}
			var st cursorState
			err := c.env.Cursors.Open(cursorPurpose, *in.Cursor, c.env.Clock(), &st)
			switch {
			case errors.Is(err, seal.ErrExpired):
				return listTripsOut{}, &Error{Code: CodeStaleCursor, Field: "cursor", Message: "the cursor has expired: restart from the first page (call list_trips without cursor)", Next: &Next{Tool: "list_trips", Arguments: query, Why: "restart from the first page"}}
			case err != nil || st.User != c.caller.UserID:
				return listTripsOut{}, invalid("cursor", "the cursor is not valid: pass nextCursor exactly as a previous list_trips returned it, or leave cursor out for the first page")
			case st.Query != qd:
				return listTripsOut{}, invalid("cursor", "the cursor belongs to a listing with other filters: send the same status and titleContains as the page it came from, or leave cursor out")
			}
			if gen != st.Generation {
				return listTripsOut{}, &Error{Code: CodeStaleCursor, Field: "cursor", Message: "trips were created or deleted since this cursor was issued: restart from the first page (call list_trips without cursor)", Next: &Next{Tool: "list_trips", Arguments: query, Why: "restart from the first page"}}
			}
			req.PageToken = st.Page
		}
		resp, err := c.env.API.Trips.ListTrips(ctx, connect.NewRequest(req))
		if err != nil {
			return listTripsOut{}, err
		}
		if resp.Msg.GetNextPageToken() != "" && gen == "" {
			if gen, err = c.generation(ctx); err != nil {
				return listTripsOut{}, err
			}
			if resp, err = c.env.API.Trips.ListTrips(ctx, connect.NewRequest(req)); err != nil {
				return listTripsOut{}, err
			}
		}
		out := listTripsOut{Trips: []TripRow{}, Truncated: resp.Msg.GetTruncated() || resp.Msg.GetNextPageToken() != ""}
		for _, t := range resp.Msg.GetTrips() {
			out.Trips = append(out.Trips, TripRow{
				TripID: t.GetTripId(), Version: t.GetVersion(), Title: bound(t.GetTitle(), 255),
				Status:     strings.ToLower(strings.TrimPrefix(t.GetStatus().String(), "TRIP_STATUS_")),
				DistanceKm: km(t.GetDistanceM()), AscentM: int(math.Round(t.GetAscentM())), StageCount: int(t.GetStageCount()),
				StartDate: t.GetStartDate(), EndDate: t.GetEndDate(), Shared: t.GetShared(), Locked: t.GetLocked(),
			})
		}
		if tok := resp.Msg.GetNextPageToken(); tok != "" {
			cur, err := c.env.Cursors.Seal(cursorPurpose, cursorState{User: c.caller.UserID, Query: qd, Generation: gen, Page: tok}, c.env.Clock().Add(cursorTTL))
			if err != nil {
				return listTripsOut{}, err
			}
			out.NextCursor = cur
		}
		return out, nil
	})
}

// ---- get_trip

type getTripIn struct {
	TripID string `json:"tripId"`
}

func getTrip() Tool {
	return define(spec{
		name: "get_trip", title: "Read a trip", scope: ScopeRead,
		annotations: readOnly("Read a trip", false),
		description: "Returns a trip's digest: version (send it back with every write), status, settings, per-computation progress " +
			"(route, stages, labels, analysis: pending, running, done, failed or unavailable), then one line per day " +
			"(distance, climbing, start and end place, alert counts, chosen accommodation). " +
			"While partial is true some computation is incomplete — an empty stages list then means 'not yet', never 'no days' — " +
			"and next says when to call get_trip again. Place names and titles are data from users and third parties. " +
			"Next: get_stage for one day in full (alerts, accommodations, schedule).",
		input: tripIDSchema,
	}, func(ctx context.Context, c *call, in getTripIn) (TripOut, error) {
		resp, err := c.env.API.Trips.GetTrip(ctx, connect.NewRequest(&roadbookv1.GetTripRequest{TripId: in.TripID}))
		if err != nil {
			return TripOut{}, err
		}
		out := tripOut(resp.Msg.GetTrip())
		c.notifyProgress(ctx, tripProgress(out.Progress))
		return out, nil
	})
}

// ---- get_stage

type getStageIn struct {
	TripID     string `json:"tripId"`
	StageIndex int    `json:"stageIndex"`
}

func getStage() Tool {
	return define(spec{
		name: "get_stage", title: "Read one day", scope: ScopeRead,
		annotations: readOnly("Read one day", false),
		description: "Returns one day (stage) of a trip in full: start and end points and places, distance, climbing, the rider's schedule, " +
			"every alert with its proposed fix, which rule families could run, up to 5 accommodation candidates near the end " +
			"(pass an id to choose_accommodation), the chosen one, waypoints, where to refill water and buy food along the day " +
			"(nearest few per kind every 10 km, with km, opening hours and whether open when the rider passes) and the day's weather " +
			"(forecast, or typical for the date beyond the forecast horizon). Names, websites and labels are data from " +
			"third parties. Next: edit_stages or choose_accommodation with the version returned here.",
		input: func(s *jsonschema.Schema) {
			tripIDSchema(s)
			indexSchema(s, "stageIndex", "0-based day index, as get_trip lists them")
		},
	}, func(ctx context.Context, c *call, in getStageIn) (StageOut, error) {
		resp, err := c.env.API.Trips.GetStage(ctx, connect.NewRequest(&roadbookv1.GetStageRequest{TripId: in.TripID, StageIndex: uint32(in.StageIndex)}))
		if err != nil {
			return StageOut{}, err
		}
		return stageOut(in.TripID, resp.Msg.GetVersion(), resp.Msg.GetStage()), nil
	})
}

// ---- search_places

type searchPlacesIn struct {
	Query string `json:"query"`
	Limit *int   `json:"limit,omitempty"`
}

// Place is a geocoding result.
type Place struct {
	Name        string  `json:"name" jsonschema:"third-party data"`
	DisplayName string  `json:"displayName" jsonschema:"third-party data"`
	Type        string  `json:"type,omitempty"`
	Lat         float64 `json:"lat"`
	Lon         float64 `json:"lon"`
}

type searchPlacesOut struct {
	Places []Place `json:"places"`
}

func searchPlaces() Tool {
	return define(spec{
		name: "search_places", title: "Find a place", scope: ScopeRead,
		annotations: readOnly("Find a place", true),
		description: "Finds places by name through a public geocoder (rate-limited, cached 24 h), best match first, with coordinates. " +
			"Use it to get lat/lon for edit_stages (insert, update) or add_waypoint; call it once per place, not as autocomplete. " +
			"On rate_limited wait retryAfterSeconds. Names are third-party data.",
		input: func(s *jsonschema.Schema) {
			q := prop(s, "query")
			q.MinLength, q.MaxLength, q.Description = intp(2), intp(200), "free text, e.g. a town name, 2 to 200 characters"
			l := prop(s, "limit")
			l.Minimum, l.Maximum, l.Description = f64(1), f64(10), "results wanted, 1 to 10 (default 5)"
		},
	}, func(ctx context.Context, c *call, in searchPlacesIn) (searchPlacesOut, error) {
		req := &roadbookv1.SearchPlacesRequest{Query: in.Query}
		if in.Limit != nil {
			req.Limit = uint32(*in.Limit)
		}
		resp, err := c.env.API.Geocoding.SearchPlaces(ctx, connect.NewRequest(req))
		if err != nil {
			return searchPlacesOut{}, err
		}
		out := searchPlacesOut{Places: []Place{}}
		for _, p := range resp.Msg.GetPlaces() {
			out.Places = append(out.Places, Place{Name: bound(p.GetName(), 200), DisplayName: bound(p.GetDisplayName(), 300), Type: bound(p.GetType(), 40),
				Lat: round(p.GetLocation().GetLat(), 6), Lon: round(p.GetLocation().GetLon(), 6)})
		}
		return out, nil
	})
}
