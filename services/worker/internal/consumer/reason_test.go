package consumer

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestUnavailableReason(t *testing.T) {
	t.Parallel()
	t.Run("a provider's own reason is recorded, even wrapped", func(t *testing.T) {
		t.Parallel()
		err := fmt.Errorf("analyze: %w", &ProviderUnavailableError{Reason: "overpass: circuit breaker open"})
		require.Equal(t, "overpass: circuit breaker open", unavailableReason(err))
	})
	t.Run("any other error gives the generic reason, never its text", func(t *testing.T) {
		t.Parallel()
		err := errors.New(`overpass said: <html>runtime error: "Query timed out"</html>`)
		require.Equal(t, "the data provider failed", unavailableReason(err))
		require.Equal(t, "the data provider failed", unavailableReason(&ProviderUnavailableError{}), "an empty reason says nothing")
	})
}
