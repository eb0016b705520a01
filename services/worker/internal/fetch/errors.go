package fetch

import (
	"errors"
	"fmt"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/services/worker/internal/upstream"
)

// Sentinel errors, one per import failure code (DOMAIN §2), matched with
// errors.Is on the [*Error] every Fetch returns.
var (
	// ErrRouteFetchFailed: the source refused (403/404), the page is not
	// usable, or the request was refused by the SSRF guard, a redirect rule
	// or the body bound. Not retryable.
	ErrRouteFetchFailed = errors.New("route fetch failed")
	// ErrEmptyRoute: the source's route has no points.
	ErrEmptyRoute = errors.New("empty route")
	// ErrInvalidGPX: the Strava GPX could not be read.
	ErrInvalidGPX = errors.New("invalid GPX")
	// ErrRouteTooLarge: the route exceeds the reader's size bound.
	ErrRouteTooLarge = errors.New("route too large")
	// ErrSourceUnavailable: timeout, 5xx, 429 or an open breaker. Retryable.
	ErrSourceUnavailable = errors.New("route source unavailable")
	// ErrUnsupportedSource: the trip.Source is not a URL source this
	// package fetches, or its id is not a number.
	ErrUnsupportedSource = errors.New("unsupported route source")
)

// Error is every failure of Fetch and FetchTours. It satisfies the
// consumer's ImportFailure (ImportCode, Retryable, HTTPStatus) without
// importing it.
type Error struct {
	// Source and ID say what was being fetched.
	Source trip.SourceKind
	ID     string
	// Code is the DOMAIN §2 import failure code.
	Code trip.ImportErrorCode
	// Reason says what happened, in words for the trip's owner.
	Reason string
	// Status is the source's HTTP status, 0 when it answered none.
	Status int
	// Retry says whether a later attempt may succeed.
	Retry bool
	kind  error
	cause error
}

// Error implements error.
func (e *Error) Error() string {
	return fmt.Sprintf("fetch %s %s: %s: %s", e.Source, e.ID, e.Code, e.Reason)
}

// Unwrap exposes the sentinel and the cause.
func (e *Error) Unwrap() []error {
	if e.cause != nil {
		return []error{e.kind, e.cause}
	}
	return []error{e.kind}
}

// ImportCode is the code the import failure event records.
func (e *Error) ImportCode() trip.ImportErrorCode { return e.Code }

// Retryable says whether redelivery may help.
func (e *Error) Retryable() bool { return e.Retry }

// HTTPStatus is the source's status, 0 when none.
func (e *Error) HTTPStatus() int { return e.Status }

// classify is the one place errors from upstream and the route readers
// become import failures. gpx says the payload was a GPX document (Strava),
// whose read errors are invalid_gpx rather than an unusable page.
func classify(kind trip.SourceKind, id string, err error, gpx bool) error {
	if err == nil {
		return nil
	}
	var fe *Error
	if errors.As(err, &fe) {
		return err
	}
	e := &Error{Source: kind, ID: id, cause: err}
	var ue *upstream.Error
	var re *route.ReadError
	switch {
	case errors.As(err, &ue):
		e.Status, e.Reason = ue.Status, ue.Reason
		switch {
		case errors.Is(err, upstream.ErrRateLimited), errors.Is(err, upstream.ErrUnavailable):
			e.Code, e.kind, e.Retry = trip.ImportSourceUnavailable, ErrSourceUnavailable, true
		default:
			e.Code, e.kind = trip.ImportRouteFetchFailed, ErrRouteFetchFailed
		}
	case errors.Is(err, route.ErrEmptyRoute):
		e.Code, e.kind, e.Reason = trip.ImportEmptyRoute, ErrEmptyRoute, "the route has no points"
	case errors.Is(err, route.ErrTooLarge):
		e.Code, e.kind, e.Reason = trip.ImportRouteTooLarge, ErrRouteTooLarge, "the route is too large"
	case errors.As(err, &re) && gpx:
		e.Code, e.kind, e.Reason = trip.ImportInvalidGPX, ErrInvalidGPX, re.Reason
	case errors.As(err, &re):
		e.Code, e.kind, e.Reason = trip.ImportRouteFetchFailed, ErrRouteFetchFailed, "the page holds no usable route: "+re.Reason
	default:
		e.Code, e.kind, e.Reason, e.Retry = trip.ImportSourceUnavailable, ErrSourceUnavailable, "unexpected failure", true
	}
	return e
}
