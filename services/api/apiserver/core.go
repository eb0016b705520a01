package apiserver

import (
	"context"
	"crypto/sha256"
	"errors"
	"log/slog"
	"math"
	"sync"

	"connectrpc.com/connect"
	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/roadbook/roadbook/auth"
	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
	"github.com/roadbook/roadbook/tripstore"
)

// core is what every service shares: the config, the trip store, the rate
// limiter and the helpers that load trips and run commands.
type core struct {
	cfg    Config
	trips  *tripstore.Store
	limits *limiter
	log    *slog.Logger
	// digests caches GetTrip answers by stream version.
	digests digestCache

	closeOnce sync.Once
	// done is closed when the server shuts down (WatchTrip streams end).
	done chan struct{}
}

func (c *core) closing() {
	c.closeOnce.Do(func() { close(c.done) })
}

// fail is every handler's exit for errors.
func (c *core) fail(ctx context.Context, err error) error {
	return connectError(ctx, c.log, err)
}

// user is the effective user of an authenticated call.
func (c *core) user(ctx context.Context) (string, error) {
	p, ok := auth.FromContext(ctx)
	if !ok || p.UserID == "" {
		return "", connect.NewError(connect.CodeUnauthenticated, errors.New("no authenticated user"))
	}
	return p.UserID, nil
}

// tripID parses a validated UUID field.
func tripID(s string) (uuid.UUID, error) {
	id, err := uuid.Parse(s)
	if err != nil {
		return uuid.Nil, &invalidError{Field: "trip_id", Message: "must be a UUID"}
	}
	return id, nil
}

// load folds the caller's trip (not found for anyone else's).
func (c *core) load(ctx context.Context, user, id string) (tripstore.Loaded, error) {
	tid, err := tripID(id)
	if err != nil {
		return tripstore.Loaded{}, err
	}
	l, err := c.trips.Load(ctx, tripstore.User(user), tid)
	if errors.Is(err, trip.ErrNotFound) {
		c.finishDeletion(ctx, user, tid)
	}
	return l, err
}

// write is one caller command through the store, with idempotency.
type write struct {
	procedure string
	user      string
	tripID    uuid.UUID
	cmd       trip.Command
	// req is the request (its idempotency key cleared for the hash).
	req proto.Message
	// key is the Idempotency-Key (field or header); empty means none.
	key string
	// blobRefs are route blobs the trip references from now on.
	blobRefs [][]byte
	// change, when set, is how the write changes the user's trip
	// collection; an append moves the collection's generation.
	change eventsv1.CollectionChange
}

// run executes w and answers with respond(state after). With a key, a
// replay answers the first call's stored response and the same key with a
// different request is a conflict.
func run[R proto.Message](ctx context.Context, c *core, w write, respond func(after trip.State) R) (R, error) {
	var zero R
	var idem *eventstore.Idempotency
	if w.key != "" {
		idem = c.idempotency(w)
		raw, replayed, err := c.replay(ctx, w, idem)
		if err != nil {
			return zero, err
		}
		if replayed {
			out := respond(trip.State{}).ProtoReflect().New().Interface().(R)
			if err := proto.Unmarshal(raw, out); err != nil {
				return zero, err
			}
			return out, nil
		}
	}
	res, err := c.trips.Execute(ctx, tripstore.User(w.user), w.tripID, w.cmd, tripstore.Options{
		Metadata:    eventstore.Metadata{Actor: w.user, CorrelationID: correlationID(ctx)},
		Idempotency: idem,
		BlobRefs:    w.blobRefs,
		Respond: func(after trip.State) ([]byte, error) {
			return proto.MarshalOptions{Deterministic: true}.Marshal(respond(after))
		},
	})
	if err != nil {
		return zero, err
	}
	if w.change != eventsv1.CollectionChange_COLLECTION_CHANGE_UNSPECIFIED && len(res.Events) > 0 && !res.Append.Replayed {
		c.bumpGeneration(ctx, w.user, w.tripID, w.change)
	}
	if res.Append.Replayed && len(res.Append.Response) > 0 {
		out := respond(trip.State{}).ProtoReflect().New().Interface().(R)
		if err := proto.Unmarshal(res.Append.Response, out); err != nil {
			return zero, err
		}
		return out, nil
	}
	return respond(res.State), nil
}

// idempotency binds a key to the caller, the procedure and the request.
func (c *core) idempotency(w write) *eventstore.Idempotency {
	req := proto.Clone(w.req)
	if f := req.ProtoReflect().Descriptor().Fields().ByName("idempotency_key"); f != nil {
		req.ProtoReflect().Clear(f)
	}
	body, _ := proto.MarshalOptions{Deterministic: true}.Marshal(req)
	key := sha256.Sum256([]byte(w.user + "\x00" + w.procedure + "\x00" + w.key))
	h := sha256.New()
	h.Write([]byte(w.procedure + "\x00" + w.user + "\x00"))
	h.Write(body)
	return &eventstore.Idempotency{
		Key:         "api:" + uuid.UUID(key[:16]).String(),
		RequestHash: h.Sum(nil),
		ExpiresAt:   c.cfg.Clock().Add(c.cfg.IdempotencyTTL),
	}
}

// replay asks the store whether idem was already answered, with an append
// that cannot succeed (expected version MaxInt64): the store checks the key
// before the version, so a recorded key answers its response (or a
// mismatch) and an unknown one fails the version check, writing nothing.
func (c *core) replay(ctx context.Context, w write, idem *eventstore.Idempotency) ([]byte, bool, error) {
	res, err := c.cfg.Store.Append(ctx, eventstore.AppendRequest{
		Stream:      tripstore.StreamID(w.tripID),
		Expected:    eventstore.Exact(math.MaxInt64),
		Events:      []eventstore.NewEvent{{Payload: &emptypb.Empty{}}},
		Owner:       w.user,
		Idempotency: idem,
	})
	switch {
	case err == nil && res.Replayed:
		return res.Response, true, nil
	case errors.Is(err, eventstore.ErrIdempotencyMismatch):
		return nil, false, &trip.Error{Code: trip.CodeConflict, Reason: "idempotency_key_reused",
			Message: "this idempotency key was used for a different request"}
	case err == nil:
		// Cannot happen (no stream reaches MaxInt64); refuse rather than guess.
		return nil, false, errors.New("apiserver: replay probe appended")
	}
	return nil, false, nil
}

// idemKey is the request's key field, else the Idempotency-Key header.
func idemKey(field *string, header string) string {
	if field != nil && *field != "" {
		return *field
	}
	return header
}

// createID is a new trip's id: derived from the caller's idempotency key
// (so a replay lands on the same stream), random otherwise.
func createID(user, procedure, key string) uuid.UUID {
	if key == "" {
		return uuid.New()
	}
	return uuid.NewSHA1(createNamespace, []byte(user+"\x00"+procedure+"\x00"+key))
}

var createNamespace = uuid.MustParse("0b5f3a64-2f0e-5c8a-9a53-6f1f7d9a2c11")

func isNotFound(err error) bool {
	return errors.Is(err, eventstore.ErrNotFound) || errors.Is(err, trip.ErrNotFound)
}
