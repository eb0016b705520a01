package pipelinetest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/google/uuid"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/tripstore"
)

// LongGPX is the path of the 627 km BRouter track Oslo–Trondheim in
// domain/route's testdata (see domain/route/testdata/SOURCES.md for its
// provenance), found from this source file so tests and `go run` in the
// checkout read the same file.
func LongGPX() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "../../../../domain/route/testdata/gpx/long_brouter_oslo-trondheim_fastbike.gpx")
}

// Upload is a parsed, stored GPX ready to create trips from.
type Upload struct {
	Filename string
	Size     int64
	Info     trip.RouteInfo
	Points   []route.Point
}

// LoadUpload parses a GPX file and stores its points, as the API's upload
// handler does before the trip exists.
func LoadUpload(ctx context.Context, trips *tripstore.Store, path string) (Upload, error) {
	f, err := os.Open(path)
	if err != nil {
		return Upload{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Upload{}, err
	}
	r, err := route.ReadGPX(f)
	if err != nil {
		return Upload{}, fmt.Errorf("read %s: %w", path, err)
	}
	return Store(ctx, trips, "upload.gpx", st.Size(), r.Title, r.Points, r.ElevationKnown)
}

// Store puts points in the blob store and measures them.
func Store(ctx context.Context, trips *tripstore.Store, filename string, size int64, title string, pts []route.Point, eleKnown bool) (Upload, error) {
	hash, err := trips.PutRoute(ctx, pts)
	if err != nil {
		return Upload{}, err
	}
	info := trip.RouteInfo{Hash: hash, PointCount: len(pts), DistanceM: route.Length(pts), ElevationKnown: eleKnown, Title: title}
	if eleKnown {
		info.AscentM, info.DescentM = route.Elevation(pts)
	}
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
