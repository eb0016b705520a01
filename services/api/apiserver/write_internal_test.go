package apiserver

import (
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/testkit/fixtures"
)

// clonedFingerprint is how fingerprint was computed before it copied
// shallowly: the request cloned, its key cleared, marshalled. Stored
// request hashes were made of these bytes, so a key recorded before the
// change must still recognise its replay after it.
func clonedFingerprint(m proto.Message) []byte {
	req := proto.Clone(m)
	if f := req.ProtoReflect().Descriptor().Fields().ByName("idempotency_key"); f != nil {
		req.ProtoReflect().Clear(f)
	}
	body, _ := proto.MarshalOptions{Deterministic: true}.Marshal(req)
	return body
}

func TestFingerprintIsTheClearedRequest(t *testing.T) {
	t.Parallel()
	key, speed, hour, date := "key-0123456789", 18.5, uint32(7), "2027-06-01"
	unknown := protowire.AppendTag(nil, 999, protowire.BytesType)
	unknown = protowire.AppendBytes(unknown, []byte("from a newer client"))
	withUnknown := &roadbookv1.DeleteTripRequest{TripId: "0b5f3a64-2f0e-5c8a-9a53-6f1f7d9a2c11", Version: 3, IdempotencyKey: &key}
	withUnknown.ProtoReflect().SetUnknown(unknown)
	requests := map[string]proto.Message{
		"an upload with settings and a key": &roadbookv1.CreateTripFromUploadRequest{Filename: "route.gpx", ContentType: "application/gpx+xml",
			Content: fixtures.Bytes(fixtures.OsloTrondheim), Title: "Oslo", IdempotencyKey: &key,
			Settings: &roadbookv1.TripSettingsInput{AverageSpeedKmPerH: &speed, DepartureHour: &hour, StartDate: &date,
				EnabledAccommodationTypes: &roadbookv1.AccommodationTypeSet{Types: []roadbookv1.AccommodationType{
					roadbookv1.AccommodationType_ACCOMMODATION_TYPE_HOTEL, roadbookv1.AccommodationType_ACCOMMODATION_TYPE_CAMP_SITE}}}},
		"an upload without a key": &roadbookv1.CreateTripFromUploadRequest{Filename: "route.gpx", Content: []byte("<gpx/>")},
		"a oneof on its scalar side": &roadbookv1.UpdateStageRequest{TripId: "0b5f3a64-2f0e-5c8a-9a53-6f1f7d9a2c11", Version: 2, StageIndex: 4,
			Change: &roadbookv1.UpdateStageRequest_DistanceKm{DistanceKm: 81.25}, IdempotencyKey: &key},
		"a oneof on its message side": &roadbookv1.UpdateStageRequest{TripId: "0b5f3a64-2f0e-5c8a-9a53-6f1f7d9a2c11", Version: 2,
			Change: &roadbookv1.UpdateStageRequest_Points{Points: &roadbookv1.StagePoints{
				StartPoint: &roadbookv1.LatLon{Lat: 59.9, Lon: 10.7}, EndPoint: &roadbookv1.LatLon{Lat: 60.1, Lon: 10.9}}}, IdempotencyKey: &key},
		"a repeated field":       &roadbookv1.AnalyzeTripRequest{TripId: "0b5f3a64-2f0e-5c8a-9a53-6f1f7d9a2c11", Version: 5, StageIndexes: []uint32{3, 1, 2}, IdempotencyKey: &key},
		"a validate-only flag":   &roadbookv1.DeleteTripRequest{TripId: "0b5f3a64-2f0e-5c8a-9a53-6f1f7d9a2c11", Version: 3, ValidateOnly: true},
		"unknown fields kept":    withUnknown,
		"an empty key is a key":  &roadbookv1.AddRestDayRequest{TripId: "0b5f3a64-2f0e-5c8a-9a53-6f1f7d9a2c11", Version: 1, IdempotencyKey: new(string)},
		"a request with no keys": &roadbookv1.GetTripRequest{TripId: "0b5f3a64-2f0e-5c8a-9a53-6f1f7d9a2c11"},
	}
	for name, req := range requests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			before := proto.Clone(req)
			require.Equal(t, clonedFingerprint(req), fingerprint(req))
			require.True(t, proto.Equal(before, req), "the request itself is left as it came")
		})
	}
	t.Run("the key does not enter it", func(t *testing.T) {
		t.Parallel()
		other := "another-key-987654"
		a := &roadbookv1.AddRestDayRequest{TripId: "0b5f3a64-2f0e-5c8a-9a53-6f1f7d9a2c11", Version: 1, IdempotencyKey: &key}
		b := &roadbookv1.AddRestDayRequest{TripId: "0b5f3a64-2f0e-5c8a-9a53-6f1f7d9a2c11", Version: 1, IdempotencyKey: &other}
		require.Equal(t, fingerprint(a), fingerprint(b))
		b.Version = 2
		require.NotEqual(t, fingerprint(a), fingerprint(b))
	})
}

// BenchmarkFingerprint compares the shallow copy with the clone it replaced
// on an upload of the 1.2 MB Oslo–Trondheim fixture, the largest request an
// agent's cycle sends.
func BenchmarkFingerprint(b *testing.B) {
	key := "key-0123456789"
	req := &roadbookv1.CreateTripFromUploadRequest{Filename: "route.gpx", ContentType: "application/gpx+xml",
		Content: fixtures.Bytes(fixtures.OsloTrondheim), Title: "Oslo", IdempotencyKey: &key}
	b.Run("shallow", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			fingerprint(req)
		}
	})
	b.Run("cloned (before)", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			clonedFingerprint(req)
		}
	})
}
