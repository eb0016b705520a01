package relay_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/services/worker/internal/pipelinetest"
	"github.com/roadbook/roadbook/services/worker/internal/relay"
	"github.com/roadbook/roadbook/services/worker/internal/stream"
	"github.com/roadbook/roadbook/tripstore"
)

// The worker's trip cache is fed from Observe so that the job a message
// sets off finds its trip folded: Observe must have the page before
// JetStream has any of it, and with the owner of each trip it begins.
func TestRelayHandsEachPageToObserveBeforePublishingIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	g := newRig(t)
	type seen struct {
		events       int
		storedBefore uint64
		owners       map[eventstore.StreamID]string
		err          error
	}
	var (
		mu    sync.Mutex
		pages []seen
	)
	r, _ := g.run(t, relay.Config{PollInterval: 20 * time.Millisecond, Observe: func(p eventstore.FeedPage) {
		s, err := g.js.Stream(ctx, stream.Events)
		page := seen{events: len(p.Events), owners: p.Owners, err: err}
		if err == nil {
			page.storedBefore = s.CachedInfo().State.LastSeq
		}
		mu.Lock()
		pages = append(pages, page)
		mu.Unlock()
	}})

	trips := tripstore.New(g.es, nil)
	up, err := pipelinetest.Store(ctx, trips, "x.gpx", 10, "x", pipelinetest.Line(60, 10, 60.1, 10, 10), true)
	require.NoError(t, err)
	id, err := pipelinetest.CreateTrip(ctx, trips, "rider", up, trip.SettingsPatch{})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return r.Published() == 2 }, 10*time.Second, 10*time.Millisecond)

	mu.Lock()
	defer mu.Unlock()
	var observed int
	owners := map[eventstore.StreamID]string{}
	for _, p := range pages {
		require.NoError(t, p.err)
		require.Equal(t, uint64(observed), p.storedBefore, "a page was published before Observe had it")
		observed += p.events
		for k, v := range p.owners {
			owners[k] = v
		}
	}
	require.Equal(t, 2, observed)
	require.Equal(t, map[eventstore.StreamID]string{tripstore.StreamID(id): "rider"}, owners)
}
