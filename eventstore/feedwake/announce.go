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
	next <-chan struct{}
	// skip, when set and true, leaves a wake-up unannounced (SkipWhile).
	skip   func() bool
	sent   atomic.Int64
	failed atomic.Int64
	// skipped counts wake-ups left unannounced (SkipWhile).
	skipped atomic.Int64
}

// NewAnnouncer returns an announcer of local's commits on nc: those made
// after it returns, once Run runs.
func NewAnnouncer(nc *nats.Conn, local eventstore.Notifier, opts ...Option) (*Announcer, error) {
	switch {
	case nc == nil:
		return nil, errors.Join(ErrInvalid, errors.New("feedwake: the NATS connection is nil"))
	case local == nil:
		return nil, errors.Join(ErrInvalid, errors.New("feedwake: the store to announce is nil (it must implement eventstore.Notifier)"))
	}
	a := &Announcer{nc: nc, local: local, origin: []byte(uuid.NewString()), next: local.Notify()}
	for _, o := range opts {
		if err := o(a); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// Option shapes an Announcer.
type Option func(*Announcer) error

// SkipWhile leaves the commits unannounced while skip reports true. A
// worker passes whether its own relay holds the lease: that relay is woken
// by the store in-process, and no other relay is reading, so announcing its
// commits would cost NATS a message and its own listener a delivery per
// commit for nobody (docs/CAPACITY.md, "Tenth session"). A commit it leaves
// out when the lease moves on at that moment is read by the next holder,
// which starts from the saved cursor.
func SkipWhile(skip func() bool) Option {
	return func(a *Announcer) error {
		if skip == nil {
			return errors.Join(ErrInvalid, errors.New("feedwake: SkipWhile's function is nil"))
		}
		a.skip = skip
		return nil
	}
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
		if a.skip != nil && a.skip() {
			a.skipped.Add(1)
			continue
		}
		if err := a.nc.Publish(Subject, a.origin); err != nil {
			a.failed.Add(1)
			continue
		}
		a.sent.Add(1)
	}
}

// Sent counts the announcements handed to NATS.
func (a *Announcer) Sent() int64 { return a.sent.Load() }

// Skipped counts the wake-ups SkipWhile left unannounced.
func (a *Announcer) Skipped() int64 { return a.skipped.Load() }

// Failed counts the announcements NATS refused (disconnected, closed): each
// is a wake-up the readers get from their poll instead.
func (a *Announcer) Failed() int64 { return a.failed.Load() }
