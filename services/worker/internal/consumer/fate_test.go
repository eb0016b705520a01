package consumer

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/services/worker/internal/job"
)

type fetchErr struct{ retry bool }

func (e fetchErr) Error() string                    { return "fetch failed" }
func (e fetchErr) ImportCode() trip.ImportErrorCode { return trip.ImportSourceUnavailable }
func (e fetchErr) Retryable() bool                  { return e.retry }
func (e fetchErr) HTTPStatus() int                  { return 503 }

func TestSettle(t *testing.T) {
	t.Parallel()
	transient := errors.New("connection reset")
	cases := []struct {
		name      string
		err       error
		delivered uint64
		want      Action
		retryable bool
	}{
		{"success is acked", nil, 1, Ack, false},
		{"a duplicate derived event id means already done", fmt.Errorf("append: %w", eventstore.ErrDuplicateEvent), 2, Ack, false},
		{"a deleted trip leaves nothing to record", &trip.Error{Code: trip.CodeNotFound}, 1, Ack, false},
		{"an unreadable job is dropped", fmt.Errorf("%w: no trip", job.ErrInvalidJob), 1, Drop, false},
		{"a permanent error fails at once", Permanent(errors.New("empty route")), 1, Fail, false},
		{"a refused result fails at once", &trip.Error{Code: trip.CodeInvalidArgument}, 1, Fail, false},
		{"a non-retryable fetch failure fails at once", fetchErr{retry: false}, 1, Fail, false},
		{"a retryable fetch failure is retried", fetchErr{retry: true}, 1, Retry, false},
		{"a transient error is retried", transient, 1, Retry, false},
		{"a transient error on the last delivery fails, retryable", transient, 5, Fail, true},
		{"a cancelled job on the last delivery is not failed", context.Canceled, 5, Retry, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			d := Settle(c.err, c.delivered, 5)
			require.Equal(t, c.want, d.Action, d.Action.String())
			require.Equal(t, c.retryable, d.Retryable)
			if d.Action == Retry {
				require.Positive(t, d.Delay)
			}
		})
	}

	t.Run("retry delays grow and are capped at 30 s", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, time.Second, retryDelay(1))
		require.Equal(t, 2*time.Second, retryDelay(2))
		require.Equal(t, 8*time.Second, retryDelay(4))
		require.Equal(t, 30*time.Second, retryDelay(40))
	})
}

func TestDerivedID(t *testing.T) {
	t.Parallel()
	t.Run("a redelivery derives the same ids and other steps others", func(t *testing.T) {
		t.Parallel()
		req := eventstoreID(1)
		require.Equal(t, DerivedID(req, "final", 0), DerivedID(req, "final", 0))
		require.NotEqual(t, DerivedID(req, "final", 0), DerivedID(req, "final", 1))
		require.NotEqual(t, DerivedID(req, "final", 0), DerivedID(req, "geometry", 0))
		require.NotEqual(t, DerivedID(req, "final", 0), DerivedID(eventstoreID(2), "final", 0))
	})
}
