package tripstore_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/pgtest"
	"github.com/roadbook/roadbook/eventstore/postgres"
	"github.com/roadbook/roadbook/tripstore"
)

// countingStore counts the stream reads a load makes (the wrapper hides
// the TailReader, so a load reads the head row, then the events).
type countingStore struct {
	eventstore.Store
	reads atomic.Int64
}

func (c *countingStore) Stream(ctx context.Context, id eventstore.StreamID) (eventstore.StreamInfo, error) {
	c.reads.Add(1)
	return c.Store.Stream(ctx, id)
}

func (c *countingStore) ReadStream(ctx context.Context, id eventstore.StreamID, after int64, limit int) ([]eventstore.RecordedEvent, error) {
	c.reads.Add(1)
	return c.Store.ReadStream(ctx, id, after, limit)
}

func TestObservedTrips(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	es := postgres.New(pgtest.Schema(t))
	t.Cleanup(es.Close)
	api := tripstore.New(es, nil)
	counted := &countingStore{Store: es}
	worker := tripstore.New(counted, nil)
	id := uuid.New()
	created, err := api.Execute(ctx, tripstore.User("ann"), id, trip.Create{SourceURL: komootURL, Title: "Alps"}, tripstore.Options{})
	require.NoError(t, err)
	page, err := es.ReadFeedPage(ctx, eventstore.Cursor{}, 100)
	require.NoError(t, err)
	worker.Observe(page)

	t.Run("a trip the relay saw created is what a load folds, owner included, and is served without a read", func(t *testing.T) {
		l, err := worker.LoadAtLeast(ctx, tripstore.System(), id, created.StreamVersion)
		require.NoError(t, err)
		require.Zero(t, counted.reads.Load())
		want, err := api.Load(ctx, tripstore.User("ann"), id)
		require.NoError(t, err)
		require.Equal(t, want.State, l.State)
		require.Equal(t, "ann", l.State.Owner)
		require.Equal(t, want.StreamVersion, l.StreamVersion)
	})
	t.Run("a job set off by a later event than the relay saw loads the trip", func(t *testing.T) {
		before := counted.reads.Load()
		_, err := worker.LoadAtLeast(ctx, tripstore.System(), id, created.StreamVersion+1)
		require.NoError(t, err)
		require.Greater(t, counted.reads.Load(), before)
	})
	t.Run("someone else than the owner is answered by the store, not the cache", func(t *testing.T) {
		_, err := worker.LoadAtLeast(ctx, tripstore.User("bob"), id, created.StreamVersion)
		var terr *trip.Error
		require.ErrorAs(t, err, &terr)
		require.Equal(t, trip.CodeNotFound, terr.Code)
	})
}
