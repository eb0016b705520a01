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
// JOBS keeps its 10 minutes (Options.Duplicates): a job message is
// published again with the events the relay hands on again, and its
// window is what drops it.
const (
	DefaultEventsDuplicates = 30 * time.Second
	MinEventsDuplicates     = time.Second
)
