package cluster

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// IssuerName is the `iss` of every token the evidence issuer mints (the
// services are started with ROADBOOK_JWT_ISSUER set to it).
const IssuerName = "https://issuer.evidence.roadbook"

// Issuer is a stand-in OIDC issuer: an ES256 key published as a JWKS, so
// the services verify tokens exactly as they do in production (by kid,
// fetched over HTTP).
type Issuer struct {
	key *ecdsa.PrivateKey
	kid string
}

// NewIssuer makes a fresh P-256 key.
func NewIssuer() (*Issuer, error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	return &Issuer{key: k, kid: "evidence-1"}, nil
}

// JWKSHandler serves the public key as a JWKS.
func (i *Issuer) JWKSHandler() http.Handler {
	pub := i.key.PublicKey
	ecdh, _ := pub.ECDH()
	raw := ecdh.Bytes() // 0x04 || X || Y
	b64 := base64.RawURLEncoding.EncodeToString
	body, _ := json.Marshal(map[string]any{"keys": []map[string]string{{
		"kty": "EC", "crv": "P-256", "kid": i.kid, "alg": "ES256", "use": "sig", "x": b64(raw[1:33]), "y": b64(raw[33:65]),
	}}})
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})
}

// Token mints a token for user with both scopes, audience aud, valid ttl.
func (i *Issuer) Token(user, aud string, ttl time.Duration) (string, error) {
	now := time.Now()
	t := jwt.NewWithClaims(jwt.SigningMethodES256, jwt.MapClaims{
		"iss": IssuerName, "sub": user, "aud": aud, "iat": now.Unix(), "exp": now.Add(ttl).Unix(),
		"scope": strings.Join([]string{"trips:read", "trips:write"}, " "),
	})
	t.Header["kid"] = i.kid
	return t.SignedString(i.key)
}
