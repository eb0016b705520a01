package apiserver

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
	"github.com/roadbook/roadbook/tripstore"
)

// accountService implements roadbookv1connect.AccountServiceHandler.
type accountService struct{ *core }

var _ roadbookv1connect.AccountServiceHandler = (*accountService)(nil)

// accountChunk bounds one page of an account-wide walk, so exporting or
// deleting thousands of trips never holds them all at once.
const accountChunk = 50

// eachTrip calls fn with every trip of user, page by page. Deleting inside
// fn is safe: the walk continues from keyset positions, not offsets.
func (c *core) eachTrip(ctx context.Context, user string, fn func(tripstore.Loaded) error) error {
	var after *eventstore.ListPosition
	for {
		page, err := c.cfg.Store.ListStreams(ctx, eventstore.ListQuery{Owner: user, Limit: accountChunk, After: after})
		if err != nil {
			return err
		}
		for _, info := range page.Streams {
			id, ok := tripstore.TripID(info.ID)
			if !ok {
				continue
			}
			if rowDeleted(info) {
				c.finishDeletion(ctx, user, id)
				continue
			}
			l, err := c.trips.Load(ctx, tripstore.User(user), id)
			if errors.Is(err, trip.ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			if err := fn(l); err != nil {
				return err
			}
		}
		if page.Next == nil {
			return nil
		}
		after = page.Next
	}
}

func (s *accountService) ExportAccount(ctx context.Context, _ *connect.Request[roadbookv1.ExportAccountRequest]) (*connect.Response[roadbookv1.ExportAccountResponse], error) {
	user, err := s.user(ctx)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	v := s.view()
	n := uint32(0)
	err = s.eachTrip(ctx, user, func(l tripstore.Loaded) error {
		n++
		doc := v.digest(l.State, &l.Info)
		body, err := protojson.MarshalOptions{Multiline: true}.Marshal(doc)
		if err != nil {
			return err
		}
		w, err := zw.Create("trips/" + l.State.ID + ".json")
		if err != nil {
			return err
		}
		if _, err := w.Write(body); err != nil {
			return err
		}
		if len(l.State.Stages) > 0 {
			f, err := s.render(ctx, l.State, roadbookv1.ExportFormat_EXPORT_FORMAT_GPX, nil, false)
			if err != nil {
				return err
			}
			w, err := zw.Create("trips/" + l.State.ID + ".gpx")
			if err != nil {
				return err
			}
			_, err = w.Write(f.Content)
			return err
		}
		return nil
	})
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return connect.NewResponse(&roadbookv1.ExportAccountResponse{TripCount: n,
		File: &roadbookv1.ExportedFile{Filename: "roadbook-account.zip", ContentType: "application/zip", Content: buf.Bytes()}}), nil
}

func (s *accountService) DeleteAccount(ctx context.Context, req *connect.Request[roadbookv1.DeleteAccountRequest]) (*connect.Response[roadbookv1.DeleteAccountResponse], error) {
	user, err := s.user(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	if m.ConfirmUserId != user {
		return nil, s.fail(ctx, &invalidError{Field: "confirm_user_id", Message: "must repeat the caller's own user id"})
	}
	if m.ValidateOnly {
		n := uint32(0)
		if err := s.eachTrip(ctx, user, func(tripstore.Loaded) error { n++; return nil }); err != nil {
			return nil, s.fail(ctx, err)
		}
		im := &roadbookv1.Impact{TripsDeleted: n}
		im.Summary = summary(im)
		return connect.NewResponse(&roadbookv1.DeleteAccountResponse{Impact: im}), nil
	}
	n := uint32(0)
	err = s.eachTrip(ctx, user, func(l tripstore.Loaded) error {
		id, _ := tripstore.TripID(l.Info.ID)
		_, err := s.deleteTrip(ctx, user, id, &roadbookv1.DeleteTripRequest{TripId: id.String(), Version: l.State.Version}, "")
		if errors.Is(err, trip.ErrVersionConflict) {
			// Moved in between: delete at the version it is at now.
			cur, lerr := s.trips.Load(ctx, tripstore.User(user), id)
			if lerr != nil {
				return lerr
			}
			_, err = s.deleteTrip(ctx, user, id, &roadbookv1.DeleteTripRequest{TripId: id.String(), Version: cur.State.Version}, "")
		}
		if err == nil {
			n++
		}
		return err
	})
	if err == nil {
		err = s.deleteCollection(ctx, user)
	}
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return connect.NewResponse(&roadbookv1.DeleteAccountResponse{Deleted: true, TripsDeleted: n}), nil
}

// deleteCollection removes the user's collection stream (its events name
// the deleted trips). Its tombstone moves a returning user to the next
// epoch, whose generations are all higher.
func (c *core) deleteCollection(ctx context.Context, user string) error {
	stream, gen, err := c.collection(ctx, user)
	if err != nil || gen&(1<<epochShift-1) == 0 {
		return err // no live stream in this epoch
	}
	return c.cfg.Store.DeleteStream(ctx, stream)
}
