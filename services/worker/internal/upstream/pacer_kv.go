package upstream

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// KVPacer grants one slot per interval to the WHOLE application: every
// replica connected to the same NATS shares one key in a JetStream KV bucket
// holding the time of the last send (Unix nanoseconds). A caller reads the
// key; while last+interval is in the future it sleeps and reads again; once
// it is due, it claims the send by writing "now" with a compare-and-swap on
// the key's revision (KV Create/Update) and sends at once. Claiming at the
// moment of sending — not reserving a future slot and sleeping towards it —
// means a caller that wakes late under load cannot end up closer to the next
// caller than the interval: lateness only delays its own claim. Within a
// process, callers queue on a local semaphore first, so at most one claim per
// process is pending and the KV sees little contention.
//
// Replicas compare the stored time with their own clocks, so clock skew
// between hosts eats into the margin: pace with room (Nominatim: ≥ 1.1 s for
// a 1 s limit) and keep hosts on NTP.
type KVPacer struct {
	kv       jetstream.KeyValue
	key      string
	interval time.Duration
	sem      chan struct{}
}

// DefaultPacerBucket is the KV bucket pacers use unless told otherwise.
const DefaultPacerBucket = "roadbook_upstream_pacer"

// NewKVPacer creates (or binds to) bucket and returns a pacer keyed by key
// (one key per upstream, e.g. "nominatim"). interval must be positive; key
// must be a valid KV key.
func NewKVPacer(ctx context.Context, js jetstream.JetStream, bucket, key string, interval time.Duration) (*KVPacer, error) {
	if js == nil {
		return nil, fmt.Errorf("%w: KV pacer needs a JetStream context", ErrInvalidOption)
	}
	if interval <= 0 {
		return nil, fmt.Errorf("%w: pacer interval must be positive, got %s", ErrInvalidOption, interval)
	}
	if !validKVKey(key) {
		return nil, fmt.Errorf("%w: pacer key %q must match [-_=.a-zA-Z0-9/]+", ErrInvalidOption, key)
	}
	if bucket == "" {
		bucket = DefaultPacerBucket
	}
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      bucket,
		Description: "Roadbook: next allowed send time per third-party upstream",
		History:     1,
	})
	if err != nil {
		return nil, fmt.Errorf("upstream: KV pacer bucket %q: %w", bucket, err)
	}
	return &KVPacer{kv: kv, key: key, interval: interval, sem: make(chan struct{}, 1)}, nil
}

// Interval implements Pacer.
func (p *KVPacer) Interval() time.Duration { return p.interval }

// Wait implements Pacer. An error from NATS is returned (wrapped in
// ErrUnavailable by the client): without the shared pacer we do not send.
func (p *KVPacer) Wait(ctx context.Context) error {
	select {
	case p.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-p.sem }()
	_, err := p.claim(ctx)
	return err
}

// maxClaimLag bounds how stale a claim may be when its caller sends. Other
// replicas measure the interval from the claimed time, so a compare-and-swap
// that took long under load would let this send land closer than the interval
// to the next one; such a claim is moved forward (rewritten with a fresh time
// on our own revision) before sending.
const maxClaimLag = 50 * time.Millisecond

// maxClaimRewrites bounds those rewrites, so a NATS server slow for every
// write cannot hold a caller forever; the interval's own slack covers the
// last one.
const maxClaimRewrites = 8

// claim waits until the interval since the last send has passed, then
// records this send with a CAS loop on the shared key, returning the time it
// claimed.
func (p *KVPacer) claim(ctx context.Context) (time.Time, error) {
	var (
		mine     bool   // the key holds our own claim
		mineRev  uint64 // its revision
		rewrites int
	)
	for {
		if err := ctx.Err(); err != nil {
			return time.Time{}, err
		}
		var (
			last time.Time
			rev  uint64
		)
		if mine {
			rev = mineRev
		} else {
			entry, err := p.kv.Get(ctx, p.key)
			switch {
			case errors.Is(err, jetstream.ErrKeyNotFound):
			case err != nil:
				return time.Time{}, fmt.Errorf("pacer %q: read: %w", p.key, err)
			default:
				rev = entry.Revision()
				if v := entry.Value(); len(v) == 8 {
					last = time.Unix(0, int64(binary.BigEndian.Uint64(v)))
				}
			}
			if due := last.Add(p.interval); !last.IsZero() && time.Now().Before(due) {
				if err := sleepUntil(ctx, due); err != nil {
					return time.Time{}, err
				}
				continue // read again: another replica may have claimed it
			}
		}
		now := time.Now()
		val := binary.BigEndian.AppendUint64(nil, uint64(now.UnixNano()))
		var (
			newRev uint64
			err    error
		)
		if rev == 0 {
			newRev, err = p.kv.Create(ctx, p.key, val)
		} else {
			newRev, err = p.kv.Update(ctx, p.key, val, rev)
		}
		switch {
		case err == nil && (time.Since(now) <= maxClaimLag || rewrites >= maxClaimRewrites):
			return now, nil
		case err == nil:
			mine, mineRev = true, newRev // slow write: move our claim forward
			rewrites++
		case isCASConflict(err):
			mine = false
		default:
			return time.Time{}, fmt.Errorf("pacer %q: claim: %w", p.key, err)
		}
	}
}

// isCASConflict recognises a lost compare-and-swap (someone else reserved
// first): wrong last sequence on Update, key exists on Create.
func isCASConflict(err error) bool {
	if errors.Is(err, jetstream.ErrKeyExists) {
		return true
	}
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) && apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence {
		return true
	}
	return false
}

// validKVKey mirrors the JetStream KV key rule.
func validKVKey(k string) bool {
	if k == "" || k[0] == '.' || k[len(k)-1] == '.' {
		return false
	}
	for _, r := range k {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case r == '-', r == '_', r == '=', r == '.', r == '/':
		default:
			return false
		}
	}
	return true
}
