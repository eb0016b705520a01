package apiserver_test

import (
	"context"
	"maps"
	"sync"
	"time"

	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/services/api/apiserver"
)

// countingStore is the store the API sees in the store-call test: the
// production store (PostgreSQL, TailReader included), each call counted by
// method, so a test can pin what one RPC costs the database.
type countingStore struct {
	eventstore.Store
	mu    sync.Mutex
	calls map[string]int
}

var _ eventstore.TailReader = (*countingStore)(nil)

// counted makes the API's store a countingStore over the harness's raw
// store (not the faultStore, which hides TailReader from aggregate.Load
// and so would count a load the production API never makes).
func counted(cs *countingStore) harnessConfig {
	return func(c *apiserver.Config) {
		inner := c.Store
		if f, ok := inner.(*faultStore); ok {
			inner = f.Store
		}
		cs.Store, cs.calls = inner, map[string]int{}
		c.Store = cs
	}
}

func (c *countingStore) count(method string) {
	c.mu.Lock()
	c.calls[method]++
	c.mu.Unlock()
}

// take returns the calls counted since the last take and starts again.
func (c *countingStore) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	got := maps.Clone(c.calls)
	clear(c.calls)
	return got
}

func (c *countingStore) Append(ctx context.Context, req eventstore.AppendRequest) (eventstore.AppendResult, error) {
	c.count("Append")
	return c.Store.Append(ctx, req)
}

func (c *countingStore) LookupIdempotency(ctx context.Context, key string, hash []byte) (eventstore.AppendResult, error) {
	c.count("LookupIdempotency")
	return c.Store.LookupIdempotency(ctx, key, hash)
}

func (c *countingStore) ReadStream(ctx context.Context, s eventstore.StreamID, after int64, limit int) ([]eventstore.RecordedEvent, error) {
	c.count("ReadStream")
	return c.Store.ReadStream(ctx, s, after, limit)
}

// ReadStreamTail forwards to the inner store's, which every store the
// harness builds (PostgreSQL) has.
func (c *countingStore) ReadStreamTail(ctx context.Context, s eventstore.StreamID, after int64, limit int) (eventstore.StreamInfo, []eventstore.RecordedEvent, error) {
	c.count("ReadStreamTail")
	return c.Store.(eventstore.TailReader).ReadStreamTail(ctx, s, after, limit)
}

func (c *countingStore) Stream(ctx context.Context, s eventstore.StreamID) (eventstore.StreamInfo, error) {
	c.count("Stream")
	return c.Store.Stream(ctx, s)
}

func (c *countingStore) ListStreams(ctx context.Context, q eventstore.ListQuery) (eventstore.ListPage, error) {
	c.count("ListStreams")
	return c.Store.ListStreams(ctx, q)
}

func (c *countingStore) DeleteStream(ctx context.Context, s eventstore.StreamID) error {
	c.count("DeleteStream")
	return c.Store.DeleteStream(ctx, s)
}

func (c *countingStore) SaveSnapshot(ctx context.Context, s eventstore.Snapshot) error {
	c.count("SaveSnapshot")
	return c.Store.SaveSnapshot(ctx, s)
}

func (c *countingStore) LoadSnapshot(ctx context.Context, s eventstore.StreamID, schema int) (eventstore.Snapshot, error) {
	c.count("LoadSnapshot")
	return c.Store.LoadSnapshot(ctx, s, schema)
}

func (c *countingStore) PutBlob(ctx context.Context, hash, data []byte) error {
	c.count("PutBlob")
	return c.Store.PutBlob(ctx, hash, data)
}

func (c *countingStore) Blob(ctx context.Context, hash []byte) ([]byte, error) {
	c.count("Blob")
	return c.Store.Blob(ctx, hash)
}

func (c *countingStore) ReadFeed(ctx context.Context, after eventstore.Cursor, limit int) ([]eventstore.RecordedEvent, eventstore.Cursor, error) {
	c.count("ReadFeed")
	return c.Store.ReadFeed(ctx, after, limit)
}

func (c *countingStore) LoadCursor(ctx context.Context, reader string) (eventstore.Cursor, error) {
	c.count("LoadCursor")
	return c.Store.LoadCursor(ctx, reader)
}

func (c *countingStore) SaveCursor(ctx context.Context, reader string, cur eventstore.Cursor) error {
	c.count("SaveCursor")
	return c.Store.SaveCursor(ctx, reader, cur)
}

func (c *countingStore) Housekeep(ctx context.Context, now time.Time) (eventstore.HousekeepingReport, error) {
	c.count("Housekeep")
	return c.Store.Housekeep(ctx, now)
}
