package job

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/roadbook/roadbook/eventstore"

	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
)

// considered are the event types For looks into: the cases of its switch.
// Every other type maps to no job whatever it holds.
var considered = typeSet(
	&eventsv1.TripCreated{}, &eventsv1.RouteImported{}, &eventsv1.TripSettingsUpdated{},
	&eventsv1.TripDuplicated{}, &eventsv1.AnalysisRequested{}, &eventsv1.AccommodationsRequested{},
	&eventsv1.WaypointAdded{},
)

// Considers reports whether For can map an event of type typ (its full
// protobuf name, eventstore.RecordedEvent.Type) to a job. The relay reads
// the feed undecoded and decodes only these: an event of any other type
// needs no work, whatever its payload. A case added to For's switch must be
// added here too (TestConsidersEveryTypeForMaps checks it).
func Considers(typ string) bool { return considered[typ] }

// Decoded is ev ready for For: an event read undecoded (its stored JSON in
// Data, eventstore.FeedPager) gets its payload decoded when For looks into
// its type, and is returned as is otherwise. A payload that does not decode
// is an error, never "no job": the caller must not move past it.
func Decoded(ev eventstore.RecordedEvent) (eventstore.RecordedEvent, error) {
	if ev.Payload != nil || !Considers(ev.Type) {
		return ev, nil
	}
	p, err := eventstore.DecodePayload(ev.Type, ev.Data)
	if err != nil {
		return ev, fmt.Errorf("job: decode %s of %s: %w", ev.Type, ev.StreamID, err)
	}
	ev.Payload = p
	return ev, nil
}

// TypeName is the event type under which m is stored and relayed
// (eventstore.RecordedEvent.Type): its full protobuf name. Tables keyed by
// event type use it, so they work on events read undecoded too.
func TypeName(m proto.Message) string { return string(m.ProtoReflect().Descriptor().FullName()) }

func typeSet(ms ...proto.Message) map[string]bool {
	out := make(map[string]bool, len(ms))
	for _, m := range ms {
		out[TypeName(m)] = true
	}
	return out
}
