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
// every reader waiting on it wakes once and takes the next. It counts its
// signals (Generation), so that a wake-up channel can be handed out for a
// moment already past (NotifySince). The zero value is ready to use.
type Broadcast struct {
	mu  sync.Mutex
	ch  chan struct{}
	gen uint64
}

// Notify returns the channel the next Signal closes.
func (b *Broadcast) Notify() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.current()
}

// Signal wakes everyone holding the current channel.
func (b *Broadcast) Signal() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ch != nil {
		close(b.ch)
	}
	b.ch = make(chan struct{})
	b.gen++
}

// Generation is the number of signals so far.
func (b *Broadcast) Generation() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.gen
}

// NotifySince is Notify for a reader that looked at generation g and has
// not waited since: the channel the next Signal closes when there has been
// no signal after g, else one that is closed already, since what those
// signals announced may have come after the reader looked.
func (b *Broadcast) NotifySince(g uint64) <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.gen == g {
		return b.current()
	}
	return closed
}

// current is the channel the next Signal closes; b.mu is held.
func (b *Broadcast) current() chan struct{} {
	if b.ch == nil {
		b.ch = make(chan struct{})
	}
	return b.ch
}

// closed is a channel closed for good, for a wake-up that has already
// happened.
var closed = func() chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}()
