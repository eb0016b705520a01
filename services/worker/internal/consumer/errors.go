package consumer

import (
	"errors"
	"fmt"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
)

// ErrPermanent is matched by every *PermanentError: retrying cannot help,
// so the failure is recorded at once.
var ErrPermanent = errors.New("consumer: permanent failure")

// PermanentError is a failure retrying cannot fix (a route that is not a
// route, settings the engine refuses, a source that answered 404). Import
// failures carry the DOMAIN §2 code and the source's HTTP status.
type PermanentError struct {
	// ImportCode classifies an import failure; empty for other kinds.
	ImportCode trip.ImportErrorCode
	HTTPStatus int
	Err        error
}

// Error implements error.
func (e *PermanentError) Error() string {
	if e.ImportCode != "" {
		return fmt.Sprintf("%s: %v", e.ImportCode, e.Err)
	}
	return e.Err.Error()
}

// Unwrap exposes the cause.
func (e *PermanentError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrPermanent) true.
func (e *PermanentError) Is(target error) bool { return target == ErrPermanent }

// Permanent wraps err as a permanent failure.
func Permanent(err error) error { return &PermanentError{Err: err} }

// ImportFailure is what the route fetcher's errors may implement so the
// import records the DOMAIN §2 code and the source's status; the fetcher
// package's error types need not import this one.
type ImportFailure interface {
	error
	// ImportCode is the DOMAIN §2 code (route_fetch_failed, empty_route…).
	ImportCode() trip.ImportErrorCode
	// Retryable says whether a later attempt may succeed (a 503, a
	// timeout, an open breaker).
	Retryable() bool
	// HTTPStatus is the source's status, 0 when it answered none.
	HTTPStatus() int
}

// isDuplicate reports a refused derived event id: the step was recorded by
// an earlier delivery.
func isDuplicate(err error) bool { return errors.Is(err, eventstore.ErrDuplicateEvent) }

// ProviderUnavailableError is a provider saying why it could not evaluate
// its families ("overpass: circuit breaker open", "the trip has no dates to
// forecast"): the reason is recorded with each of them, for the rider and
// the agent to read. Any other error records a generic reason, since its
// text may carry a third party's words.
type ProviderUnavailableError struct {
	// Reason is Roadbook's own words, short and stable.
	Reason string
}

// Error implements error.
func (e *ProviderUnavailableError) Error() string { return "provider unavailable: " + e.Reason }

// unavailableReason is the one place a provider's error becomes the reason
// recorded with its families.
func unavailableReason(err error) string {
	if ue, ok := errors.AsType[*ProviderUnavailableError](err); ok && ue.Reason != "" {
		return ue.Reason
	}
	return "the data provider failed"
}
