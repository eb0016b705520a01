package auth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/rsa"
	"fmt"
)

// Key is one verification key, named by its kid.
type Key struct {
	// ID is the JWT header's kid.
	ID string
	// Algorithm is HS256, RS256 or ES256; a token signed with another
	// algorithm than its key's is refused (no algorithm confusion).
	Algorithm string
	// Secret is the shared secret of an HS256 key.
	Secret []byte
	// Public is the *rsa.PublicKey or *ecdsa.PublicKey of an RS256/ES256 key.
	Public crypto.PublicKey
}

// verificationKey returns what golang-jwt needs for alg, checking the key
// matches it.
func (k Key) verificationKey(alg string) (any, error) {
	if alg != k.Algorithm {
		return nil, fmt.Errorf("token algorithm %s does not match key %q (%s)", alg, k.ID, k.Algorithm)
	}
	switch k.Algorithm {
	case "HS256":
		if len(k.Secret) == 0 {
			return nil, fmt.Errorf("key %q has no secret", k.ID)
		}
		return k.Secret, nil
	case "RS256":
		if pub, ok := k.Public.(*rsa.PublicKey); ok {
			return pub, nil
		}
	case "ES256":
		if pub, ok := k.Public.(*ecdsa.PublicKey); ok {
			return pub, nil
		}
	}
	return nil, fmt.Errorf("key %q: unsupported algorithm %s or key type", k.ID, k.Algorithm)
}

// KeySet finds verification keys by kid. StaticKeys and JWKS implement it.
type KeySet interface {
	// Key returns the key named kid, or an error when there is none.
	Key(ctx context.Context, kid string) (Key, error)
}

// StaticKeys is a fixed key set (configuration, the dev issuer, tests).
type StaticKeys map[string]Key

// NewStaticKeys indexes keys by their ID.
func NewStaticKeys(keys ...Key) StaticKeys {
	s := make(StaticKeys, len(keys))
	for _, k := range keys {
		s[k.ID] = k
	}
	return s
}

// Key implements KeySet.
func (s StaticKeys) Key(_ context.Context, kid string) (Key, error) {
	k, ok := s[kid]
	if !ok {
		return Key{}, fmt.Errorf("unknown key id %q", kid)
	}
	return k, nil
}
