package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// FeedChannel is the PostgreSQL notification channel on which stores
// announce their commits to a relay in another process. The payload is the
// announcing connection's schema, so stores on other schemas of the same
// database (the tests' isolated schemas, a second deployment) wake nobody.
const FeedChannel = "roadbook_feed"

// announceSQL announces a commit. It runs after the append's commit, in a
// transaction of its own: a NOTIFY inside the append would make every
// append's commit take PostgreSQL's one notification-queue lock, in
// commit order, serialising commits that now run side by side.
const announceSQL = `SELECT pg_notify('` + FeedChannel + `', coalesce(current_schema(), ''))`

// announceTimeout bounds one announcement: a lost one costs a reader at
// most its poll interval, so waiting long for it buys nothing.
const announceTimeout = 5 * time.Second

// Announcer states: idle, sending, and sending with another commit to
// announce once the statement in flight returns.
const (
	announceIdle int32 = iota
	announceSending
	announceAgain
)

// committed runs after every commit of an append through s: it wakes this
// process's feed readers and announces the commit to other processes.
func (s *Store) committed() {
	s.signal()
	s.announce()
}

// announce sends one NOTIFY for every burst of commits: at most one
// statement is in flight per store value, and the commits made while it is
// become one more statement after it. The append never waits for it. A
// store that listens itself (ListenFeed) announces nothing: the one active
// relay runs in its process and is woken in-process.
func (s *Store) announce() {
	if s.listening.Load() > 0 {
		return
	}
	for {
		switch s.announcing.Load() {
		case announceIdle:
			if s.announcing.CompareAndSwap(announceIdle, announceSending) {
				go s.sendAnnouncements()
				return
			}
		case announceSending:
			if s.announcing.CompareAndSwap(announceSending, announceAgain) {
				return
			}
		default:
			return // already due again
		}
	}
}

// sendAnnouncements sends announcements until no commit is left
// unannounced. A failure is only counted: the readers' poll interval
// covers a lost announcement.
func (s *Store) sendAnnouncements() {
	for {
		ctx, cancel := context.WithTimeout(context.Background(), announceTimeout)
		_, err := s.pool.Exec(ctx, announceSQL)
		cancel()
		if err != nil {
			s.announceFailures.Add(1)
		} else {
			s.announcements.Add(1)
		}
		if s.announcing.CompareAndSwap(announceSending, announceIdle) {
			return
		}
		s.announcing.Store(announceSending) // a commit came in meanwhile
	}
}

// ListenFeed implements eventstore.FeedListener on a connection of its own
// (not one of the pool's, which the appends need): it LISTENs on
// FeedChannel, wakes Notify's readers once the LISTEN holds (a commit
// announced before it would otherwise wait for the poll), and again at
// every announcement from this store's schema.
func (s *Store) ListenFeed(ctx context.Context) error {
	s.listening.Add(1)
	defer s.listening.Add(-1)
	cfg := s.pool.Config().ConnConfig.Copy()
	// The pool's statement tracers count the pool's work; the
	// application_name stays the pool's, so the listener's backend is
	// counted with the process it serves.
	cfg.Tracer = nil
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return listenError(ctx, "connect", err)
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		_ = conn.Close(cctx)
	}()
	var schema string
	if err := conn.QueryRow(ctx, `SELECT coalesce(current_schema(), '')`).Scan(&schema); err != nil {
		return listenError(ctx, "read the schema", err)
	}
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{FeedChannel}.Sanitize()); err != nil {
		return listenError(ctx, "LISTEN", err)
	}
	s.signal()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return listenError(ctx, "wait for a notification", err)
		}
		if n.Payload == schema {
			s.heard.Add(1)
			s.signal()
		}
	}
}

// listenError is nil when ctx ended (the listener was told to stop), else
// err translated and named by the step that failed.
func listenError(ctx context.Context, step string, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return fmt.Errorf("eventstore/postgres: listen for commits: %s: %w", step, translate("listen", err))
}
