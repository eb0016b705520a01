package planner_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/auth"
	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/pgtest"
	"github.com/roadbook/roadbook/eventstore/postgres"
	"github.com/roadbook/roadbook/planner"
	"github.com/roadbook/roadbook/tripstore"
)

// recordingLimits allows every call, or refuses the kinds in refuse, and
// records each one it was asked about.
type recordingLimits struct {
	mu     sync.Mutex
	asked  []string
	refuse map[planner.Limit]bool
}

func (l *recordingLimits) Allow(_ context.Context, limit planner.Limit, subject string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.asked = append(l.asked, string(limit)+" "+subject)
	if l.refuse[limit] {
		return &planner.RateLimitedError{RetryAfter: time.Minute}
	}
	return nil
}

func (l *recordingLimits) calls() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.asked...)
}

type fixture struct {
	store  eventstore.Store
	trips  *tripstore.Store
	plan   *planner.Planner
	limits *recordingLimits
}

// newFixture is a planner over a fresh PostgreSQL schema, its clock stopped
// on 1 May 2030.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	store, err := postgres.Open(ctx, pgtest.SchemaURL(t))
	require.NoError(t, err)
	t.Cleanup(store.Close)
	now := func() time.Time { return time.Date(2030, 5, 1, 12, 0, 0, 0, time.UTC) }
	trips := tripstore.New(store, now)
	limits := &recordingLimits{refuse: map[planner.Limit]bool{}}
	p, err := planner.New(planner.Config{Trips: trips, Limits: limits, Clock: now})
	require.NoError(t, err)
	return &fixture{store: store, trips: trips, plan: p, limits: limits}
}

// as is a context whose caller is user, as the API's auth interceptor puts it.
func as(user string) context.Context {
	return auth.WithPrincipal(context.Background(), auth.Principal{UserID: user, Scopes: []auth.Scope{auth.ScopeRead, auth.ScopeWrite}})
}

