package proto_test

import (
	"testing"

	"buf.build/go/protovalidate"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
)

const (
	tripID = "0b8f6f1e-5f7d-4c3e-9a59-8d1c1f3b2a10"
	hash   = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
)

// violatedFields validates msg and returns, for every violation, its field
// path and its rule id (so a message-level CEL rule is matched by its id),
// failing when the error is not a validation error.
func violatedFields(t *testing.T, v protovalidate.Validator, msg proto.Message) []string {
	t.Helper()
	err := v.Validate(msg)
	if err == nil {
		return nil
	}
	var verr *protovalidate.ValidationError
	require.ErrorAs(t, err, &verr)
	var out []string
	for _, viol := range verr.Violations {
		if path := protovalidate.FieldPathString(viol.Proto.GetField()); path != "" {
			out = append(out, path)
		}
		out = append(out, viol.Proto.GetRuleId())
	}
	return out
}

func TestRequestValidation(t *testing.T) {
	t.Parallel()
	v, err := protovalidate.New()
	require.NoError(t, err)

	settings := func(maxKm float64) *roadbookv1.UpdateTripSettingsRequest {
		return &roadbookv1.UpdateTripSettingsRequest{
			TripId:   tripID,
			Version:  3,
			Settings: &roadbookv1.TripSettingsInput{MaxDistancePerDayKm: proto.Float64(maxKm)},
		}
	}

	cases := []struct {
		name  string
		msg   proto.Message
		field string // "" means valid
	}{
		{"a settings change within range is accepted", settings(80), ""},
		{"a daily cap above 300 km is refused naming the field", settings(300.5), "settings.max_distance_per_day_km"},
		{"a daily cap below 30 km is refused naming the field", settings(29.9), "settings.max_distance_per_day_km"},
		{"a fatigue factor above 1 is refused", &roadbookv1.UpdateTripSettingsRequest{
			TripId: tripID, Version: 1,
			Settings: &roadbookv1.TripSettingsInput{FatigueFactor: proto.Float64(1.2)},
		}, "settings.fatigue_factor"},
		{"an end date before the start date is refused", &roadbookv1.UpdateTripSettingsRequest{
			TripId: tripID, Version: 1,
			Settings: &roadbookv1.TripSettingsInput{StartDate: proto.String("2027-06-10"), EndDate: proto.String("2027-06-01")},
		}, "trip_settings_input.end_date_after_start_date"},
		{"an empty accommodation type set is refused", &roadbookv1.UpdateTripSettingsRequest{
			TripId: tripID, Version: 1,
			Settings: &roadbookv1.TripSettingsInput{EnabledAccommodationTypes: &roadbookv1.AccommodationTypeSet{}},
		}, "settings.enabled_accommodation_types.types"},
		{"a trip id that is not a UUID is refused", &roadbookv1.GetTripRequest{TripId: "trip-1"}, "trip_id"},
		{"a write without a version is refused", &roadbookv1.DeleteTripRequest{TripId: tripID}, "version"},
		{"an idempotency key with spaces is refused", &roadbookv1.DeleteTripRequest{
			TripId: tripID, Version: 2, IdempotencyKey: proto.String("not a key!"),
		}, "idempotency_key"},
		{"a Komoot tour link is accepted", &roadbookv1.CreateTripFromUrlRequest{
			Url: "https://www.komoot.com/fr-fr/tour/123456?ref=share",
		}, ""},
		{"a link to another host is refused", &roadbookv1.CreateTripFromUrlRequest{
			Url: "https://www.komoot.com.evil.example/tour/1",
		}, "url"},
		{"an upload that is not .gpx is refused", &roadbookv1.CreateTripFromUploadRequest{
			Filename: "route.exe", Content: []byte("<gpx/>"),
		}, "filename"},
		{"an upload above 30 MiB is refused", &roadbookv1.CreateTripFromUploadRequest{
			Filename: "route.GPX", Content: make([]byte, 30<<20+1),
		}, "content"},
		{"a move to the same index is refused", &roadbookv1.MoveStageRequest{
			TripId: tripID, Version: 4, StageIndex: 2, ToIndex: 2,
		}, "move_stage.to_index_differs"},
		{"an update without a change is refused", &roadbookv1.UpdateStageRequest{
			TripId: tripID, Version: 4,
		}, "change"},
		{"a re-scan radius of 16 km is refused", &roadbookv1.RescanAccommodationsRequest{
			TripId: tripID, Version: 4, RadiusKm: 16,
		}, "radius_km"},
		{"a re-scan radius of 15 km is accepted", &roadbookv1.RescanAccommodationsRequest{
			TripId: tripID, Version: 4, RadiusKm: 15,
		}, ""},
		{"a public text export is refused", &roadbookv1.ExportSharedTripRequest{
			Code: "Ab3_x-9Z", Format: roadbookv1.ExportFormat_EXPORT_FORMAT_TEXT,
		}, "format"},
		{"a route geometry of one point is refused", &roadbookv1.GetRouteGeometryRequest{
			TripId: tripID, MaxPoints: proto.Uint32(1),
		}, "max_points"},
		{"an event with a malformed route hash is refused", &eventsv1.RouteImported{
			RouteHash: "abc", PointCount: 10,
		}, "route_hash"},
		{"a stages result with its content hashes is accepted", &eventsv1.StagesComputed{
			ComputedFor: &eventsv1.ComputedFor{RouteHash: hash, PacingSettingsHash: hash},
			Stages: []*eventsv1.Stage{{
				ContentHash: hash,
				Origin:      eventsv1.StageOrigin_STAGE_ORIGIN_PACED,
				Start:       &eventsv1.Point{Lat: 59.9, Lon: 10.7},
				End:         &eventsv1.Point{Lat: 60.4, Lon: 10.5},
				DistanceM:   80_000,
				Date:        "2027-06-01",
			}},
		}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fields := violatedFields(t, v, tc.msg)
			if tc.field == "" {
				require.Empty(t, fields)
				return
			}
			require.Contains(t, fields, tc.field)
		})
	}
}
