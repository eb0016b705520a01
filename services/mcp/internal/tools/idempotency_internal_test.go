package tools

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestDerivedIdempotencyKey(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	key := func(t *testing.T, args string) (string, error) {
		t.Helper()
		c := &call{env: &Env{Clock: func() time.Time { return at }}, tool: &Tool{Name: "rename_trip"},
			caller: Caller{UserID: "ann"}, args: json.RawMessage(args)}
		k, err := c.idempotencyKey(nil)
		if err != nil {
			return "", err
		}
		return *k, nil
	}
	refused := func(t *testing.T, args string) {
		t.Helper()
		_, err := key(t, args)
		var te *Error
		require.True(t, errors.As(err, &te), "%q must be refused, got %v", args, err)
		require.Equal(t, CodeInvalidArgument, te.Code)
	}
	t.Run("the same call with its keys reordered is the same key", func(t *testing.T) {
		t.Parallel()
		a, err := key(t, `{"tripId":"t-1","name":"Alps","idempotencyKey":null}`)
		require.NoError(t, err)
		b, err := key(t, `{ "name": "Alps", "tripId": "t-1" }`)
		require.NoError(t, err)
		require.Equal(t, a, b)
	})
	t.Run("a duplicate top-level key is refused, not read as its last value", func(t *testing.T) {
		t.Parallel()
		refused(t, `{"tripId":"t-1","name":"Jura","name":"Alps"}`)
		_, err := key(t, `{"tripId":"t-1","name":"Alps"}`)
		require.NoError(t, err, "the document it would have collided with still has its key")
	})
	t.Run("a duplicate nested key is refused", func(t *testing.T) {
		t.Parallel()
		refused(t, `{"tripId":"t-1","settings":{"dailyKm":80,"dailyKm":120}}`)
	})
	t.Run("invalid UTF-8 is refused, not turned into U+FFFD", func(t *testing.T) {
		t.Parallel()
		refused(t, "{\"tripId\":\"t-1\",\"n\xffame\":\"Alps\"}")
		refused(t, "{\"tripId\":\"t-1\",\"name\":\"Al\xffps\"}")
		refused(t, `{"tripId":"t-1","name":"Al\ud800ps"}`)
		_, err := key(t, "{\"tripId\":\"t-1\",\"n\uFFFDame\":\"Alps\"}")
		require.NoError(t, err, "the document an invalid key would have been repaired into")
	})
	t.Run("a confirmation digest refuses the same documents", func(t *testing.T) {
		t.Parallel()
		c := &call{args: json.RawMessage(`{"tripId":"t-1","confirmationToken":"x","confirmationToken":"y"}`)}
		_, err := c.argDigest("confirmationToken")
		require.Error(t, err)
	})
}