// gpx is a straight track of n points heading north from lat 60 (about 1.1
// km apart), climbing 2 m each.
func gpx(n int) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>North</name><trkseg>`)
	for i := range n {
		fmt.Fprintf(&b, `<trkpt lat="%.5f" lon="10.0"><ele>%d</ele></trkpt>`, 60+float64(i)*0.01, 100+2*i)
	}
	b.WriteString(`</trkseg></trk></gpx>`)
	return []byte(b.String())
}

// write is a keyed write whose answer is the after-state's version.
func write(key string) planner.Write {
	return planner.Write{Procedure: "/test/Write", Key: key, Fingerprint: []byte("request"),
		Respond: func(o planner.Outcome) ([]byte, error) { return []byte(fmt.Sprint(o.After.Version)), nil }}
}

func TestCreateFromUpload(t *testing.T) {
	t.Parallel()

	t.Run("an upload becomes the caller's trip with its route imported and joins their collection", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		ctx := as("ann")
		before, err := f.trips.Generation(ctx, "ann")
		require.NoError(t, err)
		o, err := f.plan.CreateFromUpload(ctx, planner.Write{Procedure: "/test/Create"}, planner.CreateFromUpload{Filename: "north.gpx", Content: gpx(300)})
		require.NoError(t, err)
		require.False(t, o.Replayed)
		require.Equal(t, "North", o.After.Title, "the route's title")
		require.Equal(t, 300, o.After.Route.PointCount)
		require.True(t, o.After.Route.ElevationKnown)
		require.Equal(t, trip.PhaseComputing, o.After.Phase(), "the stages are requested at once")
		l, err := f.plan.Trip(ctx, o.Trip.String())
		require.NoError(t, err)
		require.Equal(t, "ann", l.Info.Owner)
		after, err := f.trips.Generation(ctx, "ann")
		require.NoError(t, err)
		require.Greater(t, after, before, "the collection generation moved")
		require.Equal(t, []string{"upload ann"}, f.limits.calls())
	})

	t.Run("a retry with the key answers the first answer and writes nothing; the key with another request is a conflict", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		ctx := as("bob")
		first, err := f.plan.CreateFromUpload(ctx, write("k-1"), planner.CreateFromUpload{Filename: "north.gpx", Content: gpx(50)})
		require.NoError(t, err)
		again, err := f.plan.CreateFromUpload(ctx, write("k-1"), planner.CreateFromUpload{Filename: "north.gpx", Content: gpx(50)})
		require.NoError(t, err)
		require.True(t, again.Replayed)
		require.Equal(t, fmt.Sprint(first.After.Version), string(again.Answer))
		require.Equal(t, first.Trip, again.Trip, "the trip id comes from the key")
		page, err := f.store.ListStreams(context.Background(), eventstore.ListQuery{Owner: "bob", Limit: 10})
		require.NoError(t, err)
		require.Len(t, page.Streams, 2, "one trip stream and the collection stream")

		other := write("k-1")
		other.Fingerprint = []byte("another request")
		_, err = f.plan.CreateFromUpload(ctx, other, planner.CreateFromUpload{Filename: "north.gpx", Content: gpx(50)})
		require.ErrorIs(t, err, trip.ErrConflict)
	})

	t.Run("a document without a route is refused by field and stores nothing", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		_, err := f.plan.CreateFromUpload(as("cid"), planner.Write{}, planner.CreateFromUpload{Filename: "one.gpx", Content: gpx(1)})
		var ie *planner.InvalidError
		require.ErrorAs(t, err, &ie)
		require.Equal(t, "content", ie.Field)
		_, err = f.plan.CreateFromUpload(as("cid"), planner.Write{}, planner.CreateFromUpload{Filename: "x.gpx", Content: []byte(`<gpx><trk>`)})
		var re *route.ReadError
		require.ErrorAs(t, err, &re)
		page, err := f.store.ListStreams(context.Background(), eventstore.ListQuery{Owner: "cid", Limit: 10})
		require.NoError(t, err)
		require.Empty(t, page.Streams)
	})

	t.Run("over the upload limit nothing is read or stored", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.limits.refuse[planner.LimitUpload] = true
		_, err := f.plan.CreateFromUpload(as("dan"), planner.Write{}, planner.CreateFromUpload{Filename: "north.gpx", Content: gpx(10)})
		var rl *planner.RateLimitedError
		require.ErrorAs(t, err, &rl)
		page, err := f.store.ListStreams(context.Background(), eventstore.ListQuery{Owner: "dan", Limit: 10})
		require.NoError(t, err)
		require.Empty(t, page.Streams)
	})

	t.Run("without a verified caller nothing runs", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		_, err := f.plan.CreateFromUpload(context.Background(), planner.Write{}, planner.CreateFromUpload{Content: gpx(10)})
		require.ErrorIs(t, err, planner.ErrUnauthenticated)
		require.Empty(t, f.limits.calls())
	})
}

// planned is ann's trip of a 300-point route with its stages computed by
// the stages worker's use case.
func planned(t *testing.T, f *fixture, user string) trip.State {
	t.Helper()
	o, err := f.plan.CreateFromUpload(as(user), planner.Write{}, planner.CreateFromUpload{Filename: "north.gpx", Content: gpx(300)})
	require.NoError(t, err)
	require.NoError(t, f.plan.ComputeStages(context.Background(), o.Trip, func() {}, func(trip.StagesKey) tripstore.Options { return tripstore.Options{} }))
	l, err := f.plan.Trip(as(user), o.Trip.String())
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(l.State.Stages), 2)
	return l.State
}

func TestChanges(t *testing.T) {
	t.Parallel()

	t.Run("computing stages twice records them once", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		s := planned(t, f, "eve")
		id := uuid.MustParse(s.ID)
		require.NoError(t, f.plan.ComputeStages(context.Background(), id, func() {}, func(trip.StagesKey) tripstore.Options { return tripstore.Options{} }))
		l, err := f.trips.Load(context.Background(), tripstore.System(), id)
		require.NoError(t, err)
		require.Equal(t, s.Version, l.State.Version)
		require.Equal(t, len(s.Stages), len(l.State.Stages))
	})

	t.Run("a preview answers the trip now and after, and writes nothing", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		s := planned(t, f, "fay")
		ctx := as("fay")
		head, err := f.store.Stream(context.Background(), tripstore.StreamID(uuid.MustParse(s.ID)))
		require.NoError(t, err)
		o, err := f.plan.Change(ctx, planner.Write{ValidateOnly: true}, s.ID, trip.AddRestDay{Version: s.Version, AfterIndex: 0})
		require.NoError(t, err)
		require.True(t, o.Preview)
		require.Len(t, o.After.Stages, len(o.Before.Stages)+1)
		again, err := f.store.Stream(context.Background(), tripstore.StreamID(uuid.MustParse(s.ID)))
		require.NoError(t, err)
		require.Equal(t, head.Version, again.Version)
		_, err = f.plan.Change(ctx, planner.Write{ValidateOnly: true}, s.ID, trip.AddRestDay{Version: s.Version - 1, AfterIndex: 0})
		require.ErrorIs(t, err, trip.ErrVersionConflict, "the same guards as the write")
	})

	t.Run("a cut at a distance walks the route the trip names", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		s := planned(t, f, "gus")
		d := 20000.0
		o, err := f.plan.UpdateStage(as("gus"), planner.Write{}, s.ID, trip.UpdateStage{Version: s.Version, Index: 0, DistanceM: &d})
		require.NoError(t, err)
		require.InDelta(t, 20000, o.After.Stages[0].DistanceM, 1200)
		require.Equal(t, s.Version+1, o.After.Version)
	})

	t.Run("an undo puts back the layout of an earlier version, read from the trip's history, for its owner only", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		s := planned(t, f, "kim")
		rest, err := f.plan.Change(as("kim"), planner.Write{}, s.ID, trip.AddRestDay{Version: s.Version, AfterIndex: 0})
		require.NoError(t, err)
		require.Len(t, rest.After.Stages, len(s.Stages)+1)
		undo := trip.RestoreStageLayout{Version: rest.After.Version, LayoutVersion: s.Version}
		_, err = f.plan.RestoreStageLayout(as("lou"), planner.Write{}, s.ID, undo)
		require.ErrorIs(t, err, trip.ErrNotFound)
		prev, err := f.plan.RestoreStageLayout(as("kim"), planner.Write{ValidateOnly: true}, s.ID, undo)
		require.NoError(t, err)
		require.True(t, prev.Preview)
		require.Len(t, prev.After.Stages, len(s.Stages))
		back, err := f.plan.RestoreStageLayout(as("kim"), planner.Write{}, s.ID, undo)
		require.NoError(t, err)
		require.Equal(t, rest.After.Version+1, back.After.Version, "an undo is a new version")
		require.Len(t, back.After.Stages, len(s.Stages))
		for i, st := range s.Stages {
			require.Equal(t, st.ContentHash, back.After.Stages[i].ContentHash, "day %d is as it was", i+1)
		}
	})

	t.Run("someone else's trip is not found, for reads and writes alike", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		s := planned(t, f, "hal")
		_, err := f.plan.Trip(as("ivy"), s.ID)
		require.ErrorIs(t, err, trip.ErrNotFound)
		_, err = f.plan.Change(as("ivy"), planner.Write{}, s.ID, trip.AddRestDay{Version: s.Version})
		require.ErrorIs(t, err, trip.ErrNotFound)
	})

	t.Run("an analysis and a waypoint get the id their key derives", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		s := planned(t, f, "jon")
		a1, err := f.plan.Analyze(as("jon"), write("a"), s.ID, s.Version)
		require.ErrorIs(t, err, trip.ErrAlreadyRunning, "the analysis the stages started is still running")
		require.Empty(t, a1.Made)
		w := write("w")
		o, err := f.plan.AddWaypoint(as("jon"), w, s.ID, trip.AddWaypoint{Version: s.Version, StageIndex: 0, Name: "Café", Category: "food",
			Location: s.Stages[0].End})
		require.NoError(t, err)
		require.NotEmpty(t, o.Made)
		_, wp, ok := o.After.WaypointByID(o.Made)
		require.True(t, ok)
		require.Equal(t, "Café", wp.Name)
		again, err := f.plan.AddWaypoint(as("jon"), w, s.ID, trip.AddWaypoint{Version: s.Version, StageIndex: 0, Name: "Café", Category: "food",
			Location: s.Stages[0].End})
		require.NoError(t, err)
		require.True(t, again.Replayed)
		require.Equal(t, o.Made, again.Made)
		require.Contains(t, f.limits.calls(), "recompute jon/"+s.ID)
	})
}

func TestSharesAndDeletion(t *testing.T) {
	t.Parallel()

	t.Run("a shared trip is found by its code and by nothing else; unsharing revokes it", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		s := planned(t, f, "kim")
		o, err := f.plan.Share(as("kim"), planner.Write{}, s.ID, s.Version)
		require.NoError(t, err)
		code := o.After.Share.Code
		require.NotEmpty(t, code)
		got, err := f.plan.SharedTrip(context.Background(), code, "192.0.2.1")
		require.NoError(t, err)
		require.Equal(t, s.ID, got.ID)
		require.Contains(t, f.limits.calls(), "public 192.0.2.1")
		_, err = f.plan.SharedTrip(context.Background(), "AAAAAAAA", "192.0.2.1")
		require.ErrorIs(t, err, trip.ErrNotFound)
		_, err = f.plan.Change(as("kim"), planner.Write{}, s.ID, trip.Unshare{Version: o.After.Version})
		require.NoError(t, err)
		_, err = f.plan.SharedTrip(context.Background(), code, "192.0.2.1")
		require.ErrorIs(t, err, trip.ErrNotFound)
	})

	t.Run("a deleted trip's streams are gone, its share index too, and its id answers not found", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		s := planned(t, f, "lea")
		sh, err := f.plan.Share(as("lea"), planner.Write{}, s.ID, s.Version)
		require.NoError(t, err)
		o, err := f.plan.Delete(as("lea"), planner.Write{}, s.ID, sh.After.Version)
		require.NoError(t, err)
		require.True(t, o.After.Deleted)
		_, err = f.store.Stream(context.Background(), tripstore.StreamID(uuid.MustParse(s.ID)))
		require.ErrorIs(t, err, eventstore.ErrStreamDeleted)
		_, err = f.plan.SharedTrip(context.Background(), sh.After.Share.Code, "192.0.2.1")
		require.ErrorIs(t, err, trip.ErrNotFound)
		_, err = f.plan.Trip(as("lea"), s.ID)
		require.ErrorIs(t, err, trip.ErrNotFound)
	})

	t.Run("an account is deleted only when the caller repeats their id, trip by trip", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		planned(t, f, "max")
		planned(t, f, "max")
		_, err := f.plan.DeleteAccount(as("max"), "someone-else", false)
		var ie *planner.InvalidError
		require.ErrorAs(t, err, &ie)
		require.Equal(t, "confirmUserId", ie.Field)
		n, err := f.plan.DeleteAccount(as("max"), "max", true)
		require.NoError(t, err)
		require.Equal(t, 2, n, "the preview counts")
		n, err = f.plan.DeleteAccount(as("max"), "max", false)
		require.NoError(t, err)
		require.Equal(t, 2, n)
		page, err := f.store.ListStreams(context.Background(), eventstore.ListQuery{Owner: "max", Limit: 10})
		require.NoError(t, err)
		require.Empty(t, page.Streams, "the trips and the collection stream are gone")
	})
}
