package apiserver

import (
	"context"

	"connectrpc.com/connect"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/planner"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
)

// exportService implements roadbookv1connect.ExportServiceHandler.
type exportService struct{ *shared }

var _ roadbookv1connect.ExportServiceHandler = (*exportService)(nil)

// exportFormats are the planner's formats of the API's.
var exportFormats = map[roadbookv1.ExportFormat]planner.Format{
	roadbookv1.ExportFormat_EXPORT_FORMAT_GPX:  planner.FormatGPX,
	roadbookv1.ExportFormat_EXPORT_FORMAT_FIT:  planner.FormatFIT,
	roadbookv1.ExportFormat_EXPORT_FORMAT_TEXT: planner.FormatText,
}

// export renders s as a file (public=true: the share link's, without the
// source link).
func (s *shared) export(ctx context.Context, st trip.State, format roadbookv1.ExportFormat, stage *uint32, public bool) (*roadbookv1.ExportedFile, error) {
	f, err := s.planner.Export(ctx, st, exportFormats[format], stage, public)
	if err != nil {
		return nil, err
	}
	return &roadbookv1.ExportedFile{Filename: f.Name, ContentType: f.ContentType, Content: f.Content}, nil
}

func (s *exportService) ExportTrip(ctx context.Context, req *connect.Request[roadbookv1.ExportTripRequest]) (*connect.Response[roadbookv1.ExportTripResponse], error) {
	l, err := s.planner.Trip(ctx, req.Msg.TripId)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	f, err := s.export(ctx, l.State, req.Msg.Format, req.Msg.StageIndex, false)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return connect.NewResponse(&roadbookv1.ExportTripResponse{Version: l.State.Version, File: f}), nil
}
