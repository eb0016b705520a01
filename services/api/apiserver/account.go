package apiserver

import (
	"context"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/encoding/protojson"

	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
	"github.com/roadbook/roadbook/tripstore"
)

// accountService implements roadbookv1connect.AccountServiceHandler.
type accountService struct{ *shared }

var _ roadbookv1connect.AccountServiceHandler = (*accountService)(nil)

func (s *accountService) ExportAccount(ctx context.Context, _ *connect.Request[roadbookv1.ExportAccountRequest]) (*connect.Response[roadbookv1.ExportAccountResponse], error) {
	v := s.view()
	zip, n, err := s.planner.ExportAccount(ctx, func(l tripstore.Loaded) ([]byte, error) {
		return protojson.MarshalOptions{Multiline: true}.Marshal(v.digest(l.State, &l.Info))
	})
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return connect.NewResponse(&roadbookv1.ExportAccountResponse{TripCount: uint32(n),
		File: &roadbookv1.ExportedFile{Filename: "roadbook-account.zip", ContentType: "application/zip", Content: zip}}), nil
}

func (s *accountService) DeleteAccount(ctx context.Context, req *connect.Request[roadbookv1.DeleteAccountRequest]) (*connect.Response[roadbookv1.DeleteAccountResponse], error) {
	n, err := s.planner.DeleteAccount(ctx, req.Msg.ConfirmUserId, req.Msg.ValidateOnly)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	if req.Msg.ValidateOnly {
		im := &roadbookv1.Impact{TripsDeleted: uint32(n)}
		im.Summary = summary(im)
		return connect.NewResponse(&roadbookv1.DeleteAccountResponse{Impact: im}), nil
	}
	return connect.NewResponse(&roadbookv1.DeleteAccountResponse{Deleted: true, TripsDeleted: uint32(n)}), nil
}
