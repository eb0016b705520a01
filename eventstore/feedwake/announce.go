package feedwake

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"

	"github.com/roadbook/roadbook/eventstore"
)

// Subject is the core NATS subject commits are announced on. One deployment
// shares it: a wake-up a relay did not need costs it one feed read.
const Subject = "roadbook.feed.committed"

// ErrInvalid is matched by every refusal of NewAnnouncer's and Listen's
// arguments.
var ErrInvalid = errors.New("feedwake: invalid argument")

// Announcer publishes on Subject after each burst of commits through one
// store value. Each message carries the announcer's origin, so that a
// Listener in the same process (Listen's ignore) leaves out what its own
// Notifier already told it.
type Announcer struct {
	nc     *nats.Conn
	local  eventstore.Notifier
	origin []byte
	// next is the Notify channel Run waits on first, taken in NewAnnouncer:
	// every commit after NewAnnouncer returns is announced.
	next   <-chan struct{}
	sent   atomic.Int64
	failed atomic.Int64
}

// NewAnnouncer returns an announcer of local's commits on nc: those made
// after it returns, once Run runs.
func NewAnnouncer(nc *nats.Conn, local eventstore.Notifier) (*Announcer, error) {
	switch {
	case nc == nil:
		return nil, errors.Join(ErrInvalid, errors.New("feedwake: the NATS connection is nil"))
	case local == nil:
		return nil, errors.Join(ErrInvalid, errors.New("feedwake: the store to announce is nil (it must implement eventstore.Notifier)"))
	}
	return &Announcer{nc: nc, local: local, origin: []byte(uuid.NewString()), next: local.Notify()}, nil
}

// Origin is what this announcer's messages carry: pass it to Listen as
// ignore in the process that announces.
func (a *Announcer) Origin() string { return string(a.origin) }

// Run announces until ctx ends. It takes the next Notify channel before it
// publishes, so a commit made while it publishes is announced by the next
// message, and commits made together are announced once: at most one
// message per wake-up, however many commits it covers. A failed publish
// (NATS away) is counted and skipped: the readers' poll is the safety net.
func (a *Announcer) Run(ctx context.Context) {
	ch := a.next
	for {
		select {
		case <-ctx.Done():
			return
		case <-ch:
		}
		ch = a.local.Notify()
		if err := a.nc.Publish(Subject, a.origin); err != nil {
			a.failed.Add(1)
			continue
		}
		a.sent.Add(1)
	}
}

// Sent counts the announcements handed to NATS.
func (a *Announcer) Sent() int64 { return a.sent.Load() }

// Failed counts the announcements NATS refused (disconnected, closed): each
// is a wake-up the readers get from their poll instead.
func (a *Announcer) Failed() int64 { return a.failed.Load() }
