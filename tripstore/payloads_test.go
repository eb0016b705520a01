package tripstore_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/storetest"
	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
)

// eventTypes are every message of the trip events' package.
func eventTypes(t testing.TB) []protoreflect.MessageType {
	var types []protoreflect.MessageType
	protoregistry.GlobalTypes.RangeMessages(func(mt protoreflect.MessageType) bool {
		if mt.Descriptor().ParentFile().Package() == "roadbook.events.v1" {
			types = append(types, mt)
		}
		return true
	})
	require.Greater(t, len(types), 30, "the events package is registered")
	return types
}

func TestEventPayloadsCodeAsProtojson(t *testing.T) {
	t.Parallel()
	t.Run("every event type is written and read as protojson writes and reads it", func(t *testing.T) {
		t.Parallel()
		storetest.PayloadsCodeAsProtojson(t, eventTypes(t)...)
	})
	t.Run("an alert's metrics are read as protojson reads them, a key twice refused", func(t *testing.T) {
		t.Parallel()
		got, err := eventstore.DecodePayload("roadbook.events.v1.Alert", []byte(`{"code":"a","metrics":{"value":9.5,"extra_days":2}}`))
		require.NoError(t, err)
		require.Equal(t, map[string]float64{"value": 9.5, "extra_days": 2}, got.(*eventsv1.Alert).GetMetrics())
		_, err = eventstore.DecodePayload("roadbook.events.v1.Alert", []byte(`{"metrics":{"value":1,"value":2}}`))
		require.Error(t, err)
	})
}

// BenchmarkDecodeStagesComputed decodes the largest payload a trip's fold
// reads: 30 stages of 300 points each, inline (docs/BENCHMARKS.md).
func BenchmarkDecodeStagesComputed(b *testing.B) {
	typ, data, err := eventstore.EncodePayload(benchStagesComputed())
	require.NoError(b, err)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := eventstore.DecodePayload(typ, data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeStagesComputed encodes it, as the stages worker's append
// does.
func BenchmarkEncodeStagesComputed(b *testing.B) {
	sc := benchStagesComputed()
	for b.Loop() {
		if _, _, err := eventstore.EncodePayload(sc); err != nil {
			b.Fatal(err)
		}
	}
}

// benchStagesComputed is 30 paced stages of 300 points each.
func benchStagesComputed() *eventsv1.StagesComputed {
	rng := rand.New(rand.NewPCG(1, 2))
	sc := &eventsv1.StagesComputed{ComputedFor: &eventsv1.ComputedFor{RouteHash: hash64, PacingSettingsHash: hash64}}
	for i := range 30 {
		packed := &eventsv1.PackedPoints{ElevationKnown: true}
		for range 300 {
			packed.LatDeltaMicrodeg = append(packed.LatDeltaMicrodeg, rng.Int32N(2000)-1000)
			packed.LonDeltaMicrodeg = append(packed.LonDeltaMicrodeg, rng.Int32N(2000)-1000)
			packed.EleDeltaDm = append(packed.EleDeltaDm, rng.Int32N(200)-100)
		}
		sc.Stages = append(sc.Stages, &eventsv1.Stage{Index: uint32(i), ContentHash: hash64, Origin: eventsv1.StageOrigin_STAGE_ORIGIN_PACED,
			Start: &eventsv1.Point{Lat: 59.906353, Lon: 10.769927}, End: &eventsv1.Point{Lat: 60.557669, Lon: 11.250565},
			DistanceM: 94591.25831844284, AscentM: 720.9, DescentM: 616.2,
			Geometry: &eventsv1.Geometry{Encoding: &eventsv1.Geometry_Packed{Packed: packed}}})
	}
	return sc
}

const hash64 = "ccb99eeadeb7235e2328c0c6298f66375e8187327c84c5482461bbf7dbf09183"
