package tools

import (
	"context"
	"net/http"

	"connectrpc.com/connect"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
)

// writing are the annotations of a write: never read-only, idempotent only
// when repeating it changes nothing more, destructive when it discards.
func writing(title string, destructive, idempotent bool) mcp.ToolAnnotations {
	d, ow := destructive, false
	return mcp.ToolAnnotations{Title: title, DestructiveHint: &d, IdempotentHint: idempotent, OpenWorldHint: &ow}
}

// maxInlineGPX is the largest GPX document create_trip takes inline.
const maxInlineGPX = 4 << 20

// ---- create_trip

type createTripIn struct {
	SourceURL      *string        `json:"sourceUrl,omitempty"`
	GPX            *string        `json:"gpx,omitempty"`
	Title          *string        `json:"title,omitempty"`
	Settings       *SettingsInput `json:"settings,omitempty"`
	IdempotencyKey *string        `json:"idempotencyKey,omitempty"`
}

type createTripOut struct {
	TripID  string `json:"tripId"`
	Version int64  `json:"version"`
	Status  string `json:"status"`
	Next    *Next  `json:"next"`
}

func createTrip() Tool {
	return define(spec{
		name: "create_trip", title: "Create a trip", scope: ScopeWrite,
		annotations: writing("Create a trip", false, false),
		description: "Creates a trip from exactly one of sourceUrl (a Komoot tour or collection, Strava route or RideWithGPS route link) " +
			"or gpx (the GPX document itself, inline, at most 4 MiB). Answers at once with the trip id, version 1 and status computing: " +
			"the route import and the day split run in the background. Do not wait in this call: follow next (get_trip after a few seconds) " +
			"until partial is false. Retrying the same call within 5 minutes returns the same trip rather than a second one; " +
			"if that trip was deleted since, the call creates a new one (with an explicit idempotencyKey it answers the first answer exactly).",
		input: func(s *jsonschema.Schema) {
			u := prop(s, "sourceUrl")
			u.MaxLength, u.Description = intp(2048), "https link to a Komoot tour or collection, a Strava route or a RideWithGPS route; leave out when sending gpx"
			g := prop(s, "gpx")
			g.MinLength, g.MaxLength, g.Description = intp(1), intp(maxInlineGPX), "the GPX document as text (not a path or URL); leave out when sending sourceUrl"
			t := prop(s, "title")
			t.MinLength, t.MaxLength, t.Description = intp(1), intp(255), "title; absent means the route's own name"
			settingsSchema(prop(s, "settings"))
			idempotencySchema(s)
		},
		fields: map[string]string{"url": "sourceUrl", "content": "gpx", "filename": "gpx", "contentType": "gpx"},
	}, func(ctx context.Context, c *call, in createTripIn) (createTripOut, error) {
		switch {
		case in.SourceURL != nil && in.GPX != nil:
			return createTripOut{}, invalid("gpx", "create_trip takes exactly one of sourceUrl or gpx, not both: remove gpx or sourceUrl")
		case in.SourceURL == nil && in.GPX == nil:
			return createTripOut{}, invalid("sourceUrl", "create_trip needs sourceUrl (a route link) or gpx (the document inline)")
		}
		key, err := c.idempotencyKey(in.IdempotencyKey)
		if err != nil {
			return createTripOut{}, err
		}
		title := ""
		if in.Title != nil {
			title = *in.Title
		}
		create := func(key *string) (*roadbookv1.CreateTripFromUploadResponse, http.Header, error) {
			if in.SourceURL != nil {
				resp, err := c.env.API.Trips.CreateTripFromUrl(ctx, connect.NewRequest(&roadbookv1.CreateTripFromUrlRequest{
					Url: *in.SourceURL, Title: title, Settings: in.Settings.pb(), IdempotencyKey: key}))
				if err != nil {
					return nil, nil, err
				}
				m := resp.Msg
				return &roadbookv1.CreateTripFromUploadResponse{TripId: m.GetTripId(), Version: m.GetVersion(), Status: m.GetStatus(), Next: m.GetNext()}, resp.Header(), nil
			}
			resp, err := c.env.API.Trips.CreateTripFromUpload(ctx, connect.NewRequest(&roadbookv1.CreateTripFromUploadRequest{
				Filename: "route.gpx", ContentType: "application/gpx+xml", Content: []byte(*in.GPX),
				Title: title, Settings: in.Settings.pb(), IdempotencyKey: key}))
			if err != nil {
				return nil, nil, err
			}
			return resp.Msg, resp.Header(), nil
		}
		var created *roadbookv1.CreateTripFromUploadResponse
		for attempt := 0; ; attempt++ {
			var header http.Header
			if created, header, err = create(key); err != nil {
				return createTripOut{}, err
			}
			if !staleReplay(in.IdempotencyKey, header, attempt) {
				break
			}
			gone, err := c.tripGone(ctx, created.GetTripId())
			if err != nil {
				return createTripOut{}, err
			}
			if !gone {
				break
			}
			key = superseded(key, created.GetTripId())
		}
		id, version, status, next := created.GetTripId(), created.GetVersion(), created.GetStatus(), created.GetNext()
		out := createTripOut{TripID: id, Version: version, Status: statusName(status),
			Next: getTripNext(id, "the route is being imported and cut into days")}
		if next.GetTool() == "get_trip" {
			out.Next = nextFromAPI(next)
		}
		if out.Status == "computing" {
			c.notifyProgress(ctx, createdProgress(in.GPX != nil))
		}
		return out, nil
	})
}

