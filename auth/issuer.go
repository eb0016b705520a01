package auth

import (
	"errors"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// HS256Issuer mints HS256 tokens with one shared secret: the built-in issuer
// of one-process mode (`roadbook dev`) and the MCP service's service
// credential. Production user tokens come from an external OIDC issuer.
type HS256Issuer struct {
	kid    string
	secret []byte
	issuer string
	now    func() time.Time
}

// NewHS256Issuer returns an issuer signing with secret under kid, writing
// issuer as `iss`. The secret must be at least 32 bytes (HS256's strength).
func NewHS256Issuer(kid string, secret []byte, issuer string) (*HS256Issuer, error) {
	if kid == "" {
		return nil, errors.New("auth: issuer needs a key id")
	}
	if len(secret) < 32 {
		return nil, errors.New("auth: HS256 secret must be at least 32 bytes")
	}
	return &HS256Issuer{kid: kid, secret: append([]byte(nil), secret...), issuer: issuer, now: time.Now}, nil
}

// Key is the verification key of the tokens this issuer mints, to put in a
// verifier's key set.
func (i *HS256Issuer) Key() Key {
	return Key{ID: i.kid, Algorithm: "HS256", Secret: i.secret}
}

// Issuer is the `iss` the tokens carry.
func (i *HS256Issuer) Issuer() string { return i.issuer }

// Mint signs c. An empty Issuer takes the issuer's; a zero IssuedAt is now;
// ExpiresAt is required (tokens without expiry are refused by Verify anyway).
func (i *HS256Issuer) Mint(c Claims) (string, error) {
	if c.ExpiresAt.IsZero() {
		return "", errors.New("auth: a token needs an expiry")
	}
	if c.Subject == "" {
		return "", errors.New("auth: a token needs a subject")
	}
	iat := c.IssuedAt
	if iat.IsZero() {
		iat = i.now()
	}
	iss := c.Issuer
	if iss == "" {
		iss = i.issuer
	}
	mc := jwt.MapClaims{
		"iss": iss,
		"sub": c.Subject,
		"aud": c.Audience,
		"exp": c.ExpiresAt.Unix(),
		"iat": iat.Unix(),
	}
	if len(c.Scopes) > 0 {
		mc["scope"] = joinScopes(c.Scopes)
	}
	if c.Actor != "" {
		mc["act"] = map[string]any{"sub": c.Actor}
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, mc)
	tok.Header["kid"] = i.kid
	return tok.SignedString(i.secret)
}
