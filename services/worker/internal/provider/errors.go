package provider

import (
	"errors"

	"github.com/roadbook/roadbook/services/worker/internal/upstream"
)

// Provider-level sentinels, beside the upstream ones a call may return.
var (
	// ErrBadAnswer: the provider answered 2xx in a shape its documentation
	// does not describe.
	ErrBadAnswer = errors.New("provider: unexpected answer")
	// ErrNoRoute: the routing endpoint found no route between the points.
	ErrNoRoute = errors.New("provider: no route")
)

// unavailableReason is the one place an error becomes the reason recorded
// with an unavailable rule family: short, stable, no third-party text.
func unavailableReason(provider string, err error) string {
	switch {
	case errors.Is(err, upstream.ErrCircuitOpen):
		return provider + ": circuit breaker open"
	case errors.Is(err, upstream.ErrRateLimited):
		return provider + ": rate limited"
	case errors.Is(err, upstream.ErrUnavailable):
		return provider + ": unavailable"
	case errors.Is(err, ErrBadAnswer):
		return provider + ": unexpected answer"
	case errors.Is(err, upstream.ErrBodyTooLarge):
		return provider + ": answer too large"
	default:
		return provider + ": request failed"
	}
}