func statusName(s roadbookv1.TripStatus) string {
	switch s {
	case roadbookv1.TripStatus_TRIP_STATUS_DRAFT:
		return "draft"
	case roadbookv1.TripStatus_TRIP_STATUS_READY:
		return "ready"
	case roadbookv1.TripStatus_TRIP_STATUS_FAILED:
		return "failed"
	}
	return "computing"
}

// ---- analyze_trip

type analyzeTripIn struct {
	TripID         string  `json:"tripId"`
	Version        int64   `json:"version"`
	StageIndexes   []int   `json:"stageIndexes,omitempty"`
	IdempotencyKey *string `json:"idempotencyKey,omitempty"`
}

type analyzeTripOut struct {
	TripID     string `json:"tripId"`
	Version    int64  `json:"version" jsonschema:"unchanged: analysis does not move the version"`
	AnalysisID string `json:"analysisId"`
	Status     string `json:"status"`
	Next       *Next  `json:"next"`
}

func analyzeTrip() Tool {
	// Not idempotent: a second call while one runs answers already_running.
	return define(spec{
		name: "analyze_trip", title: "Analyse a trip", scope: ScopeWrite,
		annotations: mcp.ToolAnnotations{Title: "Analyse a trip", DestructiveHint: new(false), OpenWorldHint: new(false)},
		description: "Starts (or restarts) the analysis of a trip's days — alerts on climbing, gradients, daylight, weather, resupply… — " +
			"for all stages or only stageIndexes. Answers at once; results land day by day: follow next (get_trip) until progress.analysis is done. " +
			"Answers already_running while an analysis runs. Does not move the version.",
		input: func(s *jsonschema.Schema) {
			tripIDSchema(s)
			versionSchema(s)
			si := prop(s, "stageIndexes")
			si.MaxItems, si.UniqueItems, si.Description = intp(1000), true, "only these 0-based days; absent means every day"
			si.Items.Minimum, si.Items.Maximum = f64(0), f64(999)
			idempotencySchema(s)
		},
	}, func(ctx context.Context, c *call, in analyzeTripIn) (analyzeTripOut, error) {
		key, err := c.idempotencyKey(in.IdempotencyKey)
		if err != nil {
			return analyzeTripOut{}, err
		}
		req := &roadbookv1.AnalyzeTripRequest{TripId: in.TripID, Version: in.Version, IdempotencyKey: key}
		for _, i := range in.StageIndexes {
			req.StageIndexes = append(req.StageIndexes, uint32(i))
		}
		resp, err := c.env.API.Trips.AnalyzeTrip(ctx, connect.NewRequest(req))
		if err != nil {
			return analyzeTripOut{}, err
		}
		out := analyzeTripOut{TripID: in.TripID, Version: resp.Msg.GetVersion(), AnalysisID: resp.Msg.GetAnalysisId(), Status: "analyzing",
			Next: getTripNext(in.TripID, "the analysis is running; results land day by day")}
		if n := resp.Msg.GetNext(); n.GetTool() == "get_trip" {
			out.Next = nextFromAPI(n)
		}
		c.notifyProgress(ctx, analysisStarted)
		return out, nil
	})
}

