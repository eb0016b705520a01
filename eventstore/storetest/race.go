package storetest

import (
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/eventstore"
)

// Racers and rounds of the optimistic-concurrency test (ARCHITECTURE §4).
const (
	racers = 50
	rounds = 200
)

func testRacers(t *testing.T, h Harness) {
	s := h.New(t)
	ctx := ctxFor(t)
	id := newStreamID("race")
	create(t, s, id, "alice", 1)
	for round := int64(1); round <= rounds; round++ {
		var (
			wg       sync.WaitGroup
			mu       sync.Mutex
			wins     int
			currents = map[int64]int{}
			others   []error
			start    = make(chan struct{})
		)
		for r := 0; r < racers; r++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				_, err := s.Append(ctx, eventstore.AppendRequest{Stream: id, Expected: eventstore.Exact(round), Events: events(1)})
				mu.Lock()
				defer mu.Unlock()
				var vc *eventstore.VersionConflictError
				switch {
				case err == nil:
					wins++
				case errors.As(err, &vc):
					currents[vc.Current]++
				default:
					others = append(others, err)
				}
			}()
		}
		close(start)
		wg.Wait()
		require.Empty(t, others, "round %d", round)
		require.Equal(t, 1, wins, "round %d: exactly one racer wins", round)
		require.Equal(t, map[int64]int{round + 1: racers - 1}, currents, "round %d: losers see the winner's version", round)
	}
	requireVersion(t, s, id, rounds+1)
	got, err := s.ReadStream(ctx, id, 0, 0)
	require.NoError(t, err)
	for i, e := range got {
		require.Equal(t, int64(i+1), e.Version)
	}
}
