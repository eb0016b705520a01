package trip

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/roadbook/roadbook/domain/route"
)

// testNow is the injected clock of every scenario: trips dated after it are
// not locked, trips dated on or before it are.
var testNow = time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)

var testRouteHash = strings.Repeat("ab", 32)

const testTripID = "6f1c2a9e-3b4d-4c5e-8f70-123456789abc"

// testRoute is a 30 km line heading north from Oslo's latitude with a
// rolling profile (±40 m every 3 km), one point every ~100 m.
func testRoute() []route.Point {
	pts := make([]route.Point, 301)
	for i := range pts {
		pts[i] = route.Point{
			Lat: 60 + float64(i)*0.0009, Lon: 10 + 0.002*math.Sin(float64(i)/15),
			Ele: 200 + 40*math.Sin(float64(i)/30*2*math.Pi), HasEle: true,
		}
	}
	return pts
}

func testRouteInfo() RouteInfo {
	pts := testRoute()
	up, down := route.Elevation(pts)
	return RouteInfo{Hash: testRouteHash, PointCount: len(pts), DistanceM: route.Length(pts),
		AscentM: up, DescentM: down, ElevationKnown: true, Title: "Oslo north"}
}

// pacedStages is the stages worker's answer: the route cut at the given
// distances (metres) into paced stages.
func pacedStages(cuts ...float64) []Stage {
	rt := newAlong(route.Measure(testRoute()))
	bounds := append(append([]float64{0}, cuts...), rt.length())
	var out []Stage
	for i := 1; i < len(bounds); i++ {
		out = append(out, rt.span(bounds[i-1], bounds[i], OriginPaced))
	}
	return out
}

// history decides cmds one after another from the empty trip and returns
// every event they produced: the "given" of a scenario, built by the same
// rules it tests.
func history(t *testing.T, cmds ...Command) []Event {
	t.Helper()
	s := State{ID: testTripID}
	var all []Event
	for _, c := range cmds {
		evs, err := Decide(s, c, testNow)
		require.NoError(t, err, "given %T", c)
		s = applied(s, evs...)
		all = append(all, evs...)
	}
	return all
}

// stageResult is the worker result for the trip's current stages key.
func stageResult(s State, cuts ...float64) RecordStagesComputed {
	return RecordStagesComputed{For: s.StagesProgress.For, Stages: pacedStages(cuts...)}
}

// uploaded creates a trip from an upload with optional settings.
func uploaded(p SettingsPatch) Create {
	return Create{Upload: &CreateUpload{Filename: "oslo.gpx", SizeBytes: 1234, Route: testRouteInfo()}, Settings: p}
}

// readyTrip is a trip with three paced stages (10, 10, ~10 km), and the
// given settings.
func readyTrip(t *testing.T, p SettingsPatch, more ...Command) []Event {
	t.Helper()
	evs := history(t, uploaded(p))
	s := applied(State{ID: testTripID}, evs...)
	evs = append(evs, history2(t, s, stageResult(s, 10000, 20000))...)
	s = applied(State{ID: testTripID}, evs...)
	return append(evs, history2(t, s, more...)...)
}

// history2 continues a history from a state.
func history2(t *testing.T, s State, cmds ...Command) []Event {
	t.Helper()
	var all []Event
	for _, c := range cmds {
		evs, err := Decide(s, c, testNow)
		require.NoError(t, err, "given %T", c)
		s = applied(s, evs...)
		all = append(all, evs...)
	}
	return all
}

// scenario is one "given events, when command, then events or error" case.
type scenario struct {
	name  string
	given []Event
	when  Command
	now   time.Time
	// thenErr, when set, is the refusal expected (errors.Is).
	thenErr error
	// thenTypes are the expected event message names, in order.
	thenTypes []string
	// then inspects the events and the state they fold to.
	then func(t *testing.T, events []Event, before, after State)
}

// run plays scenarios as parallel subtests. Every accepted decision is also
// checked to survive the store: events marshalled to protojson and back
// fold to the same state.
func run(t *testing.T, cases []scenario) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			now := tc.now
			if now.IsZero() {
				now = testNow
			}
			before := Load(testTripID, "user-1", tc.given)
			events, err := Decide(before, tc.when, now)
			if tc.thenErr != nil {
				require.Error(t, err)
				require.ErrorIs(t, err, tc.thenErr)
				var de *Error
				require.True(t, errors.As(err, &de), "refusals are *trip.Error")
				require.Nil(t, events)
				return
			}
			require.NoError(t, err)
			var names []string
			for _, e := range events {
				names = append(names, string(e.ProtoReflect().Descriptor().Name()))
			}
			require.Equal(t, tc.thenTypes, names)
			after := applied(before, events...)
			require.Equal(t, before.StreamVersion+int64(len(events)), after.StreamVersion)
			require.Equal(t, after, Load(testTripID, "user-1", roundTrip(t, append(append([]Event(nil), tc.given...), events...))),
				"the state folded from stored (protojson) events differs")
			if tc.then != nil {
				tc.then(t, events, before, after)
			}
		})
	}
}

// roundTrip stores events the way the event store does (protojson under the
// full name) and reads them back.
func roundTrip(t *testing.T, events []Event) []Event {
	t.Helper()
	out := make([]Event, len(events))
	for i, e := range events {
		data, err := protojson.Marshal(e)
		require.NoError(t, err)
		mt, err := protoregistry.GlobalTypes.FindMessageByName(e.ProtoReflect().Descriptor().FullName())
		require.NoError(t, err)
		m := mt.New().Interface()
		require.NoError(t, protojson.Unmarshal(data, m))
		require.True(t, proto.Equal(e, m))
		out[i] = m
	}
	return out
}

// fixedRand is a deterministic randomness source for share codes.
func fixedRand(b ...byte) *bytes.Reader { return bytes.NewReader(b) }

func ptr[T any](v T) *T { return &v }

// totalKm sums stage distances.
func totalM(s State) float64 {
	var sum float64
	for _, st := range s.Stages {
		sum += st.DistanceM
	}
	return sum
}
