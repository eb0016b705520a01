package apiserver_test

import (
	"context"
	"testing"

	"connectrpc.com/connect"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/services/api/apiserver"
)

// TestErrorFieldsAreJSONNames calls the API with a request refused by each
// layer that can refuse one — protovalidate (top-level, nested), the
// planner, the domain (in its own words: sourceUrl, maxDistancePerDay,
// distance, startPoint…), the API's own tokens — and requires ErrorInfo.field
// to be the refused request's field by its JSON name, a path the request
// message really has.
func TestErrorFieldsAreJSONNames(t *testing.T) {
	t.Parallel()
	h := newHarness(t, generousLimits)
	c := h.as(t, "fields", nil)
	ctx := context.Background()
	d := h.readyTrip(t, c)
	dated := uploadWith(t, c.trips, &roadbookv1.TripSettingsInput{StartDate: new("2031-06-02"), EndDate: new("2031-06-09")})
	far := 10_000.0
	huge := 5.0

	cases := []struct {
		name  string
		req   proto.Message
		call  func() error
		field string
	}{
		{"protovalidate: a malformed trip id", &roadbookv1.GetTripRequest{TripId: "nope"}, func() error {
			_, err := c.trips.GetTrip(ctx, connect.NewRequest(&roadbookv1.GetTripRequest{TripId: "nope"}))
			return err
		}, "tripId"},
		{"protovalidate: a setting out of range, nested", &roadbookv1.UpdateTripSettingsRequest{}, func() error {
			_, err := c.trips.UpdateTripSettings(ctx, connect.NewRequest(&roadbookv1.UpdateTripSettingsRequest{TripId: d.TripId, Version: d.Version,
				Settings: &roadbookv1.TripSettingsInput{MaxDistancePerDayKm: &huge}}))
			return err
		}, "settings.maxDistancePerDayKm"},
		{"the domain: an unsupported source link (its sourceUrl)", &roadbookv1.CreateTripFromUrlRequest{}, func() error {
			_, err := c.trips.CreateTripFromUrl(ctx, connect.NewRequest(&roadbookv1.CreateTripFromUrlRequest{Url: "https://example.com/tour/1"}))
			return err
		}, "url"},
		{"the domain: a start date after the end date (its endDate)", &roadbookv1.UpdateTripSettingsRequest{}, func() error {
			_, err := c.trips.UpdateTripSettings(ctx, connect.NewRequest(&roadbookv1.UpdateTripSettingsRequest{TripId: dated.TripId, Version: dated.Version,
				Settings: &roadbookv1.TripSettingsInput{StartDate: new("2031-07-01")}}))
			return err
		}, "settings.endDate"},
		{"the domain: a cut beyond the next stage (its distance)", &roadbookv1.UpdateStageRequest{}, func() error {
			_, err := c.edits.UpdateStage(ctx, connect.NewRequest(&roadbookv1.UpdateStageRequest{TripId: d.TripId, Version: d.Version, StageIndex: 0,
				Change: &roadbookv1.UpdateStageRequest_DistanceKm{DistanceKm: far}}))
			return err
		}, "distanceKm"},
		{"the domain: a move past the last stage", &roadbookv1.MoveStageRequest{}, func() error {
			_, err := c.edits.MoveStage(ctx, connect.NewRequest(&roadbookv1.MoveStageRequest{TripId: d.TripId, Version: d.Version, StageIndex: 1, ToIndex: 99}))
			return err
		}, "toIndex"},
		{"protovalidate: a move onto itself is the message's rule, no field's", &roadbookv1.MoveStageRequest{}, func() error {
			_, err := c.edits.MoveStage(ctx, connect.NewRequest(&roadbookv1.MoveStageRequest{TripId: d.TripId, Version: d.Version, StageIndex: 1, ToIndex: 1}))
			return err
		}, ""},
		{"the domain: a stage that does not exist", &roadbookv1.DeleteStageRequest{}, func() error {
			_, err := c.edits.DeleteStage(ctx, connect.NewRequest(&roadbookv1.DeleteStageRequest{TripId: d.TripId, Version: d.Version, StageIndex: 99}))
			return err
		}, "stageIndex"},
		{"the planner: an upload with one point", &roadbookv1.CreateTripFromUploadRequest{}, func() error {
			_, err := c.trips.CreateTripFromUpload(ctx, connect.NewRequest(&roadbookv1.CreateTripFromUploadRequest{Filename: "one.gpx",
				Content: []byte(`<gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg><trkpt lat="60" lon="10"/></trkseg></trk></gpx>`)}))
			return err
		}, "content"},
		{"the GPX reader: a document that is not GPX", &roadbookv1.CreateTripFromUploadRequest{}, func() error {
			_, err := c.trips.CreateTripFromUpload(ctx, connect.NewRequest(&roadbookv1.CreateTripFromUploadRequest{Filename: "x.gpx", Content: []byte("<gpx><trk>")}))
			return err
		}, "content"},
		{"the planner: a stage out of range", &roadbookv1.GetStageRequest{}, func() error {
			_, err := c.trips.GetStage(ctx, connect.NewRequest(&roadbookv1.GetStageRequest{TripId: d.TripId, StageIndex: 99}))
			return err
		}, "stageIndex"},
		{"the API: every stage's geometry and one stage's at once", &roadbookv1.GetRouteGeometryRequest{}, func() error {
			_, err := c.trips.GetRouteGeometry(ctx, connect.NewRequest(&roadbookv1.GetRouteGeometryRequest{TripId: d.TripId, StageIndex: new(uint32(0)), EveryStage: true}))
			return err
		}, "everyStage"},
		{"the planner: an export of a stage out of range", &roadbookv1.ExportTripRequest{}, func() error {
			_, err := c.exports.ExportTrip(ctx, connect.NewRequest(&roadbookv1.ExportTripRequest{TripId: d.TripId,
				Format: roadbookv1.ExportFormat_EXPORT_FORMAT_GPX, StageIndex: new(uint32(99))}))
			return err
		}, "stageIndex"},
		{"the planner: an account deletion that does not repeat the caller", &roadbookv1.DeleteAccountRequest{}, func() error {
			_, err := c.account.DeleteAccount(ctx, connect.NewRequest(&roadbookv1.DeleteAccountRequest{ConfirmUserId: "someone-else", ValidateOnly: true}))
			return err
		}, "confirmUserId"},
		{"the API: a page token of another listing", &roadbookv1.ListTripsRequest{}, func() error {
			_, err := c.trips.ListTrips(ctx, connect.NewRequest(&roadbookv1.ListTripsRequest{PageToken: "abc.def"}))
			return err
		}, "pageToken"},
		{"the API: a resume token that is not one", &roadbookv1.WatchTripRequest{}, func() error {
			stream, err := c.watching.WatchTrip(ctx, connect.NewRequest(&roadbookv1.WatchTripRequest{TripId: d.TripId, ResumeToken: "???"}))
			if err != nil {
				return err
			}
			defer stream.Close()
			for stream.Receive() {
			}
			return stream.Err()
		}, "resumeToken"},
		{"protovalidate: a malformed trip id on a stream", &roadbookv1.WatchTripRequest{}, func() error {
			stream, err := c.watching.WatchTrip(ctx, connect.NewRequest(&roadbookv1.WatchTripRequest{TripId: "nope"}))
			if err != nil {
				return err
			}
			defer stream.Close()
			for stream.Receive() {
			}
			return stream.Err()
		}, "tripId"},
	}
	for _, tc := range cases {
		t.Run(tc.name+" names "+tc.field, func(t *testing.T) {
			err := tc.call()
			require.Equal(t, connect.CodeInvalidArgument, connect.CodeOf(err), "%v", err)
			got := errorInfo(t, err).Field
			require.Equal(t, tc.field, got)
			require.True(t, got == "" || apiserver.HasPath(tc.req.ProtoReflect().Descriptor(), got), "%s is a field of %s", got, tc.req.ProtoReflect().Descriptor().FullName())
		})
	}
}

// TestDomainFieldsExist keeps the domain-to-request table honest: every
// path it offers is a JSON path of some roadbook.v1 request.
func TestDomainFieldsExist(t *testing.T) {
	t.Parallel()
	var requests []protoreflect.MessageDescriptor
	protoregistry.GlobalFiles.RangeFilesByPackage("roadbook.v1", func(fd protoreflect.FileDescriptor) bool {
		for i := range fd.Messages().Len() {
			if md := fd.Messages().Get(i); len(md.Name()) > 7 && md.Name()[len(md.Name())-7:] == "Request" {
				requests = append(requests, md)
			}
		}
		return true
	})
	require.NotEmpty(t, requests)
	for name, paths := range apiserver.DomainFields {
		for _, p := range paths {
			found := false
			for _, md := range requests {
				found = found || apiserver.HasPath(md, p)
			}
			require.True(t, found, "%s → %s is no request's field", name, p)
		}
	}
}