// ---- add_waypoint

type addWaypointIn struct {
	TripID         string  `json:"tripId"`
	Version        int64   `json:"version"`
	StageIndex     int     `json:"stageIndex"`
	Name           string  `json:"name"`
	Location       LatLon  `json:"location"`
	Category       *string `json:"category,omitempty"`
	IdempotencyKey *string `json:"idempotencyKey,omitempty"`
}

type addWaypointOut struct {
	TripID   string   `json:"tripId"`
	Version  int64    `json:"version" jsonschema:"unchanged: a waypoint does not move the trip version"`
	Note     string   `json:"note"`
	Waypoint Waypoint `json:"waypoint"`
}

func addWaypoint() Tool {
	return define(spec{
		name: "add_waypoint", title: "Add a waypoint", scope: ScopeWrite,
		annotations: writing("Add a waypoint", false, false),
		description: "Stores a point of interest (water, food, viewpoint…) as a detour on one day and returns it with the extra distance to visit it and come back. " +
			"That detour is an estimate (twice the straight-line distance from the route, detourEstimated true) unless the server has a routing engine configured; " +
			"then it is replaced by the routed distance shortly after (detourEstimated false) — get_stage shows the current value. " +
			"Does not change the day split and does not move the trip version: the version you hold stays valid for your next write. " +
			"Each call computes a detour; get lat/lon from search_places or get_stage.",
		input: func(s *jsonschema.Schema) {
			tripIDSchema(s)
			versionSchema(s)
			indexSchema(s, "stageIndex", "0-based day the waypoint belongs to")
			n := prop(s, "name")
			n.MinLength, n.MaxLength, n.Description = intp(1), intp(255), "what the place is, 1 to 255 characters"
			latLonSchema(prop(s, "location"))
			cat := prop(s, "category")
			cat.Pattern, cat.Description = "^[a-z][a-z0-9_]{0,63}$", "free lowercase category, e.g. water"
			idempotencySchema(s)
		},
	}, func(ctx context.Context, c *call, in addWaypointIn) (addWaypointOut, error) {
		key, err := c.idempotencyKey(in.IdempotencyKey)
		if err != nil {
			return addWaypointOut{}, err
		}
		req := &roadbookv1.AddWaypointRequest{TripId: in.TripID, Version: in.Version, StageIndex: uint32(in.StageIndex),
			Name: in.Name, Location: in.Location.pb(), IdempotencyKey: key}
		if in.Category != nil {
			req.Category = *in.Category
		}
		resp, err := c.env.API.Stages.AddWaypoint(ctx, connect.NewRequest(req))
		if err != nil {
			return addWaypointOut{}, err
		}
		return addWaypointOut{TripID: in.TripID, Version: resp.Msg.GetVersion(),
			Note:     "the trip version did not move; keep using it for your next write",
			Waypoint: waypoint(resp.Msg.GetWaypoint())}, nil
	})
}

func latLonSchema(p *jsonschema.Schema) {
	p.Description = "WGS-84 position"
	prop(p, "lat").Minimum, prop(p, "lat").Maximum = f64(-90), f64(90)
	prop(p, "lon").Minimum, prop(p, "lon").Maximum = f64(-180), f64(180)
}

// ---- choose_accommodation

type chooseAccommodationIn struct {
	TripID          string  `json:"tripId"`
	Version         int64   `json:"version"`
	StageIndex      int     `json:"stageIndex"`
	AccommodationID string  `json:"accommodationId"`
	IdempotencyKey  *string `json:"idempotencyKey,omitempty"`
}

