package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"

	"connectrpc.com/connect"
	"github.com/google/uuid"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
	"github.com/roadbook/roadbook/tripstore"
)

// tripService implements roadbookv1connect.TripServiceHandler.
type tripService struct{ *core }

var _ roadbookv1connect.TripServiceHandler = (*tripService)(nil)

// listScanLimit bounds the summary rows one ListTrips call examines, so a
// selective filter over many trips answers a short page with a token
// instead of scanning everything.
const listScanLimit = 1000

func (s *tripService) ListTrips(ctx context.Context, req *connect.Request[roadbookv1.ListTripsRequest]) (*connect.Response[roadbookv1.ListTripsResponse], error) {
	user, err := s.user(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	size := int(m.PageSize)
	if size == 0 {
		size = 20
	}
	filters := filterHash(m)
	var after *eventstore.ListPosition
	if m.PageToken != "" {
		if after, err = readToken(s.cfg.PageTokenKey, m.PageToken, user, filters); err != nil {
			return nil, s.fail(ctx, err)
		}
	}
	// The generation is read before the rows: a trip created meanwhile then
	// shows with the older generation, so the next page is stale (safe),
	// never a newer generation over an older set.
	gen, err := s.generation(ctx, user)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	out := &roadbookv1.ListTripsResponse{Generation: gen}
	today := trip.DateOf(s.cfg.Clock())
	scanned := 0
	var last *eventstore.ListPosition
	for {
		page, err := s.cfg.Store.ListStreams(ctx, eventstore.ListQuery{Owner: user, Limit: min(size+1, 100), After: after})
		if err != nil {
			return nil, s.fail(ctx, err)
		}
		for _, info := range page.Streams {
			scanned++
			id, ok := tripstore.TripID(info.ID)
			if !ok {
				continue
			}
			if rowDeleted(info) {
				s.finishDeletion(ctx, user, id)
				continue
			}
			sum := summaryPB(info, today)
			if !matches(m, sum) {
				last = &eventstore.ListPosition{CreatedAt: info.CreatedAt, ID: info.ID}
				continue
			}
			if len(out.Trips) == size {
				out.Truncated = true
				out.NextPageToken = signToken(s.cfg.PageTokenKey, pageToken{User: user, Filters: filters, Created: last.CreatedAt, Stream: string(last.ID)})
				return connect.NewResponse(out), nil
			}
			out.Trips = append(out.Trips, sum)
			last = &eventstore.ListPosition{CreatedAt: info.CreatedAt, ID: info.ID}
		}
		if page.Next == nil {
			return connect.NewResponse(out), nil
		}
		after = page.Next
		if scanned >= listScanLimit && last != nil {
			out.Truncated = true
			out.NextPageToken = signToken(s.cfg.PageTokenKey, pageToken{User: user, Filters: filters, Created: last.CreatedAt, Stream: string(last.ID)})
			return connect.NewResponse(out), nil
		}
	}
}

// summaryPB reads a list row from the stream's summary.
func summaryPB(info eventstore.StreamInfo, today trip.Date) *roadbookv1.TripSummary {
	var d tripstore.SummaryData
	_ = json.Unmarshal(info.Summary.Data, &d)
	id, _ := tripstore.TripID(info.ID)
	sum := &roadbookv1.TripSummary{
		TripId: id.String(), Version: d.Version, Title: info.Summary.Title,
		Status:    statusFromPhase(d.Phase, info.Summary.Status),
		DistanceM: d.DistanceM, AscentM: d.AscentM, ElevationKnown: d.ElevationKnown,
		StageCount: uint32(d.StageCount), StartDate: d.StartDate, EndDate: d.EndDate,
		SourceKind: sourceKinds[trip.SourceKind(d.SourceKind)], Shared: d.Shared,
		CreatedAt: ts(info.CreatedAt), UpdatedAt: ts(info.UpdatedAt),
	}
	if d.StartDate != "" {
		start, err := trip.ParseDate("startDate", d.StartDate)
		sum.Locked = err == nil && !today.Before(start)
	}
	return sum
}

// matches applies ListTrips' filters to one row.
func matches(m *roadbookv1.ListTripsRequest, s *roadbookv1.TripSummary) bool {
	if len(m.Statuses) > 0 && !slices.Contains(m.Statuses, s.Status) {
		return false
	}
	if len(m.SourceKinds) > 0 && !slices.Contains(m.SourceKinds, s.SourceKind) {
		return false
	}
	if m.Shared != nil && *m.Shared != s.Shared {
		return false
	}
	if m.TitleContains != "" && !strings.Contains(strings.ToLower(s.Title), strings.ToLower(m.TitleContains)) {
		return false
	}
	if m.StartDateFrom != "" && (s.StartDate == "" || s.StartDate < m.StartDateFrom) {
		return false
	}
	if m.StartDateTo != "" && (s.StartDate == "" || s.StartDate > m.StartDateTo) {
		return false
	}
	return true
}

func (s *tripService) CreateTripFromUrl(ctx context.Context, req *connect.Request[roadbookv1.CreateTripFromUrlRequest]) (*connect.Response[roadbookv1.CreateTripFromUrlResponse], error) {
	user, err := s.user(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	patch, err := settingsPatch(m.Settings)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	key := idemKey(m.IdempotencyKey, req.Header().Get("Idempotency-Key"))
	if err := s.limits.allow(ctx, "create", user, s.cfg.RateLimits.Create); err != nil {
		return nil, s.fail(ctx, err)
	}
	id := createID(user, roadbookv1connect.TripServiceCreateTripFromUrlProcedure, key)
	resp, err := run(ctx, s.core, write{
		procedure: roadbookv1connect.TripServiceCreateTripFromUrlProcedure, user: user, tripID: id, req: m, key: key,
		change: eventsv1.CollectionChange_COLLECTION_CHANGE_CREATED,
		cmd:    trip.Create{SourceURL: m.Url, Title: m.Title, Settings: patch},
	}, func(after trip.State) *roadbookv1.CreateTripFromUrlResponse {
		return &roadbookv1.CreateTripFromUrlResponse{TripId: id.String(), Version: after.Version, Status: statusPB(after),
			Next: getTripNext(id.String(), 2, "the route is being imported")}
	})
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return connect.NewResponse(resp), nil
}

func (s *tripService) CreateTripFromUpload(ctx context.Context, req *connect.Request[roadbookv1.CreateTripFromUploadRequest]) (*connect.Response[roadbookv1.CreateTripFromUploadResponse], error) {
	user, err := s.user(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	patch, err := settingsPatch(m.Settings)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	key := idemKey(m.IdempotencyKey, req.Header().Get("Idempotency-Key"))
	if err := s.limits.allow(ctx, "upload", user, s.cfg.RateLimits.Upload); err != nil {
		return nil, s.fail(ctx, err)
	}
	r, err := route.ReadGPX(bytes.NewReader(m.Content), route.WithMaxBytes(trip.MaxUploadBytes))
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	if len(r.Points) < 2 {
		return nil, s.fail(ctx, &invalidError{Field: "content", Message: "the GPX document has fewer than 2 track or route points"})
	}
	hash, err := s.trips.PutRoute(ctx, r.Points)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	raw, _ := tripstore.HashBytes(hash)
	gain, loss := route.Elevation(r.Points)
	info := trip.RouteInfo{
		Hash: hash, PointCount: len(r.Points), DistanceM: route.Length(r.Points),
		ElevationKnown: r.ElevationKnown, Title: truncateRunes(r.Title, trip.MaxTitleChars),
	}
	if r.ElevationKnown {
		info.AscentM, info.DescentM = gain, loss
	}
	id := createID(user, roadbookv1connect.TripServiceCreateTripFromUploadProcedure, key)
	resp, err := run(ctx, s.core, write{
		procedure: roadbookv1connect.TripServiceCreateTripFromUploadProcedure, user: user, tripID: id, req: m, key: key,
		change:   eventsv1.CollectionChange_COLLECTION_CHANGE_CREATED,
		blobRefs: [][]byte{raw},
		cmd: trip.Create{Title: m.Title, Settings: patch, Upload: &trip.CreateUpload{
			Filename: m.Filename, SizeBytes: int64(len(m.Content)), Route: info}},
	}, func(after trip.State) *roadbookv1.CreateTripFromUploadResponse {
		return &roadbookv1.CreateTripFromUploadResponse{TripId: id.String(), Version: after.Version, Status: statusPB(after),
			Next: getTripNext(id.String(), 2, "stages are being computed")}
	})
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return connect.NewResponse(resp), nil
}

// truncateRunes caps third-party text at n characters.
func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}

func (s *tripService) GetTrip(ctx context.Context, req *connect.Request[roadbookv1.GetTripRequest]) (*connect.Response[roadbookv1.GetTripResponse], error) {
	user, err := s.user(ctx)
	if err != nil {
		return nil, err
	}
	id, err := tripID(req.Msg.TripId)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	v := s.view()
	if d, ok := s.digests.get(ctx, s.core, user, id, v.today); ok {
		return connect.NewResponse(&roadbookv1.GetTripResponse{Trip: d}), nil
	}
	l, err := s.load(ctx, user, req.Msg.TripId)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	d := v.digest(l.State, &l.Info)
	s.digests.put(id, l.StreamVersion, v.today, d)
	return connect.NewResponse(&roadbookv1.GetTripResponse{Trip: d}), nil
}

func (s *tripService) GetStage(ctx context.Context, req *connect.Request[roadbookv1.GetStageRequest]) (*connect.Response[roadbookv1.GetStageResponse], error) {
	user, err := s.user(ctx)
	if err != nil {
		return nil, err
	}
	l, err := s.load(ctx, user, req.Msg.TripId)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	st, err := stageAt(l.State, int(req.Msg.StageIndex), "stage_index")
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return connect.NewResponse(&roadbookv1.GetStageResponse{Version: l.State.Version, Stage: stageDetail(st, l.State.Settings)}), nil
}

func (s *tripService) GetRouteGeometry(ctx context.Context, req *connect.Request[roadbookv1.GetRouteGeometryRequest]) (*connect.Response[roadbookv1.GetRouteGeometryResponse], error) {
	user, err := s.user(ctx)
	if err != nil {
		return nil, err
	}
	l, err := s.load(ctx, user, req.Msg.TripId)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	g, err := s.geometry(ctx, l.State, req.Msg.StageIndex, req.Msg.MaxPoints)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return connect.NewResponse(&roadbookv1.GetRouteGeometryResponse{Version: l.State.Version, Geometry: g}), nil
}

func (s *tripService) UpdateTripSettings(ctx context.Context, req *connect.Request[roadbookv1.UpdateTripSettingsRequest]) (*connect.Response[roadbookv1.UpdateTripSettingsResponse], error) {
	user, err := s.user(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	patch, err := settingsPatch(m.Settings)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	cmd := trip.UpdateSettings{Version: m.Version, Title: m.Title, Patch: patch}
	v := s.view()
	if m.ValidateOnly {
		l, err := s.load(ctx, user, m.TripId)
		if err != nil {
			return nil, s.fail(ctx, err)
		}
		after, err := s.preview(l.State, cmd)
		if err != nil {
			return nil, s.fail(ctx, err)
		}
		return connect.NewResponse(&roadbookv1.UpdateTripSettingsResponse{Version: l.State.Version, VersionUnchanged: true,
			Impact: v.impact(l.State, after), Settings: v.settings(after)}), nil
	}
	id, err := tripID(m.TripId)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	resp, err := run(ctx, s.core, write{procedure: roadbookv1connect.TripServiceUpdateTripSettingsProcedure, user: user, tripID: id,
		req: m, key: idemKey(m.IdempotencyKey, req.Header().Get("Idempotency-Key")), cmd: cmd},
		func(after trip.State) *roadbookv1.UpdateTripSettingsResponse {
			return &roadbookv1.UpdateTripSettingsResponse{Version: after.Version, VersionUnchanged: after.Version == m.Version, Settings: v.settings(after)}
		})
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return connect.NewResponse(resp), nil
}

func (s *tripService) DeleteTrip(ctx context.Context, req *connect.Request[roadbookv1.DeleteTripRequest]) (*connect.Response[roadbookv1.DeleteTripResponse], error) {
	user, err := s.user(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	cmd := trip.Delete{Version: m.Version}
	if m.ValidateOnly {
		l, err := s.load(ctx, user, m.TripId)
		if err != nil {
			return nil, s.fail(ctx, err)
		}
		after, err := s.preview(l.State, cmd)
		if err != nil {
			return nil, s.fail(ctx, err)
		}
		return connect.NewResponse(&roadbookv1.DeleteTripResponse{Version: l.State.Version, VersionUnchanged: true,
			Impact: s.view().impact(l.State, after)}), nil
	}
	id, err := tripID(m.TripId)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	resp, err := s.deleteTrip(ctx, user, id, m, idemKey(m.IdempotencyKey, req.Header().Get("Idempotency-Key")))
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return connect.NewResponse(resp), nil
}

func (s *tripService) DuplicateTrip(ctx context.Context, req *connect.Request[roadbookv1.DuplicateTripRequest]) (*connect.Response[roadbookv1.DuplicateTripResponse], error) {
	user, err := s.user(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	src, err := s.load(ctx, user, m.TripId)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	if err := s.limits.allow(ctx, "duplicate", user, s.cfg.RateLimits.Duplicate); err != nil {
		return nil, s.fail(ctx, err)
	}
	key := idemKey(m.IdempotencyKey, req.Header().Get("Idempotency-Key"))
	id := createID(user, roadbookv1connect.TripServiceDuplicateTripProcedure, key)
	var refs [][]byte
	if src.State.Route != nil {
		if raw, err := tripstore.HashBytes(src.State.Route.Hash); err == nil {
			refs = append(refs, raw)
		}
	}
	resp, err := run(ctx, s.core, write{procedure: roadbookv1connect.TripServiceDuplicateTripProcedure, user: user, tripID: id,
		req: m, key: key, blobRefs: refs, cmd: trip.Duplicate{Source: src.State, Title: m.Title},
		change: eventsv1.CollectionChange_COLLECTION_CHANGE_DUPLICATED},
		func(after trip.State) *roadbookv1.DuplicateTripResponse {
			return &roadbookv1.DuplicateTripResponse{TripId: id.String(), Version: after.Version, SourceTripId: m.TripId}
		})
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return connect.NewResponse(resp), nil
}

func (s *tripService) AnalyzeTrip(ctx context.Context, req *connect.Request[roadbookv1.AnalyzeTripRequest]) (*connect.Response[roadbookv1.AnalyzeTripResponse], error) {
	user, err := s.user(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	id, err := tripID(m.TripId)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	if err := s.limits.allow(ctx, "recompute", user+"/"+m.TripId, s.cfg.RateLimits.Recompute); err != nil {
		return nil, s.fail(ctx, err)
	}
	key := idemKey(m.IdempotencyKey, req.Header().Get("Idempotency-Key"))
	analysisID := uuid.NewString()
	if key != "" {
		analysisID = createID(user, roadbookv1connect.TripServiceAnalyzeTripProcedure, key).String()
	}
	resp, err := run(ctx, s.core, write{procedure: roadbookv1connect.TripServiceAnalyzeTripProcedure, user: user, tripID: id,
		req: m, key: key, cmd: trip.Analyze{Version: m.Version, AnalysisID: analysisID}},
		func(after trip.State) *roadbookv1.AnalyzeTripResponse {
			return &roadbookv1.AnalyzeTripResponse{Version: after.Version, VersionUnchanged: true, AnalysisId: analysisID,
				Next: getTripNext(m.TripId, 5, "the analysis is running")}
		})
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return connect.NewResponse(resp), nil
}
