package eventstore

// Notifier is implemented by backends that can wake feed readers in-process
// when an append commits, so a relay tails the feed without busy polling.
// It is separate from Store because it reaches only readers in the same
// process; feedwake carries it to the others over core NATS (ARCHITECTURE
// §4: no NOTIFY in the append transaction, which would serialise commits).
type Notifier interface {
	// Notify returns a channel that is closed at the next commit of an
	// append through this store value. Call it again after each wake-up
	// (and before reading the feed, so no commit falls in between).
	Notify() <-chan struct{}
}
