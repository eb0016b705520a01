package tripstore

import (
	"strings"

	"github.com/google/uuid"

	"github.com/roadbook/roadbook/eventstore"
)

// streamPrefix names trip streams, so one store can hold other aggregates.
const streamPrefix = "trip-"

// StreamID is the event stream of a trip id.
func StreamID(tripID uuid.UUID) eventstore.StreamID {
	return eventstore.StreamID(streamPrefix + tripID.String())
}

// TripID is the trip id of a trip stream; ok is false for other streams.
func TripID(stream eventstore.StreamID) (uuid.UUID, bool) {
	rest, found := strings.CutPrefix(string(stream), streamPrefix)
	if !found {
		return uuid.Nil, false
	}
	id, err := uuid.Parse(rest)
	return id, err == nil
}
