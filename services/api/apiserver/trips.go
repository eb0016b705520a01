package apiserver

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"connectrpc.com/connect"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/planner"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
	"github.com/roadbook/roadbook/tripstore"
)

// tripService implements roadbookv1connect.TripServiceHandler.
type tripService struct{ *shared }

var _ roadbookv1connect.TripServiceHandler = (*tripService)(nil)

// listScanLimit bounds the summary rows one ListTrips call examines, so a
// selective filter over many trips answers a short page with a token
// instead of scanning everything.
const listScanLimit = 1000

func (s *tripService) ListTrips(ctx context.Context, req *connect.Request[roadbookv1.ListTripsRequest]) (*connect.Response[roadbookv1.ListTripsResponse], error) {
	user, err := planner.Caller(ctx)
	if err != nil {
		return nil, s.fail(ctx, err)
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
	gen, err := s.trips.Generation(ctx, user)
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
			if _, ok := s.trips.LiveTrip(ctx, user, info); !ok {
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
	m := req.Msg
	return write(ctx, s.shared, req, m.IdempotencyKey, false, func(w planner.Write) (planner.Outcome, error) {
		patch, err := settingsPatch(m.Settings)
		if err != nil {
			return planner.Outcome{}, err
		}
		return s.planner.CreateFromURL(ctx, w, planner.CreateFromURL{URL: m.Url, Title: m.Title, Settings: patch})
	}, func(o planner.Outcome) *roadbookv1.CreateTripFromUrlResponse {
		return &roadbookv1.CreateTripFromUrlResponse{TripId: o.Trip.String(), Version: o.After.Version, Status: statusPB(o.After),
			Next: getTripNext(o.Trip.String(), 2, "the route is being imported")}
	})
}

func (s *tripService) CreateTripFromUpload(ctx context.Context, req *connect.Request[roadbookv1.CreateTripFromUploadRequest]) (*connect.Response[roadbookv1.CreateTripFromUploadResponse], error) {
	m := req.Msg
	return write(ctx, s.shared, req, m.IdempotencyKey, false, func(w planner.Write) (planner.Outcome, error) {
		patch, err := settingsPatch(m.Settings)
		if err != nil {
			return planner.Outcome{}, err
		}
		return s.planner.CreateFromUpload(ctx, w, planner.CreateFromUpload{Filename: m.Filename, Content: m.Content, Title: m.Title, Settings: patch})
	}, func(o planner.Outcome) *roadbookv1.CreateTripFromUploadResponse {
		return &roadbookv1.CreateTripFromUploadResponse{TripId: o.Trip.String(), Version: o.After.Version, Status: statusPB(o.After),
			Next: getTripNext(o.Trip.String(), 2, "stages are being computed")}
	})
}

func (s *tripService) GetTrip(ctx context.Context, req *connect.Request[roadbookv1.GetTripRequest]) (*connect.Response[roadbookv1.GetTripResponse], error) {
	d, err := s.digest(ctx, req.Msg.TripId)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return connect.NewResponse(&roadbookv1.GetTripResponse{Trip: d}), nil
}

func (s *tripService) GetStage(ctx context.Context, req *connect.Request[roadbookv1.GetStageRequest]) (*connect.Response[roadbookv1.GetStageResponse], error) {
	l, err := s.planner.Trip(ctx, req.Msg.TripId)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	st, err := planner.StageAt(l.State, int(req.Msg.StageIndex))
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return connect.NewResponse(&roadbookv1.GetStageResponse{Version: l.State.Version, Stage: stageDetail(st, l.State.Settings)}), nil
}

// ListStages reads the trip once and renders every day as GetStage would.
func (s *tripService) ListStages(ctx context.Context, req *connect.Request[roadbookv1.ListStagesRequest]) (*connect.Response[roadbookv1.ListStagesResponse], error) {
	l, err := s.planner.Trip(ctx, req.Msg.TripId)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	out := make([]*roadbookv1.StageDetail, len(l.State.Stages))
	for i, st := range l.State.Stages {
		out[i] = stageDetail(st, l.State.Settings)
	}
	return connect.NewResponse(&roadbookv1.ListStagesResponse{Version: l.State.Version, Stages: out}), nil
}

func (s *tripService) GetRouteGeometry(ctx context.Context, req *connect.Request[roadbookv1.GetRouteGeometryRequest]) (*connect.Response[roadbookv1.GetRouteGeometryResponse], error) {
	m := req.Msg
	if m.EveryStage && m.StageIndex != nil {
		return nil, s.fail(ctx, &planner.InvalidError{Field: "everyStage", Message: "asks for every stage; leave stageIndex out"})
	}
	l, err := s.planner.Trip(ctx, m.TripId)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	if m.EveryStage {
		lines, err := s.stageGeometries(ctx, l.State, m.MaxPoints)
		if err != nil {
			return nil, s.fail(ctx, err)
		}
		return connect.NewResponse(&roadbookv1.GetRouteGeometryResponse{Version: l.State.Version, Stages: lines}), nil
	}
	g, err := s.geometry(ctx, l.State, req.Msg.StageIndex, req.Msg.MaxPoints)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return connect.NewResponse(&roadbookv1.GetRouteGeometryResponse{Version: l.State.Version, Geometry: g}), nil
}

func (s *tripService) UpdateTripSettings(ctx context.Context, req *connect.Request[roadbookv1.UpdateTripSettingsRequest]) (*connect.Response[roadbookv1.UpdateTripSettingsResponse], error) {
	m, v := req.Msg, s.view()
	return write(ctx, s.shared, req, m.IdempotencyKey, m.ValidateOnly, func(w planner.Write) (planner.Outcome, error) {
		patch, err := settingsPatch(m.Settings)
		if err != nil {
			return planner.Outcome{}, err
		}
		return s.planner.Change(ctx, w, m.TripId, trip.UpdateSettings{Version: m.Version, Title: m.Title, Patch: patch, Repace: m.GetRepace()})
	}, func(o planner.Outcome) *roadbookv1.UpdateTripSettingsResponse {
		version, unchanged, impact := v.versions(o, m.Version)
		return &roadbookv1.UpdateTripSettingsResponse{Version: version, VersionUnchanged: unchanged, Impact: impact, Settings: v.settings(o.After)}
	})
}

func (s *tripService) DeleteTrip(ctx context.Context, req *connect.Request[roadbookv1.DeleteTripRequest]) (*connect.Response[roadbookv1.DeleteTripResponse], error) {
	m, v := req.Msg, s.view()
	return write(ctx, s.shared, req, m.IdempotencyKey, m.ValidateOnly, func(w planner.Write) (planner.Outcome, error) {
		return s.planner.Delete(ctx, w, m.TripId, m.Version)
	}, func(o planner.Outcome) *roadbookv1.DeleteTripResponse {
		if o.Preview {
			return &roadbookv1.DeleteTripResponse{Version: o.Before.Version, VersionUnchanged: true, Impact: v.impact(o.Before, o.After)}
		}
		return &roadbookv1.DeleteTripResponse{Version: o.After.Version, Deleted: true}
	})
}

func (s *tripService) DuplicateTrip(ctx context.Context, req *connect.Request[roadbookv1.DuplicateTripRequest]) (*connect.Response[roadbookv1.DuplicateTripResponse], error) {
	m := req.Msg
	return write(ctx, s.shared, req, m.IdempotencyKey, false, func(w planner.Write) (planner.Outcome, error) {
		return s.planner.Duplicate(ctx, w, m.TripId, m.Title)
	}, func(o planner.Outcome) *roadbookv1.DuplicateTripResponse {
		return &roadbookv1.DuplicateTripResponse{TripId: o.Trip.String(), Version: o.After.Version, SourceTripId: m.TripId}
	})
}

func (s *tripService) AnalyzeTrip(ctx context.Context, req *connect.Request[roadbookv1.AnalyzeTripRequest]) (*connect.Response[roadbookv1.AnalyzeTripResponse], error) {
	m := req.Msg
	return write(ctx, s.shared, req, m.IdempotencyKey, false, func(w planner.Write) (planner.Outcome, error) {
		return s.planner.Analyze(ctx, w, m.TripId, m.Version)
	}, func(o planner.Outcome) *roadbookv1.AnalyzeTripResponse {
		return &roadbookv1.AnalyzeTripResponse{Version: o.After.Version, VersionUnchanged: true, AnalysisId: o.Made,
			Next: getTripNext(m.TripId, 5, "the analysis is running")}
	})
}
