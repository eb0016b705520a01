package eventstore

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"
)

// Validate checks everything about an append that can be checked without
// storage and returns the events encoded for storing, ids assigned (UUIDv7,
// so new ids are index-friendly). Backends call it before touching the
// database, so a refused append writes nothing and names what is wrong.
//
// Rules: a valid stream id; an expected-version condition (Exact n ≥ 1);
// 1..MaxEventsPerAppend events, each with a payload of at most
// MaxPayloadBytes encoded and an id unique within the request; an owner when
// the append may create the stream (NoStream, Any); summary data, when set, a
// JSON object; blob refs non-empty hashes; idempotency with a key, a request
// hash and an expiry.
func (r AppendRequest) Validate() ([]EncodedEvent, error) {
	if err := r.Stream.Validate(); err != nil {
		return nil, err
	}
	switch {
	case r.Expected.IsNoStream(), r.Expected.IsStreamExists(), r.Expected.IsAny():
	case r.Expected.IsExact():
		if r.Expected.Version() < 1 {
			return nil, &InvalidError{Field: "expected version", Reason: fmt.Sprintf("Exact(%d): versions start at 1 (use NoStream to create)", r.Expected.Version())}
		}
	default:
		return nil, &InvalidError{Field: "expected version", Reason: "not set (use NoStream, Exact, StreamExists or Any)"}
	}
	if len(r.Owner) > MaxOwnerLength {
		return nil, &InvalidError{Field: "owner", Reason: fmt.Sprintf("longer than %d bytes", MaxOwnerLength)}
	}
	if r.Owner == "" && (r.Expected.IsNoStream() || r.Expected.IsAny()) {
		return nil, &InvalidError{Field: "owner", Reason: "required when the append may create the stream (" + r.Expected.String() + ")"}
	}
	if len(r.Events) == 0 {
		return nil, &InvalidError{Field: "events", Reason: "none given: an append writes at least one event"}
	}
	if len(r.Events) > MaxEventsPerAppend {
		return nil, &InvalidError{Field: "events", Reason: fmt.Sprintf("%d given, at most %d per append", len(r.Events), MaxEventsPerAppend)}
	}
	if r.Summary != nil && len(r.Summary.Data) > 0 {
		if err := validJSONObject(r.Summary.Data); err != nil {
			return nil, &InvalidError{Field: "summary data", Reason: err.Error()}
		}
	}
	for i, h := range r.BlobRefs {
		if len(h) == 0 || len(h) > MaxBlobHashLength {
			return nil, &InvalidError{Field: fmt.Sprintf("blob refs[%d]", i), Reason: fmt.Sprintf("hash is %d bytes, want 1..%d", len(h), MaxBlobHashLength)}
		}
	}
	if k := r.Idempotency; k != nil {
		if err := ValidateIdempotencyLookup(k.Key, k.RequestHash); err != nil {
			return nil, err
		}
		if k.ExpiresAt.IsZero() {
			return nil, &InvalidError{Field: "idempotency expiry", Reason: "not set"}
		}
	}
	out := make([]EncodedEvent, len(r.Events))
	seen := make(map[uuid.UUID]int, len(r.Events))
	for i, e := range r.Events {
		typ, data, err := EncodePayload(e.Payload)
		if err != nil {
			ie := err.(*InvalidError)
			return nil, &InvalidError{Field: fmt.Sprintf("events[%d] %s", i, ie.Field), Reason: ie.Reason}
		}
		meta, err := EncodeMetadata(e.Metadata)
		if err != nil {
			return nil, &InvalidError{Field: fmt.Sprintf("events[%d] metadata", i), Reason: err.Error()}
		}
		id := e.ID
		if id == uuid.Nil {
			id, err = uuid.NewV7()
			if err != nil {
				return nil, fmt.Errorf("eventstore: generate event id: %w", err)
			}
		} else if j, dup := seen[id]; dup {
			return nil, &InvalidError{Field: fmt.Sprintf("events[%d] id", i), Reason: fmt.Sprintf("%s repeats events[%d] id", id, j)}
		}
		seen[id] = i
		out[i] = EncodedEvent{ID: id, Type: typ, Data: data, Metadata: meta}
	}
	return out, nil
}

// Validate checks a list query: an owner, a limit in 0..MaxListLimit
// and Match, when set, a JSON object.
func (q ListQuery) Validate() error {
	if q.Owner == "" {
		return &InvalidError{Field: "owner", Reason: "required: streams are listed per owner"}
	}
	if q.Limit < 0 || q.Limit > MaxListLimit {
		return &InvalidError{Field: "limit", Reason: fmt.Sprintf("%d, want 0 (default %d) to %d", q.Limit, DefaultListLimit, MaxListLimit)}
	}
	if len(q.Match) > 0 {
		if err := validJSONObject(q.Match); err != nil {
			return &InvalidError{Field: "match", Reason: err.Error()}
		}
	}
	if q.After != nil {
		if err := q.After.ID.Validate(); err != nil {
			return &InvalidError{Field: "after", Reason: err.Error()}
		}
	}
	return nil
}

// Page sizes of ListStreams.
const (
	DefaultListLimit = 50
	MaxListLimit     = 500
)

// ValidateBlobHash checks a blob's content hash.
func ValidateBlobHash(hash []byte) error {
	if len(hash) == 0 || len(hash) > MaxBlobHashLength {
		return &InvalidError{Field: "blob hash", Reason: fmt.Sprintf("%d bytes, want 1..%d", len(hash), MaxBlobHashLength)}
	}
	return nil
}

func validJSONObject(data []byte) error {
	if !json.Valid(data) {
		return fmt.Errorf("not valid JSON")
	}
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' {
		return fmt.Errorf("a JSON object is required")
	}
	return nil
}

// ValidateIdempotencyLookup checks a key and request hash as every backend's
// LookupIdempotency (and Append, for its Idempotency) must: a key of 1 to
// MaxIdempotencyKeyLength bytes and a non-empty request hash.
func ValidateIdempotencyLookup(key string, requestHash []byte) error {
	switch {
	case key == "":
		return &InvalidError{Field: "idempotency key", Reason: "empty"}
	case len(key) > MaxIdempotencyKeyLength:
		return &InvalidError{Field: "idempotency key", Reason: fmt.Sprintf("longer than %d bytes", MaxIdempotencyKeyLength)}
	case len(requestHash) == 0:
		return &InvalidError{Field: "idempotency request hash", Reason: "empty: a replay is told from a different request by it"}
	}
	return nil
}
