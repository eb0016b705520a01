package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver

	"github.com/roadbook/roadbook/eventstore"
)

// Store is the embedded eventstore.Store. It owns two connection pools on
// one database file: a single write connection, taken through a
// context-aware semaphore so that at most one write transaction exists at a
// time, and a pool of read-only connections that WAL mode lets read while
// the writer writes.
type Store struct {
	cfg    config
	w      *sql.DB // exactly one connection; use only through s.write
	r      *sql.DB // query_only connections
	wsem   chan struct{}
	notify eventstore.Broadcast
	closed sync.Once
}

var (
	_ eventstore.Store    = (*Store)(nil)
	_ eventstore.Notifier = (*Store)(nil)
)

// Open opens (creating if needed) the database file at path. It does not
// migrate: call Migrate once after Open (roadbook dev does, at startup), so
// that the schema changes only when the host decides, as in production.
//
// path must be a file path: ":memory:" would give each connection its own
// empty database, and the store needs a writer and readers on the same data.
func Open(ctx context.Context, path string, opts ...Option) (*Store, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	if err := validatePath(path); err != nil {
		return nil, err
	}
	// Writer: WAL so readers never block it nor it them; synchronous=FULL so
	// an acknowledged append survives power loss (see the package doc);
	// _txlock=immediate takes the write lock at BEGIN, so even a second
	// process on the same file waits (busy_timeout) instead of failing at
	// its first write.
	wq := url.Values{}
	wq.Set("_txlock", "immediate")
	wq.Set("_busy_timeout", "10000")
	wq.Set("_journal_mode", "WAL")
	wq.Set("_synchronous", "FULL")
	wq.Set("_foreign_keys", "1")
	w, err := sql.Open("sqlite", path+"?"+wq.Encode())
	if err != nil {
		return nil, translate(ctx, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	if err := w.PingContext(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("eventstore/sqlite: open %s: %w", path, translate(ctx, err))
	}
	rq := url.Values{}
	rq.Set("_busy_timeout", "10000")
	rq.Set("_query_only", "1")
	r, err := sql.Open("sqlite", path+"?"+rq.Encode())
	if err != nil {
		w.Close()
		return nil, translate(ctx, err)
	}
	r.SetMaxOpenConns(cfg.readConns)
	r.SetMaxIdleConns(cfg.readConns)
	if err := r.PingContext(ctx); err != nil {
		w.Close()
		r.Close()
		return nil, fmt.Errorf("eventstore/sqlite: open %s for reading: %w", path, translate(ctx, err))
	}
	return &Store{
		cfg:  cfg,
		w:    w,
		r:    r,
		wsem: make(chan struct{}, 1),
	}, nil
}

func validatePath(path string) error {
	switch {
	case path == "":
		return &eventstore.InvalidError{Field: "path", Reason: "empty"}
	case path == ":memory:" || strings.Contains(path, "mode=memory"):
		return &eventstore.InvalidError{Field: "path", Reason: "an in-memory database cannot be shared by the writer and the readers; use a file (t.TempDir() in tests)"}
	case strings.HasPrefix(path, "file:"):
		return &eventstore.InvalidError{Field: "path", Reason: "must be a plain file path, not a file: URI"}
	case strings.Contains(path, "?"):
		return &eventstore.InvalidError{Field: "path", Reason: "contains '?', which the driver reads as the start of its options"}
	}
	return nil
}

// Close closes both pools. It waits for a write in progress to finish, so
// the last acknowledged append is on disk when Close returns. Calling it
// twice is harmless.
func (s *Store) Close() {
	s.closed.Do(func() {
		s.wsem <- struct{}{} // no write runs past this point
		s.r.Close()
		s.w.Close()
		<-s.wsem
	})
}

// Notify returns a channel that is closed when the next append or deletion
// commits. A feed reader takes it before ReadFeed and, when the read came back
// empty, waits on it (or a poll timer) — no wake-up is lost between the read
// and the wait, and no reader polls a quiet store in a tight loop.
func (s *Store) Notify() <-chan struct{} { return s.notify.Notify() }

// write runs fn in the one write transaction. The semaphore (not the pool)
// serialises writers, so waiting honours ctx and SQLite never sees two write
// transactions at once: no caller ever gets SQLITE_BUSY.
func (s *Store) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err // decided before any SQL runs
	}
	select {
	case s.wsem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.wsem }()
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		if rerr := tx.Rollback(); rerr != nil && !errors.Is(rerr, sql.ErrTxDone) {
			return errors.Join(err, rerr)
		}
		return err
	}
	return tx.Commit()
}

// micros and fromMicros convert between time.Time and the stored INTEGER
// microseconds.
func micros(t time.Time) int64 { return t.UnixMicro() }

func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }
