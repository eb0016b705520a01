package trip

import (
	"errors"
	"fmt"
	"strings"
)

// Code is the machine-readable class of a refusal, from the error list of
// MCP §8, so the API's ErrorInfo and the MCP tool errors carry the same word
// without a translation table per command.
type Code string

// The codes a trip decision can refuse with.
const (
	// CodeInvalidArgument: the command is malformed; Error.Field names the
	// argument.
	CodeInvalidArgument Code = "invalid_argument"
	// CodeNotFound: the trip (or the thing addressed in it) does not exist.
	CodeNotFound Code = "not_found"
	// CodeVersionConflict: the caller read another trip version;
	// Error.CurrentVersion says which one is current.
	CodeVersionConflict Code = "version_conflict"
	// CodePreconditionFailed: the write needs something that is still being
	// computed (or failed); Error.Awaiting says what.
	CodePreconditionFailed Code = "precondition_failed"
	// CodeLocked: the trip has started (startDate <= today UTC) and refuses
	// structural writes.
	CodeLocked Code = "locked"
	// CodeConflict: the write contradicts the trip's state (already shared,
	// accommodation no longer offered, trip already exists).
	CodeConflict Code = "conflict"
	// CodeAlreadyRunning: an analysis is already running.
	CodeAlreadyRunning Code = "already_running"
)

// Error is every refusal of Decide. Callers match the class with
// errors.Is(err, ErrLocked) (or a named sentinel such as
// ErrUnsupportedSourceURL, which also matches its Reason) and read the
// details with errors.As. Messages are written by Roadbook and never quote
// third-party text or unbounded caller input.
type Error struct {
	// Code is the class of the refusal.
	Code Code
	// Reason is a stable, finer machine word inside the class (e.g.
	// "unsupported_source_url", "min_stages"); empty when the code says it all.
	Reason string
	// Field names the offending argument for CodeInvalidArgument, in the
	// API's camelCase spelling (e.g. "maxDistancePerDay").
	Field string
	// CurrentVersion is the trip version now, for CodeVersionConflict.
	CurrentVersion int64
	// Awaiting is the computation a CodePreconditionFailed write waits for,
	// so the caller can be pointed at the call that unblocks it.
	Awaiting Computation
	// Message is a human-readable sentence.
	Message string
}

// Error renders the code, the field when there is one and the message.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(string(e.Code))
	if e.Field != "" {
		b.WriteString(" (" + e.Field + ")")
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	return b.String()
}

// Is matches a target *Error by code, and by reason and field when the target
// names them, so the class sentinels (ErrLocked) match every refusal of their
// class and the named sentinels (ErrUnsupportedSourceURL) only their own.
func (e *Error) Is(target error) bool {
	var t *Error
	if !errors.As(target, &t) {
		return false
	}
	if t.Code != e.Code {
		return false
	}
	if t.Reason != "" && t.Reason != e.Reason {
		return false
	}
	return t.Field == "" || t.Field == e.Field
}

// Class sentinels: one per code, for errors.Is.
var (
	// ErrInvalidArgument matches every invalid-argument refusal.
	ErrInvalidArgument = &Error{Code: CodeInvalidArgument}
	// ErrNotFound matches every not-found refusal.
	ErrNotFound = &Error{Code: CodeNotFound}
	// ErrVersionConflict matches every version conflict.
	ErrVersionConflict = &Error{Code: CodeVersionConflict}
	// ErrPreconditionFailed matches every precondition refusal.
	ErrPreconditionFailed = &Error{Code: CodePreconditionFailed}
	// ErrLocked matches every refusal of a started trip.
	ErrLocked = &Error{Code: CodeLocked}
	// ErrConflict matches every conflict.
	ErrConflict = &Error{Code: CodeConflict}
	// ErrAlreadyRunning matches a refused analysis request.
	ErrAlreadyRunning = &Error{Code: CodeAlreadyRunning}
)

// Named sentinels: refusals a caller may want to tell apart inside a class.
var (
	// ErrUnsupportedSourceURL: the URL matches none of the anchored source
	// patterns of DOMAIN §2 (Komoot tour or collection, Strava route,
	// RideWithGPS route). The host is never chosen by the user.
	ErrUnsupportedSourceURL = &Error{Code: CodeInvalidArgument, Reason: "unsupported_source_url", Field: "sourceUrl"}
	// ErrMinStages: a delete would leave fewer than 2 stages.
	ErrMinStages = &Error{Code: CodeInvalidArgument, Reason: "min_stages"}
	// ErrAdjacentRestDay: a rest day next to an existing rest day.
	ErrAdjacentRestDay = &Error{Code: CodeInvalidArgument, Reason: "adjacent_rest_day"}
	// ErrAlreadyShared: the trip already has an active share link.
	ErrAlreadyShared = &Error{Code: CodeConflict, Reason: "already_shared"}
	// ErrNotOffered: the accommodation chosen is not (or no longer) offered
	// for the stage.
	ErrNotOffered = &Error{Code: CodeConflict, Reason: "not_offered"}
	// ErrTripExists: a create or duplicate aimed at a stream that already
	// holds a trip.
	ErrTripExists = &Error{Code: CodeConflict, Reason: "trip_exists"}
)

// invalid builds an invalid-argument refusal naming the field.
func invalid(field, format string, args ...any) *Error {
	return &Error{Code: CodeInvalidArgument, Field: field, Message: fmt.Sprintf(format, args...)}
}

// invalidReason is invalid with a named reason.
func invalidReason(reason, field, format string, args ...any) *Error {
	e := invalid(field, format, args...)
	e.Reason = reason
	return e
}

// Codes lists every code a trip decision can refuse with, so the API's and
// the MCP service's translations can be checked to cover them all.
func Codes() []Code {
	return []Code{CodeInvalidArgument, CodeNotFound, CodeVersionConflict, CodePreconditionFailed, CodeLocked, CodeConflict, CodeAlreadyRunning}
}
