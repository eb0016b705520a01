package planner

import (
	"errors"
	"fmt"
	"time"
)

// InvalidError is a request the planner refuses before the domain sees it
// (an upload with too few points, a stage index out of range, an export
// format it does not know), naming the field by the API's JSON name.
type InvalidError struct {
	Field   string
	Message string
}

// Error implements error.
func (e *InvalidError) Error() string { return e.Field + ": " + e.Message }

// RateLimitedError is a call over a per-caller limit.
type RateLimitedError struct {
	RetryAfter time.Duration
}

// Error implements error.
func (e *RateLimitedError) Error() string {
	return fmt.Sprintf("too many calls; retry in %s", e.RetryAfter.Round(time.Second))
}

// ErrUnauthenticated is a use case called without a verified caller in its
// context: a wiring mistake of the caller, never a user's.
var ErrUnauthenticated = errors.New("planner: no authenticated user")
