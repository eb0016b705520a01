package aggregate

import (
	"errors"

	"github.com/roadbook/roadbook/eventstore"
	"google.golang.org/protobuf/proto"
)

// Definition describes one aggregate type to Load and Execute.
type Definition[S any] struct {
	// Initial is the state before the stream's first event. It receives the
	// stream's head (zero but for ID when the stream does not exist yet), so
	// state can carry identity and owner, which events need not repeat.
	Initial func(info eventstore.StreamInfo) S
	// Evolve folds one event into the state. It must be pure.
	Evolve func(state S, event proto.Message) S
	// Summary, when set, computes the stream's list row after each append; it
	// is written in the same transaction as the events.
	Summary func(state S) *eventstore.Summary
	// Snapshots, when set, stores folded state every so many events so loads
	// of long streams read a snapshot and a short tail.
	Snapshots *SnapshotCodec[S]
	// Cache, when set, keeps this process's recently folded states, so a
	// load folds only what was appended since (StateCache). One cache per
	// definition value: share the Definition, not copies with new caches.
	Cache *StateCache[S]
}

// SnapshotCodec turns state into bytes and back. SchemaVersion tags every
// snapshot; bumping it makes old snapshots invisible, so a changed state shape
// is rebuilt from events instead of decoded wrongly.
type SnapshotCodec[S any] struct {
	SchemaVersion int
	// Every is the number of events between snapshots (> 0).
	Every     int64
	Marshal   func(S) ([]byte, error)
	Unmarshal func([]byte) (S, error)
}

func (d Definition[S]) validate() error {
	if d.Initial == nil || d.Evolve == nil {
		return errors.New("aggregate: definition needs Initial and Evolve")
	}
	if c := d.Snapshots; c != nil && (c.Every <= 0 || c.SchemaVersion < 1 || c.Marshal == nil || c.Unmarshal == nil) {
		return errors.New("aggregate: snapshot codec needs Every > 0, SchemaVersion ≥ 1, Marshal and Unmarshal")
	}
	return nil
}
