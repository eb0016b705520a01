package feedwake

import (
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"

	"github.com/roadbook/roadbook/eventstore"
)

// Listener turns the announcements of other processes into an
// eventstore.Notifier: the relay waits on it beside its store's own.
type Listener struct {
	sub    *nats.Subscription
	ignore string
	wake   eventstore.Broadcast
}

// Listen subscribes to Subject on nc. Announcements whose origin is ignore
// (this process's Announcer of the store the reader already watches) wake
// nobody.
func Listen(nc *nats.Conn, ignore string) (*Listener, error) {
	if nc == nil {
		return nil, errors.Join(ErrInvalid, errors.New("feedwake: the NATS connection is nil"))
	}
	l := &Listener{ignore: ignore}
	sub, err := nc.Subscribe(Subject, func(m *nats.Msg) {
		if string(m.Data) != l.ignore {
			l.wake.Signal()
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
func (l *Listener) Notify() <-chan struct{} { return l.wake.Notify() }

// Close unsubscribes.
func (l *Listener) Close() error { return l.sub.Unsubscribe() }
