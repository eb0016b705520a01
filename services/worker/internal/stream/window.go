package stream

import "time"

// MinEventsDuplicates is the shortest EVENTS dedup window Validate accepts,
// and the default. The window exists for one thing: a message the relay
// hands on a second time must arrive while JetStream still remembers the
// first copy's Nats-Msg-Id. The relay hands a message on again in two ways:
//
//   - It dies or loses its lease: the next holder starts from the last saved
//     cursor. The relay saves it at least every CursorInterval (at most
//     relay.MaxCursorInterval, 1 minute; 1 s by default), the next holder
//     takes over within the lease TTL (10 s by default) and a batch's acks
//     take at most the relay's AckTimeout (10 s). The second copy comes at
//     most about 1 min 20 s after the first with the longest interval
//     accepted, about 21 s with the defaults.
//   - A batch whose acks failed or did not come (NATS restarting, a stream
//     leader elected after a partition, a full JOBS queue) is published
//     again every few seconds (backoff up to 5 s) until it goes through: the
//     copies come while the fault lasts. The chaos runs' longest fault is a
//     60-second partition.
//
// Five minutes is five times the longest cursor interval, more than three
// times the worst accepted restart, five times the chaos partition and
// fourteen times a restart with the defaults. What no finite window covers
// (10 minutes did not either): a relay that dies during a PostgreSQL outage
// longer than the window (its cursor save waits for PostgreSQL), or a fault
// that stalls the relay longer than the window after part of a batch was
// stored.
//
// The window bounds what the dedup state costs, though not at once. The
// server keeps an entry of about 130 B on its heap per message id
// (BenchmarkServerHeap), drops ids from its map when they leave the window,
// but frees them only when its array of entries has become three times
// longer than the window's share of it (nats-server's purgeMsgIds): the
// state grows for about three windows, then cycles between one and three
// windows' worth of ids (TestServerHeapOverTime with
// ROADBOOK_HEAP_WINDOW=30s: up 70 s, down at 80, and again). EVENTS carries
// about four messages for each JOBS one. At the soak's 120 events/s the
// EVENTS ids of a 10-minute window weigh about 9.5 MB, about 20 MB at the
// top of the cycle, which starts after half an hour; 5 minutes halves
// both and starts the cycle after about a quarter of an hour. A 10-minute run
// frees no id with either. JOBS keeps its 10 minutes (Options.Duplicates): a
// quarter of the messages, and a job done twice costs a computation where an
// event handed on twice costs a watcher a no-op refresh.
const MinEventsDuplicates = 5 * time.Minute
