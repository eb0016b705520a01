package stream

import "time"

// DefaultEventsDuplicates is EVENTS' dedup window, and MinEventsDuplicates
// the shortest Validate accepts.
//
// EVENTS does not rely on its window for anything. A message the relay
// hands on a second time — after a crash or a lost lease (the next holder
// starts from the last saved cursor) or while it retries a batch through a
// fault — never reaches the stream: the relay reads the stream's last
// message before it starts and after every failure, leaves out what the
// stream already holds, and publishes each EVENTS message expecting the
// sequence before it, so a copy or a gap is refused by the server
// (package relay, eventsHead). That holds however long the fault lasted,
// which no window did: with the 5- and 10-minute windows this replaced, a
// relay dying during a PostgreSQL outage longer than the window, or a
// half-stored batch stalled past it, could store events twice.
//
// The window is kept short because it is what EVENTS' dedup state costs.
// The server keeps an entry of about 130 B on its heap per message id for
// the window (BenchmarkServerHeap) and frees them only when its array of
// entries has become three times longer than the window's share of it
// (nats-server's purgeMsgIds): the state grows for about three windows,
// then cycles between one and three windows' worth (TestServerHeapOverTime
// with ROADBOOK_HEAP_WINDOW=30s: the live heap held between 14.1 and 16.3
// MiB from 70 s on). With 5 minutes it rose for a quarter of an hour, so
// the NATS server's memory was not flat within a 10-minute soak. Thirty
// seconds still drops an exact copy a client sends again at once (the
// messages keep their Nats-Msg-Id, the event id), at a few MB at most.
//
// JOBS' window is short for the same reason (DefaultJobsDuplicates below).
const (
	DefaultEventsDuplicates = 30 * time.Second
	MinEventsDuplicates     = time.Second
)

// DefaultJobsDuplicates is JOBS' dedup window, and MinJobsDuplicates the
// shortest Validate accepts.
//
// A job message is published again with the events the relay hands on
// again, and JOBS' window is what drops the copy: a work queue cannot be
// read back as EVENTS is (an acked job is gone), so the relay cannot tell
// what it already holds. What a restart publishes again was first
// published at most the relay's cursor interval (default 1 s, at most
// relay.MaxCursorInterval, a tenth of MinJobsDuplicates) plus the lease
// TTL (10 s) and an ack timeout (10 s) earlier, so two minutes covers it
// several times over. A copy the window misses — a relay dying during a
// PostgreSQL or JetStream outage of minutes — never records a second
// result: a result carries the event ids the first one derived
// (consumer.DerivedID), which the store refuses as duplicates. For the
// awaited jobs it costs one load and an ack, as their handlers first ask
// the folded trip whether the request is still open (an import or an
// analysis already answered, stages no longer requested); an
// accommodations search or a detour is done again.
//
// With the ten minutes this replaced, the server kept every job id that
// long and frees ids only once about three windows' worth have piled up
// (purgeMsgIds), so its heap rose through the whole 10-minute soak. With
// two minutes, TestServerHeapOverTime (10 minutes at 300 events/s) held
// the live heap level from the second minute on (docs/CAPACITY.md §4).
const (
	DefaultJobsDuplicates = 2 * time.Minute
	MinJobsDuplicates     = time.Minute
)
