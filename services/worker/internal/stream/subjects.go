package stream

import (
	"fmt"
	"hash/fnv"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"
)

// eventsTransform stores each EVENTS message under one of EventsPartitions
// subjects chosen by its trip, events.trip.<partition>, although the relay
// publishes it on events.trip.<id>.<ShortType> (job.EventSubject).
//
// A file-backed stream keeps an in-memory index entry for every distinct
// subject it holds, for as long as a message on it is kept (24 h on
// EVENTS), plus one per subject in each block it wrote in the last two
// minutes. Stored as published, a trip's fifteen events over about ten
// types gave EVENTS ten entries per trip (BenchmarkServerHeap: about 1,800
// KiB per 10,000 events); stored under the trip, one entry per trip still
// grew for a whole day of trips (the sixth session's soak: the index went
// 0.5 → 5.1 MB in ten minutes, docs/CAPACITY.md §4). Under a fixed number
// of partitions the index is EventsPartitions entries however many trips
// the day brings, so the server's memory for it is flat.
//
// Nothing reads a trip's events from the stored subject: WatchTrip
// subscribes with core NATS, whose subscribers receive the subject as
// published (the transform applies to what the stream stores only); the
// audit reads every message by its Nats-Msg-Id; the relay reads the
// stream's last message; the type and the stream are in the
// Roadbook-Event-Type and Roadbook-Stream headers. A stream reader that
// wants one trip still can: it filters on StoredSubject(trip), a
// 1/EventsPartitions share of the stream, and keeps the messages whose
// Roadbook-Stream names the trip.
func eventsTransform() *jetstream.SubjectTransformConfig {
	return &jetstream.SubjectTransformConfig{Source: EventsPublishedSubjects, Destination: EventsStoredSubject}
}

// EventsPartitions is how many subjects EVENTS stores its messages under.
const EventsPartitions = 256

// EventsPublishedSubjects matches what the relay publishes on EVENTS, and
// EventsStoredSubject is what EVENTS stores it under: a subject mapping
// whose partition function hashes the first wildcard, the trip id
// (nats-server's FNV-1a, modulo EventsPartitions; StoredSubject computes
// the same).
const (
	EventsPublishedSubjects = "events.trip.*.*"
	EventsStoredSubject     = "events.trip.{{partition(256,1)}}"
)

// StoredSubject is the subject EVENTS stores trip's events under: the
// filter a stream reader of one trip uses. It is the server's partition
// function (FNV-1a 32 of the trip id as published, modulo
// EventsPartitions); TestEventsSubjects checks it against the server.
func StoredSubject(trip uuid.UUID) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(trip.String()))
	return fmt.Sprintf("events.trip.%d", h.Sum32()%EventsPartitions)
}
