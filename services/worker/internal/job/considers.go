package job

import (
	"google.golang.org/protobuf/proto"

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

func typeSet(ms ...proto.Message) map[string]bool {
	out := make(map[string]bool, len(ms))
	for _, m := range ms {
		out[string(m.ProtoReflect().Descriptor().FullName())] = true
	}
	return out
}
