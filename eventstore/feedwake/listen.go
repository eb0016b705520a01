package feedwake

import (
	"errors"
	"fmt"
	"sync"

	"github.com/nats-io/nats.go"
)

// Listener turns the announcements of other processes into an
// eventstore.Notifier: the relay waits on it beside its store's own.
type Listener struct {
	sub    *nats.Subscription
	ignore string

	mu   sync.Mutex
	wake chan struct{}
}

// Listen subscribes to Subject on nc. Announcements whose origin is ignore
// (this process's Announcer of the store the reader already watches) wake
// nobody.
func Listen(nc *nats.Conn, ignore string) (*Listener, error) {
	if nc == nil {
		return nil, errors.Join(ErrInvalid, errors.New("feedwake: the NATS connection is nil"))
	}
	l := &Listener{ignore: ignore, wake: make(chan struct{})}
	sub, err := nc.Subscribe(Subject, func(m *nats.Msg) {
		if string(m.Data) != l.ignore {
			l.signal()
		}
	})
	if err != nil {
		return nil, fmt.Errorf("feedwake: subscribe to %s: %w", Subject, err)
	}
	// Announcements are hints: a slow reader may lose some, never block
	// the connection's other subscriptions.
	if err := sub.SetPendingLimits(1024, 64*1024); err != nil {
		_ = sub.Unsubscribe()
		return nil, fmt.Errorf("feedwake: %w", err)
	}
	l.sub = sub
	return l, nil
}

// Notify implements eventstore.Notifier: the channel closes at the next
// announcement from another origin. Take it before reading the feed, as
// with the store's own.
func (l *Listener) Notify() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.wake
}

func (l *Listener) signal() {
	l.mu.Lock()
	close(l.wake)
	l.wake = make(chan struct{})
	l.mu.Unlock()
}

// Close unsubscribes.
func (l *Listener) Close() error { return l.sub.Unsubscribe() }
