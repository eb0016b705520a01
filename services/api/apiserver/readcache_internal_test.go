package apiserver

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/trip"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
)

func TestDigestCacheEviction(t *testing.T) {
	t.Parallel()
	t.Run("a trip being read stays cached while the cache fills with others", func(t *testing.T) {
		t.Parallel()
		var d digestCache
		today, err := trip.ParseDate("today", "2026-06-01")
		require.NoError(t, err)
		hot := uuid.New()
		d.put(hot, 7, today, &roadbookv1.TripDigest{})
		first := uuid.New()
		for i := range digestCacheSize + 10 {
			id := uuid.New()
			if i == 0 {
				id = first
			}
			d.put(id, 1, today, &roadbookv1.TripDigest{})
			_, ok := d.lru().Get(hot)
			require.True(t, ok, "the trip being read after %d others", i+1)
		}
		e, ok := d.lru().Get(hot)
		require.True(t, ok)
		require.EqualValues(t, 7, e.version)
		require.False(t, d.lru().Contains(first), "the least recently read trip went")
		require.Equal(t, digestCacheSize, d.lru().Len())
	})
}
