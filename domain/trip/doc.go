// Package trip is Roadbook's trip aggregate: the rules that decide what a
// command does to a trip, as pure functions over plain domain types.
//
// Decide(state, command, now) returns the events a command produces, or a
// typed *Error; Evolve(state, event) folds one event into the state; Fold
// replays a stream. Events are the generated messages of
// roadbook.events.v1 (package eventsv1), so the API, the workers and the
// store all speak the same stored contract, while State and the commands stay
// plain Go that no wire format can reshape.
//
// Two clocks (ARCHITECTURE §3): State.Version is the trip version, moved only
// by structural writes (settings, the five stage edits, an accommodation
// choice, delete) and checked on every caller write; State.StreamVersion is
// the number of events folded, the store's compare-and-swap position. Worker
// results carry no version: they are keyed by content (route hash, pacing
// settings hash, stage content hash) and recorded as superseded when that
// content is gone.
//
// Nothing here reads a clock or a random source: the current time is a
// parameter of Decide and randomness (share codes) is an io.Reader inside the
// command, so every rule is testable with fixed inputs.
package trip
