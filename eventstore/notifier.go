package eventstore

import "sync"

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

// Broadcast is the wake-up behind every Notifier: Notify hands out the
// current channel, Signal closes it and puts a fresh one in its place, so
// every reader waiting on it wakes once and takes the next. The zero value
// is ready to use.
type Broadcast struct {
	mu sync.Mutex
	ch chan struct{}
}

// Notify returns the channel the next Signal closes.
func (b *Broadcast) Notify() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ch == nil {
		b.ch = make(chan struct{})
	}
	return b.ch
}

// Signal wakes everyone holding the current channel.
func (b *Broadcast) Signal() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ch != nil {
		close(b.ch)
	}
	b.ch = make(chan struct{})
}
