package trip_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/trip"
)

func TestDateText(t *testing.T) {
	t.Parallel()
	t.Run("a date is written as YYYY-MM-DD and read back, the unset date as empty", func(t *testing.T) {
		t.Parallel()
		type holder struct{ Start, End trip.Date }
		in := holder{Start: trip.MustDate("2027-06-14")}
		b, err := json.Marshal(in)
		require.NoError(t, err)
		require.JSONEq(t, `{"Start":"2027-06-14","End":""}`, string(b))
		var out holder
		require.NoError(t, json.Unmarshal(b, &out))
		require.Equal(t, in, out)
		require.True(t, out.End.IsZero())
	})
	t.Run("text that is not a calendar date is refused", func(t *testing.T) {
		t.Parallel()
		var d trip.Date
		require.Error(t, d.UnmarshalText([]byte("14.06.2027")))
		require.True(t, d.IsZero(), "a refused date changes nothing")
	})
}
