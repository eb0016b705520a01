package route

import (
	"errors"
	"fmt"
)

// Sentinel errors name what kind of bad input a reader refused. Callers match
// them with errors.Is on the *ReadError every reader returns, so the worker can
// turn them into the product's error codes (ErrEmptyRoute becomes EMPTY_ROUTE)
// in one place without parsing messages.
var (
	// ErrDTD: the document carries a document type declaration (or another
	// markup declaration such as <!ENTITY>). GPX never needs one, and refusing
	// it outright is what keeps entity bombs and XXE away from any parser.
	ErrDTD = errors.New("document type declarations are refused")
	// ErrNotGPX: the document is XML (or empty) but its root element is not <gpx>.
	ErrNotGPX = errors.New("not a GPX document")
	// ErrMalformed: the bytes are not well-formed for the format (unclosed or
	// mismatched tags, bad attribute syntax, undefined entities, bad JSON).
	ErrMalformed = errors.New("malformed document")
	// ErrEncoding: the document declares (or starts with a byte-order mark of)
	// a character encoding the reader does not support.
	ErrEncoding = errors.New("unsupported character encoding")
	// ErrCoordinate: a latitude, longitude or elevation is missing, not a
	// number, not finite or out of range.
	ErrCoordinate = errors.New("invalid coordinate")
	// ErrTooLarge: the input is larger than the reader's byte limit.
	ErrTooLarge = errors.New("input too large")
	// ErrEmptyRoute: the input is valid but holds no route points.
	ErrEmptyRoute = errors.New("empty route")
	// ErrNotFound: a platform payload (Komoot page, RideWithGPS body) does not
	// hold the structure the reader looks for.
	ErrNotFound = errors.New("route data not found in payload")
	// ErrCorruptEncoding: bytes handed to DecodePoints are not a point
	// encoding this package wrote (truncated, garbage, unknown version).
	ErrCorruptEncoding = errors.New("corrupt point encoding")
)

// ReadError is the one error type every reader in this package returns for
// bad input: it names the format, the line (for GPX; 0 when the format has no
// useful line) and, in Reason, exactly what is wrong, so the message can be
// shown to the person who uploaded the file. Kind is one of the sentinels
// above and is what errors.Is matches.
type ReadError struct {
	// Format is the reader that refused the input: "gpx", "komoot",
	// "ridewithgps" or "points".
	Format string
	// Line is the 1-based line of the offending markup, or 0.
	Line int
	// Reason says what is wrong in words meant for a person.
	Reason string
	// Kind is the sentinel this error matches with errors.Is.
	Kind error
}

// Error formats the error as "gpx line 12: <reason>".
func (e *ReadError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s line %d: %s", e.Format, e.Line, e.Reason)
	}
	return fmt.Sprintf("%s: %s", e.Format, e.Reason)
}

// Unwrap exposes Kind so errors.Is(err, ErrDTD) and friends work.
func (e *ReadError) Unwrap() error { return e.Kind }
