package export

import (
	"errors"
	"fmt"
)

// ErrInvalidInput is matched (errors.Is) by every *InputError, so a caller
// can map any bad-input refusal to one answer without listing fields.
var ErrInvalidInput = errors.New("export: invalid input")

// ErrNoPoints says the trip (or the chosen stage) has no route points: a
// track or FIT course without a single position would load as an empty,
// useless course on a device, so it is refused rather than written.
var ErrNoPoints = errors.New("export: no route points to export")

// ErrNoSuchStage says a stage export named a position outside the trip's
// stages.
var ErrNoSuchStage = errors.New("export: no such stage")

// InputError names the exact field of the input that is wrong and why, so a
// bad mapping in the caller is found from the message alone (for example
// "stages[2].points[14].lat: 91 is outside [-90, 90]").
type InputError struct {
	// Field is the path of the offending field, e.g. "stages[0].distance_m".
	Field string
	// Problem says what is wrong with its value.
	Problem string
}

// Error implements error.
func (e *InputError) Error() string {
	return fmt.Sprintf("export: %s: %s", e.Field, e.Problem)
}

// Is makes errors.Is(err, ErrInvalidInput) true for every InputError.
func (e *InputError) Is(target error) bool { return target == ErrInvalidInput }

// ErrNoStages says the trip has no stages, so there is no day to write a
// roadbook line for.
var ErrNoStages = errors.New("export: the trip has no stages")
