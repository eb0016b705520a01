package job

import (
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/roadbook/roadbook/eventstore"
	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
)

func TestFor(t *testing.T) {
	t.Parallel()
	trip := uuid.MustParse("3f2504e0-4f89-11d3-9a0c-0305e82c3301")
	hash := "ab"
	for len(hash) < 64 {
		hash += "ab"
	}
	cases := []struct {
		name    string
		stream  string
		payload proto.Message
		kind    Kind
		ok      bool
	}{
		{"a trip created from a URL is imported", "trip-" + trip.String(), &eventsv1.TripCreated{Source: &eventsv1.TripCreated_Url{Url: &eventsv1.RouteSource{Url: "https://www.komoot.com/tour/1"}}}, KindImport, true},
		{"a trip created from an upload needs no import", "trip-" + trip.String(), &eventsv1.TripCreated{Source: &eventsv1.TripCreated_Upload{Upload: &eventsv1.UploadSource{RouteHash: hash}}}, "", false},
		{"an imported route is paced", "trip-" + trip.String(), &eventsv1.RouteImported{RouteHash: hash}, KindStages, true},
		{"a settings change may re-pace", "trip-" + trip.String(), &eventsv1.TripSettingsUpdated{PacingSettingsHash: hash}, KindStages, true},
		{"a copy without stages is paced", "trip-" + trip.String(), &eventsv1.TripDuplicated{Route: &eventsv1.RouteImported{RouteHash: hash}}, KindStages, true},
		{"a copy with stages needs nothing", "trip-" + trip.String(), &eventsv1.TripDuplicated{Route: &eventsv1.RouteImported{RouteHash: hash}, Stages: &eventsv1.StagesComputed{}}, "", false},
		{"an analysis request is analysed", "trip-" + trip.String(), &eventsv1.AnalysisRequested{AnalysisId: trip.String()}, KindAnalysis, true},
		{"an accommodations request is searched", "trip-" + trip.String(), &eventsv1.AccommodationsRequested{RadiusM: 5000}, KindAccommodations, true},
		{"a waypoint added with an estimated detour is routed", "trip-" + trip.String(), &eventsv1.WaypointAdded{WaypointId: trip.String(), DetourEstimated: true}, KindDetour, true},
		{"a waypoint added with a routed detour needs nothing", "trip-" + trip.String(), &eventsv1.WaypointAdded{WaypointId: trip.String()}, "", false},
		{"a routed detour maps to nothing", "trip-" + trip.String(), &eventsv1.WaypointDetourRouted{WaypointId: trip.String()}, "", false},
		{"computed stages map to nothing (trip.Decide requests the analysis)", "trip-" + trip.String(), &eventsv1.StagesComputed{}, "", false},
		{"another aggregate's stream maps to nothing", "other-1", &eventsv1.RouteImported{RouteHash: hash}, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ev := eventstore.RecordedEvent{StreamID: eventstore.StreamID(c.stream), ID: uuid.New(), Payload: c.payload}
			jobs := For(ev)
			if !c.ok {
				require.Empty(t, jobs)
				return
			}
			require.Len(t, jobs, 1)
			j := jobs[0]
			require.Equal(t, c.kind, j.Kind)
			require.Equal(t, trip, j.TripID)
			require.Equal(t, ev.ID, j.RequestEventID)
			data, err := j.Encode()
			require.NoError(t, err)
			back, err := Decode(data)
			require.NoError(t, err)
			require.Equal(t, j, back)
		})
	}

	t.Run("an analysis naming waypoints put back on their estimate also routes them", func(t *testing.T) {
		t.Parallel()
		w1, w2 := uuid.NewString(), uuid.NewString()
		ev := eventstore.RecordedEvent{StreamID: eventstore.StreamID("trip-" + trip.String()), ID: uuid.New(),
			Payload: &eventsv1.AnalysisRequested{AnalysisId: trip.String(), EstimatedWaypointIds: []string{w1, w2}}}
		jobs := For(ev)
		require.Len(t, jobs, 2)
		require.Equal(t, KindAnalysis, jobs[0].Kind)
		require.Equal(t, KindDetour, jobs[1].Kind)
		require.Equal(t, DetourFor{WaypointIDs: []string{w1, w2}}, jobs[1].For)
		require.NotEqual(t, MsgID(jobs[0].Kind, ev.ID), MsgID(jobs[1].Kind, ev.ID), "one message id per kind")
		require.True(t, Awaited(KindAnalysis))
		require.False(t, Awaited(KindDetour), "a detour has no terminal event: the estimate stands")
	})

	t.Run("a malformed job is refused naming the field", func(t *testing.T) {
		t.Parallel()
		_, err := Decode([]byte(`{"tripId":"3f2504e0-4f89-11d3-9a0c-0305e82c3301","kind":"paint"}`))
		require.ErrorIs(t, err, ErrInvalidJob)
		require.ErrorContains(t, err, "kind")
		_, err = Decode([]byte(`not json`))
		require.ErrorIs(t, err, ErrInvalidJob)
	})

	t.Run("subjects and message ids follow the wire convention", func(t *testing.T) {
		t.Parallel()
		req := uuid.MustParse("00000000-0000-0000-0000-000000000001")
		require.Equal(t, "jobs.stages."+trip.String(), Subject(KindStages, trip))
		require.Equal(t, "stages:"+req.String(), MsgID(KindStages, req))
		require.Equal(t, "events.trip."+trip.String()+".StagesComputed", EventSubject(trip, "roadbook.events.v1.StagesComputed"))
	})

	t.Run("what a job is for is typed by its kind and travels as the one computedFor string", func(t *testing.T) {
		t.Parallel()
		req := uuid.New()
		for _, tc := range []struct {
			f    Target
			wire string
		}{
			{ImportFor{SourceURL: "https://www.komoot.com/tour/1"}, "https://www.komoot.com/tour/1"},
			{StagesFor{Hash: "ab12"}, "ab12"},
			{AnalysisFor{AnalysisID: req.String()}, req.String()},
			{AccommodationsFor{RadiusM: 5000}, "5000"},
			{AccommodationsFor{RadiusM: 8000, StageIndexes: []int{0, 2}}, "8000/0,2"},
			{DetourFor{WaypointIDs: []string{"w1", "w2"}}, "w1,w2"},
		} {
			j := New(trip, req, tc.f)
			require.Equal(t, tc.f.Kind(), j.Kind)
			data, err := j.Encode()
			require.NoError(t, err)
			require.JSONEq(t, `{"tripId":"`+trip.String()+`","kind":"`+string(j.Kind)+`","requestEventId":"`+req.String()+`","computedFor":"`+tc.wire+`"}`, string(data))
			back, err := Decode(data)
			require.NoError(t, err)
			require.Equal(t, j, back)
			require.Equal(t, tc.wire, ComputedFor(back.For))
		}
	})

	t.Run("a computedFor its kind cannot read, or a target of another kind, is refused", func(t *testing.T) {
		t.Parallel()
		_, err := Decode([]byte(`{"tripId":"3f2504e0-4f89-11d3-9a0c-0305e82c3301","kind":"accommodations","requestEventId":"3f2504e0-4f89-11d3-9a0c-0305e82c3302","computedFor":"far"}`))
		require.ErrorIs(t, err, ErrInvalidJob)
		require.ErrorContains(t, err, "no radius")
		_, err = Job{TripID: trip, Kind: KindStages, RequestEventID: uuid.New(), For: AnalysisFor{}}.Encode()
		require.ErrorIs(t, err, ErrInvalidJob)
	})
}

