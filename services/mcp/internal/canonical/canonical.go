// Package canonical writes JSON in the RFC 8785 canonical form (JCS), so that
// two documents meaning the same thing — keys in another order, numbers
// spelled differently — digest to the same bytes. The MCP service digests
// tool arguments this way for derived idempotency keys and confirmation
// tokens: an agent retrying a call owes us no key order.
package canonical

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gowebpki/jcs"
)

// ErrNotJSON is returned for input that is not exactly one JSON value, or
// one JCS cannot represent: a duplicate object key, a string that is not
// valid UTF-8 (raw bytes or an unpaired surrogate escape), NaN, an infinity
// or a number out of range. Refusing rather than repairing these is what
// keeps the canonical form one-to-one: a lenient reader that keeps the last
// of two equal keys, or turns every invalid byte into U+FFFD, gives
// different documents the same canonical bytes and so the same idempotency
// digest.
var ErrNotJSON = errors.New("canonical: not a JSON document JCS can represent")

// JSON returns the RFC 8785 canonical form of one JSON document. The work is
// github.com/gowebpki/jcs's (a maintained port of the RFC's reference
// implementation, strict about keys and encodings); this package keeps the
// error Roadbook's callers match and the digest built on top.
func JSON(doc []byte) ([]byte, error) {
	if doc == nil {
		doc = []byte{}
	}
	out, err := jcs.Transform(doc)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotJSON, err)
	}
	return out, nil
}

// Value returns the canonical form of a Go value, marshalled with
// encoding/json first.
func Value(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotJSON, err)
	}
	return JSON(raw)
}

// Digest is the SHA-256 of parts, each length-prefixed so that no two
// sequences of parts collide, as unpadded base64url (43 characters).
func Digest(parts ...[]byte) string {
	h := sha256.New()
	var n [8]byte
	for _, p := range parts {
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write(p)
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}
