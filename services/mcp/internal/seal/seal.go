// Package seal signs state the MCP service hands to a client and takes back
// later — list cursors and confirmation tokens — so that no replica needs a
// store to trust it: HMAC-SHA256 under a key id (rotation), a purpose that
// binds a token to its use, an expiry, a random nonce, constant-time checks,
// and refusals that never say which check failed.
package seal

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// MinKeyBytes is the shortest key accepted: HMAC-SHA256's block of strength.
const MinKeyBytes = 32

// maxTokenBytes bounds what Open will even decode.
const maxTokenBytes = 4096

var (
	// ErrInvalid is any token that does not verify: malformed, tampered,
	// signed with an unknown key, or sealed for another purpose.
	ErrInvalid = errors.New("seal: invalid token")
	// ErrExpired is a token that verified but whose expiry has passed.
	ErrExpired = errors.New("seal: expired token")
)

// Keys seals with the current key and opens with any known one, so a key can
// be rotated in by adding it everywhere before making it current.
type Keys struct {
	current string
	keys    map[string][]byte
}

// NewKeys checks keys (each at least MinKeyBytes) and that current names one.
func NewKeys(current string, keys map[string][]byte) (*Keys, error) {
	if len(keys) == 0 {
		return nil, errors.New("seal: no keys")
	}
	cp := make(map[string][]byte, len(keys))
	for id, k := range keys {
		if id == "" || strings.ContainsAny(id, ".\"") {
			return nil, fmt.Errorf("seal: key id %q is empty or has '.' or '\"'", id)
		}
		if len(k) < MinKeyBytes {
			return nil, fmt.Errorf("seal: key %q is %d bytes, want at least %d", id, len(k), MinKeyBytes)
		}
		cp[id] = append([]byte(nil), k...)
	}
	if _, ok := cp[current]; !ok {
		return nil, fmt.Errorf("seal: current key %q is not among the keys", current)
	}
	return &Keys{current: current, keys: cp}, nil
}

// envelope is the signed body.
type envelope struct {
	KeyID   string          `json:"k"`
	Expires int64           `json:"e"`
	Nonce   string          `json:"n"`
	Data    json.RawMessage `json:"d"`
}

// Seal returns a token carrying data for purpose until expires.
func (k *Keys) Seal(purpose string, data any, expires time.Time) (string, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return "", fmt.Errorf("seal: %w", err)
	}
	nonce := make([]byte, 16)
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("seal: %w", err)
	}
	body, err := json.Marshal(envelope{KeyID: k.current, Expires: expires.Unix(), Nonce: base64.RawURLEncoding.EncodeToString(nonce), Data: raw})
	if err != nil {
		return "", fmt.Errorf("seal: %w", err)
	}
	b := base64.RawURLEncoding.EncodeToString(body)
	return b + "." + base64.RawURLEncoding.EncodeToString(mac(k.keys[k.current], purpose, b)), nil
}

// Open verifies token for purpose at now and decodes its data into dst.
func (k *Keys) Open(purpose, token string, now time.Time, dst any) error {
	if len(token) > maxTokenBytes {
		return ErrInvalid
	}
	b, sig, ok := strings.Cut(token, ".")
	if !ok {
		return ErrInvalid
	}
	body, err := base64.RawURLEncoding.DecodeString(b)
	if err != nil {
		return ErrInvalid
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil {
		return ErrInvalid
	}
	var env envelope
	if err := json.Unmarshal(body, &env); err != nil {
		return ErrInvalid
	}
	key, ok := k.keys[env.KeyID]
	if !ok || !hmac.Equal(got, mac(key, purpose, b)) {
		return ErrInvalid
	}
	if !now.Before(time.Unix(env.Expires, 0)) {
		return ErrExpired
	}
	if err := json.Unmarshal(env.Data, dst); err != nil {
		return ErrInvalid
	}
	return nil
}

func mac(key []byte, purpose, body string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(purpose))
	h.Write([]byte{0})
	h.Write([]byte(body))
	return h.Sum(nil)
}
