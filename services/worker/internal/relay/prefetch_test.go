package relay_test

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/services/worker/internal/pipelinetest"
	"github.com/roadbook/roadbook/services/worker/internal/relay"
	"github.com/roadbook/roadbook/services/worker/internal/stream"
	"github.com/roadbook/roadbook/tripstore"
)

// The relay asks its store to read the next page with the next append
// through it (eventstore.FeedPrefetcher), so after such an append it takes
// a page read before it looked for wake-ups of its own. A commit that falls
// between that read and the relay's wait would then wake nobody, and with
// the poll far beyond the test's patience its events would not be relayed
// in time: the page's Wake, and the remote channel taken before the
// request, are what keep it from waiting then.
func TestRelayWithPagesReadByAppends(t *testing.T) {
	t.Parallel()
	t.Run("trips created at once through the relay's own store and another process's are each relayed once, in order, with no poll to fall back on", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		g := newRig(t)
		remote := g.listener(t)
		r, _ := g.run(t, relay.Config{PollInterval: time.Hour, Remote: remote})

		other := g.announcingProcess(t)

		const writers, tripsEach = 8, 12
		local, api := tripstore.New(g.es, nil), tripstore.New(other, nil)
		up, err := pipelinetest.Store(ctx, local, "x.gpx", 10, "x", pipelinetest.Line(60, 10, 60.1, 10, 10), true)
		require.NoError(t, err)
		var wg sync.WaitGroup
		for w := range writers {
			trips := local
			if w%2 == 1 {
				trips = api
			}
			wg.Go(func() {
				for range tripsEach {
					_, err := pipelinetest.CreateTrip(ctx, trips, "rider", up, trip.SettingsPatch{})
					require.NoError(t, err)
				}
			})
		}
		wg.Wait()
		const events = writers * tripsEach * 2 // TripCreated and RouteImported
		require.Eventually(t, func() bool { return r.Published() == events }, 30*time.Second, 5*time.Millisecond,
			"every event relayed on a wake-up; %d of %d were", r.Published(), events)

		// EVENTS holds each event once, each trip's in version order.
		cons, err := g.js.OrderedConsumer(ctx, stream.Events, jetstream.OrderedConsumerConfig{})
		require.NoError(t, err)
		last := map[string]int64{}
		for range events {
			msg, err := cons.Next(jetstream.FetchMaxWait(10 * time.Second))
			require.NoError(t, err)
			s, v := msg.Headers().Get(relay.HeaderStream), msg.Headers().Get(relay.HeaderStreamVersion)
			version, err := strconv.ParseInt(v, 10, 64)
			require.NoError(t, err)
			require.Equal(t, last[s]+1, version, "stream %s: version %d after %d", s, version, last[s])
			last[s] = version
		}
		require.Len(t, last, writers*tripsEach)
		require.EqualValues(t, events, g.lastSeq(t, stream.Events), "nothing stored twice")
	})
}

// TestRelayWaitsOnlyAfterReadingEveryAnnouncedCommit stops the relay after
// it has published a batch (AfterPublish) and, while it stands there, makes
// the commit that carries its request for the next page (A) and then one
// more (B), in this process or another. The relay then takes A's page,
// which B is not in, and must not wait after it: B's wake-up came before
// the relay took its channels for the wait. Were it to wait, only the
// cursor's save (CursorInterval, here the longest allowed) would wake it,
// and a save would come before B was relayed.
func TestRelayWaitsOnlyAfterReadingEveryAnnouncedCommit(t *testing.T) {
	t.Parallel()
	for _, bElsewhere := range []bool{false, true} {
		name := "a commit in this process after the page an append read for the relay is relayed without waiting for the relay's next wake-up"
		if bElsewhere {
			name = "a commit announced by another process after the page an append read for the relay is relayed without waiting for the relay's next wake-up"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			g := newRig(t)
			remote := g.listener(t)
			var (
				once     sync.Once
				standing = make(chan struct{})
				release  = make(chan struct{})
				saves    atomic.Int64
			)
			r, _ := g.run(t, relay.Config{PollInterval: time.Hour, Remote: remote, CursorInterval: relay.MaxCursorInterval,
				AfterPublish: func([]eventstore.RecordedEvent) {
					once.Do(func() { close(standing); <-release })
				},
				OnSaved: func(int, eventstore.Cursor) { saves.Add(1) },
			})
			other := g.announcingProcess(t)

			local := tripstore.New(g.es, nil)
			up, err := pipelinetest.Store(ctx, local, "x.gpx", 10, "x", pipelinetest.Line(60, 10, 60.1, 10, 10), true)
			require.NoError(t, err)
			_, err = pipelinetest.CreateTrip(ctx, local, "rider", up, trip.SettingsPatch{}) // X
			require.NoError(t, err)
			select {
			case <-standing:
			case <-time.After(10 * time.Second):
				t.Fatal("the relay did not publish the first trip")
			}
			_, err = pipelinetest.CreateTrip(ctx, local, "rider", up, trip.SettingsPatch{}) // A: reads the relay's next page
			require.NoError(t, err)
			if bElsewhere {
				announced := remote.Notify()
				_, err = pipelinetest.CreateTrip(ctx, tripstore.New(other, nil), "rider", up, trip.SettingsPatch{})
				require.NoError(t, err)
				select {
				case <-announced:
				case <-time.After(10 * time.Second):
					t.Fatal("the other process's commit was not announced")
				}
			} else {
				_, err = pipelinetest.CreateTrip(ctx, local, "rider", up, trip.SettingsPatch{})
				require.NoError(t, err)
			}
			close(release)
			require.Eventually(t, func() bool { return r.Published() == 6 }, 20*time.Second, time.Millisecond)
			require.Zero(t, saves.Load(), "B was relayed only after the relay woke to save its cursor")
		})
	}
}