func TestConsidersEveryTypeForMaps(t *testing.T) {
	t.Parallel()
	trip := uuid.MustParse("3f2504e0-4f89-11d3-9a0c-0305e82c3301")
	mapped := 0
	protoregistry.GlobalTypes.RangeMessages(func(mt protoreflect.MessageType) bool {
		name := string(mt.Descriptor().FullName())
		if !strings.HasPrefix(name, "roadbook.events.v1.") {
			return true
		}
		// Every field set, so that a case keyed on content maps too.
		m := mt.New()
		fill(m)
		ev := eventstore.RecordedEvent{StreamID: eventstore.StreamID("trip-" + trip.String()), ID: trip, Type: name, Payload: m.Interface()}
		if len(For(ev)) > 0 {
			mapped++
			require.True(t, Considers(name), "For maps %s to a job, but Considers does not name it: the relay would never decode it", name)
		}
		return true
	})
	require.GreaterOrEqual(t, mapped, 5, "the sweep reached the mapped types")
}

// fill sets every scalar and message field of m (one level of nesting
// deep), the first field of each oneof, and bools to true.
func fill(m protoreflect.Message) {
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		f := fields.Get(i)
		if o := f.ContainingOneof(); o != nil && o.Fields().Get(0) != f {
			continue
		}
		switch {
		case f.IsList() || f.IsMap():
		case f.Kind() == protoreflect.MessageKind:
			sub := m.Mutable(f).Message()
			sfields := sub.Descriptor().Fields()
			for j := range sfields.Len() {
				if v, ok := scalar(sfields.Get(j)); ok {
					sub.Set(sfields.Get(j), v)
				}
			}
		default:
			if v, ok := scalar(f); ok {
				m.Set(f, v)
			}
		}
	}
}

func scalar(f protoreflect.FieldDescriptor) (protoreflect.Value, bool) {
	if f.IsList() || f.IsMap() {
		return protoreflect.Value{}, false
	}
	switch f.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(true), true
	case protoreflect.StringKind:
		return protoreflect.ValueOfString("3f2504e0-4f89-11d3-9a0c-0305e82c3301"), true
	case protoreflect.Int32Kind, protoreflect.Sint32Kind:
		return protoreflect.ValueOfInt32(1), true
	case protoreflect.Int64Kind, protoreflect.Sint64Kind:
		return protoreflect.ValueOfInt64(1), true
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(1), true
	}
	return protoreflect.Value{}, false
}
