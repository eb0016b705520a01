package pipelinetest

import (
	"bytes"
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/tripstore"
)

// Upload is a parsed, stored GPX ready to create trips from.
type Upload struct {
	Filename string
	Size     int64
	Info     trip.RouteInfo
	Points   []route.Point
}

// LoadUpload parses a GPX document (a testkit fixture) and stores its
// points, as the API's upload handler does before the trip exists.
func LoadUpload(ctx context.Context, trips *tripstore.Store, gpx []byte) (Upload, error) {
	r, err := route.ReadGPX(bytes.NewReader(gpx))
	if err != nil {
		return Upload{}, fmt.Errorf("read the GPX: %w", err)
	}
	return Store(ctx, trips, "upload.gpx", int64(len(gpx)), r.Title, r.Points, r.ElevationKnown)
}

// Store puts points in the blob store and measures them (trip.MeasureRoute,
// as the upload does).
func Store(ctx context.Context, trips *tripstore.Store, filename string, size int64, title string, pts []route.Point, eleKnown bool) (Upload, error) {
	hash, err := trips.PutRoute(ctx, pts)
	if err != nil {
		return Upload{}, err
	}
	info := trip.MeasureRoute(&route.Route{Points: pts, ElevationKnown: eleKnown, Title: title})
	info.Hash = hash
	return Upload{Filename: filename, Size: size, Info: info, Points: pts}, nil
}

// CreateTrip creates a trip from the upload for owner, the way the API does
// (TripCreated and RouteImported in one append), and returns its id.
func CreateTrip(ctx context.Context, trips *tripstore.Store, owner string, u Upload, patch trip.SettingsPatch) (uuid.UUID, error) {
	id := uuid.New()
	ref, err := tripstore.HashBytes(u.Info.Hash)
	if err != nil {
		return uuid.Nil, err
	}
	_, err = trips.Execute(ctx, tripstore.User(owner), id, trip.Create{
		Upload:   &trip.CreateUpload{Filename: u.Filename, SizeBytes: u.Size, Route: u.Info},
		Settings: patch,
	}, tripstore.Options{BlobRefs: [][]byte{ref}})
	return id, err
}

// Line is n points evenly spaced from (lat1, lon1) to (lat2, lon2), climbing
// 1 m per point: a cheap synthetic route.
func Line(lat1, lon1, lat2, lon2 float64, n int) []route.Point {
	pts := make([]route.Point, n)
	for i := range pts {
		f := float64(i) / float64(n-1)
		pts[i] = route.Point{Lat: lat1 + f*(lat2-lat1), Lon: lon1 + f*(lon2-lon1), Ele: 100 + float64(i%50), HasEle: true}
	}
	return pts
}