func chooseAccommodation() Tool {
	return define(spec{
		name: "choose_accommodation", title: "Choose where to sleep", scope: ScopeWrite,
		annotations: writing("Choose where to sleep", false, false),
		description: "Picks one of the accommodation candidates get_stage offered for a day (pass its id). The day's end and the next day's " +
			"start move to the place, so the trip version moves: use the version returned here for your next write. " +
			"Answers conflict when the candidate is no longer offered (read get_stage again).",
		input: func(s *jsonschema.Schema) {
			tripIDSchema(s)
			versionSchema(s)
			indexSchema(s, "stageIndex", "0-based day whose night it is")
			a := prop(s, "accommodationId")
			a.MinLength, a.MaxLength, a.Description = intp(1), intp(128), "id of a candidate from get_stage's accommodations"
			idempotencySchema(s)
		},
	}, func(ctx context.Context, c *call, in chooseAccommodationIn) (StageOut, error) {
		key, err := c.idempotencyKey(in.IdempotencyKey)
		if err != nil {
			return StageOut{}, err
		}
		resp, err := c.env.API.Accommodations.ChooseAccommodation(ctx, connect.NewRequest(&roadbookv1.ChooseAccommodationRequest{
			TripId: in.TripID, Version: in.Version, StageIndex: uint32(in.StageIndex), AccommodationId: in.AccommodationID, IdempotencyKey: key}))
		if err != nil {
			return StageOut{}, err
		}
		return stageOut(in.TripID, resp.Msg.GetVersion(), resp.Msg.GetStage()), nil
	})
}

// ---- share_trip

type shareTripIn struct {
	TripID         string  `json:"tripId"`
	Version        int64   `json:"version"`
	IdempotencyKey *string `json:"idempotencyKey,omitempty"`
}

type shareTripOut struct {
	TripID  string `json:"tripId"`
	Version int64  `json:"version" jsonschema:"unchanged: sharing does not move the version"`
	URL     string `json:"url" jsonschema:"the public page; hand this address to the person"`
	GPXURL  string `json:"gpxUrl" jsonschema:"the public GPX download (a track and waypoints per day); hand over the address, never the file"`
	FITURL  string `json:"fitUrl,omitempty" jsonschema:"the public FIT course download for Garmin-type devices (a lap and course points per day)"`
}

func shareTrip() Tool {
	return define(spec{
		name: "share_trip", title: "Share a trip", scope: ScopeWrite,
		annotations: writing("Share a trip", false, false),
		description: "Creates the trip's public read-only link and returns its address and the addresses of its GPX and FIT downloads. " +
			"Give the person these addresses; never fetch or paste the file. A trip has at most one link: sharing again answers conflict " +
			"(get_trip shows the current shareUrl). Revoke with unshare_trip. Does not move the version. " +
			"Retrying within 5 minutes answers the same link while it is live; after an unshare_trip it makes a new link (and answers the live link " +
			"if there is one) — only an explicit idempotencyKey replays the first answer exactly.",
		input: func(s *jsonschema.Schema) {
			tripIDSchema(s)
			versionSchema(s)
			idempotencySchema(s)
		},
	}, func(ctx context.Context, c *call, in shareTripIn) (shareTripOut, error) {
		key, err := c.idempotencyKey(in.IdempotencyKey)
		if err != nil {
			return shareTripOut{}, err
		}
		for attempt := 0; ; attempt++ {
			resp, err := c.env.API.Shares.ShareTrip(ctx, connect.NewRequest(&roadbookv1.ShareTripRequest{TripId: in.TripID, Version: in.Version, IdempotencyKey: key}))
			if err != nil {
				return shareTripOut{}, err
			}
			sh := resp.Msg.GetShare()
			out := func(sh *roadbookv1.ShareLink) shareTripOut {
				return shareTripOut{TripID: in.TripID, Version: resp.Msg.GetVersion(), URL: sh.GetUrl(), GPXURL: sh.GetGpxUrl(), FITURL: sh.GetFitUrl()}
			}
			if !staleReplay(in.IdempotencyKey, resp.Header(), attempt) {
				return out(sh), nil
			}
			// The replayed link must still be the trip's live one.
			now, err := c.env.API.Shares.GetShare(ctx, connect.NewRequest(&roadbookv1.GetShareRequest{TripId: in.TripID}))
			if err != nil {
				return shareTripOut{}, err
			}
			if live := now.Msg.GetShare(); live != nil {
				return out(live), nil
			}
			key = superseded(key, sh.GetCode())
		}
	})
}
