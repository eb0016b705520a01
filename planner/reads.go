package planner

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/tripstore"
)

// Trip is the caller's trip as folded (not found for anyone else's). Meeting
// a deleted trip whose streams are still there finishes its removal.
func (p *Planner) Trip(ctx context.Context, tripID string) (tripstore.Loaded, error) {
	_, l, err := p.callersTrip(ctx, tripID)
	return l, err
}

// callersTrip is the caller and their trip tripID.
func (p *Planner) callersTrip(ctx context.Context, tripID string) (string, tripstore.Loaded, error) {
	user, id, err := callerAnd(ctx, tripID)
	if err != nil {
		return "", tripstore.Loaded{}, err
	}
	l, err := p.trips.Load(ctx, tripstore.User(user), id)
	if errors.Is(err, trip.ErrNotFound) {
		p.trips.FinishDeletion(ctx, user, id)
	}
	return user, l, err
}

// accountChunk bounds one page of an account-wide walk, so exporting or
// deleting thousands of trips never holds them all at once.
const accountChunk = 50

// eachTrip calls fn with every trip of user, page by page. Deleting inside
// fn is safe: the walk continues from keyset positions, not offsets.
func (p *Planner) eachTrip(ctx context.Context, user string, fn func(tripstore.Loaded) error) error {
	events := p.trips.Events()
	var after *eventstore.ListPosition
	for {
		page, err := events.ListStreams(ctx, eventstore.ListQuery{Owner: user, Limit: accountChunk, After: after})
		if err != nil {
			return err
		}
		for _, info := range page.Streams {
			id, ok := p.trips.LiveTrip(ctx, user, info)
			if !ok {
				continue
			}
			l, err := p.trips.Load(ctx, tripstore.User(user), id)
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

// ExportAccount is every trip of the caller in one zip archive: for each,
// trips/<id>.json written by document (the API's digest) and, once the trip
// has stages, trips/<id>.gpx. It answers the archive and the trip count.
func (p *Planner) ExportAccount(ctx context.Context, document func(tripstore.Loaded) ([]byte, error)) ([]byte, int, error) {
	user, err := Caller(ctx)
	if err != nil {
		return nil, 0, err
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	n := 0
	err = p.eachTrip(ctx, user, func(l tripstore.Loaded) error {
		n++
		doc, err := document(l)
		if err != nil {
			return err
		}
		if err := addFile(zw, "trips/"+l.State.ID+".json", doc); err != nil {
			return err
		}
		if len(l.State.Stages) == 0 {
			return nil
		}
		f, err := p.Export(ctx, l.State, FormatGPX, nil, false)
		if err != nil {
			return err
		}
		return addFile(zw, "trips/"+l.State.ID+".gpx", f.Content)
	})
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		return nil, 0, err
	}
	return buf.Bytes(), n, nil
}

func addFile(zw *zip.Writer, name string, body []byte) error {
	w, err := zw.Create(name)
	if err != nil {
		return err
	}
	_, err = w.Write(body)
	return err
}
