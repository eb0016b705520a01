package stream

import "github.com/nats-io/nats.go/jetstream"

// eventsTransform stores each EVENTS message under its trip's subject,
// events.trip.<id>, although the relay publishes it on
// events.trip.<id>.<ShortType> (job.EventSubject).
//
// A file-backed stream keeps an in-memory index entry for every distinct
// subject it holds, for as long as a message on it is kept (24 h on
// EVENTS), plus one per subject in each block it wrote in the last two
// minutes. A trip's fifteen events span about ten types, so the published
// subjects gave EVENTS ten entries per trip: about 190 B on the server's
// heap per event, more than half of all it kept per event, growing for a
// whole day of events (BenchmarkServerHeap: about 1,800 KiB per 10,000
// events; stored under the trip, about 70 KiB).
//
// Nothing reads the type from the stored subject: WatchTrip subscribes with
// core NATS, whose subscribers receive the subject as published (the
// transform applies to what the stream stores only); the audit reads every
// message by its Nats-Msg-Id; the type is also in the Roadbook-Event-Type
// header. A stream reader can still select one trip (events.trip.<id>).
func eventsTransform() *jetstream.SubjectTransformConfig {
	return &jetstream.SubjectTransformConfig{Source: EventsPublishedSubjects, Destination: EventsStoredSubject}
}

// EventsPublishedSubjects matches what the relay publishes on EVENTS, and
// EventsStoredSubject is what EVENTS stores it under (a subject mapping:
// the first wildcard is the trip id).
const (
	EventsPublishedSubjects = "events.trip.*.*"
	EventsStoredSubject     = "events.trip.{{wildcard(1)}}"
)
