package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/roadbook/roadbook/eventstore"
)

// Store is the PostgreSQL event store. It is safe for concurrent use.
type Store struct {
	pool      *pgxpool.Pool
	ownsPool  bool
	now       func() time.Time
	blobGrace time.Duration
	chunk     int

	// wake is the in-process wake-up of feed readers (Notify).
	wake eventstore.Broadcast
	// prefetch is the feed reader's request for its next page and the page
	// an append read for it (PrefetchFeed).
	prefetch prefetch
}

var (
	_ eventstore.Store     = (*Store)(nil)
	_ eventstore.Notifier  = (*Store)(nil)
	_ eventstore.FeedPager = (*Store)(nil)
)

// DefaultBlobGrace is how long an unreferenced blob is kept: a blob is put
// before the append that references it commits, so a young blob may simply
// be about to be used.
const DefaultBlobGrace = time.Hour

// DefaultChunk bounds the rows one housekeeping or deletion transaction
// removes, so no transaction runs long enough to hold the feed back.
const DefaultChunk = 1000

// IdleInTransactionTimeout is set on every pool connection: a transaction
// left open by a stuck client is ended by the server instead of stalling the
// feed (whose horizon is the oldest running transaction in the cluster).
const IdleInTransactionTimeout = "30s"

// Option tunes a Store.
type Option func(*Store)

// WithClock sets the clock that decides whether an idempotency key has
// expired, so tests control time instead of sleeping.
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// WithBlobGrace sets how old an unreferenced blob must be before Housekeep
// removes it (default DefaultBlobGrace).
func WithBlobGrace(d time.Duration) Option { return func(s *Store) { s.blobGrace = d } }

// WithChunk sets the rows per deletion transaction (default DefaultChunk).
func WithChunk(n int) Option {
	return func(s *Store) {
		if n > 0 {
			s.chunk = n
		}
	}
}

// ConfigurePool applies the connection settings the store relies on
// (idle_in_transaction_session_timeout) to a pool configuration; Open calls
// it, and callers that build their own pool for New should too.
func ConfigurePool(cfg *pgxpool.Config) {
	if cfg.ConnConfig.RuntimeParams == nil {
		cfg.ConnConfig.RuntimeParams = map[string]string{}
	}
	if _, ok := cfg.ConnConfig.RuntimeParams["idle_in_transaction_session_timeout"]; !ok {
		cfg.ConnConfig.RuntimeParams["idle_in_transaction_session_timeout"] = IdleInTransactionTimeout
	}
}

// Open connects a pool to connString (a postgres:// URL or DSN; a
// search_path parameter selects the schema) and returns a Store that owns
// it. It does not migrate: call Migrate first where the schema may be old.
func Open(ctx context.Context, connString string, opts ...Option) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(connString)
	if err != nil {
		return nil, fmt.Errorf("eventstore/postgres: parse connection string: %w", err)
	}
	ConfigurePool(cfg)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, translate("open", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, translate("open", err)
	}
	s := New(pool, opts...)
	s.ownsPool = true
	return s, nil
}

// New returns a Store over a pool the caller owns (Close leaves it open).
// Configure the pool with ConfigurePool.
func New(pool *pgxpool.Pool, opts ...Option) *Store {
	s := &Store{pool: pool, now: time.Now, blobGrace: DefaultBlobGrace, chunk: DefaultChunk}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Migrate runs the embedded migrations on the store's pool (see Migrate).
func (s *Store) Migrate(ctx context.Context) error { return Migrate(ctx, s.pool) }

// Pool returns the store's pool, for callers (tests, benchmarks) that need
// the database directly.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Notify implements eventstore.Notifier: the channel closes at the next
// append committed through this Store.
func (s *Store) Notify() <-chan struct{} { return s.wake.Notify() }

func (s *Store) signal() { s.wake.Signal() }

// Close closes the pool when Open created it.
func (s *Store) Close() {
	if s.ownsPool {
		s.pool.Close()
	}
}
