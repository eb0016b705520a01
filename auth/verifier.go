package auth

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Config is what a Verifier trusts.
type Config struct {
	// Users verifies users' tokens (an OIDC issuer's JWKS, or the dev
	// issuer's key). Required.
	Users KeySet
	// UserIssuer, when set, is the `iss` user tokens must carry.
	UserIssuer string
	// Services verifies service credentials (tokens with an `act` claim),
	// a key set separate from the users', so a user key can never mint one.
	// Nil: no service may act for users.
	Services KeySet
	// TrustedActors are the `act.sub` values accepted from Services (e.g.
	// "roadbook-mcp").
	TrustedActors []string
	// ServiceIssuer is the `iss` every service credential must carry;
	// required with Services, so a token signed with the service key for
	// another purpose (or by another issuer sharing it) is refused.
	ServiceIssuer string
	// ServiceMaxLifetime is the longest a service credential may live, from
	// its required `iat` to its `exp` (default DefaultServiceMaxLifetime):
	// a credential minted to live longer is refused, whoever signed it.
	ServiceMaxLifetime time.Duration
	// Audience is the `aud` every token must name (default DefaultAudience).
	Audience string
	// Leeway tolerates clock skew on exp/iat (default 30 s).
	Leeway time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Verifier checks bearer tokens. It remembers tokens that verified for up
// to a minute (never past their expiry), so a client presenting the same
// token on every call pays for one signature check a minute.
type Verifier struct {
	cfg      Config
	verified verifiedCache
}

// NewVerifier returns a verifier for cfg.
func NewVerifier(cfg Config) (*Verifier, error) {
	if cfg.Users == nil {
		return nil, errors.New("auth: a user key set is required")
	}
	if cfg.Services != nil && cfg.ServiceIssuer == "" {
		return nil, errors.New("auth: a service key set needs the ServiceIssuer its credentials carry")
	}
	if cfg.ServiceMaxLifetime <= 0 {
		cfg.ServiceMaxLifetime = DefaultServiceMaxLifetime
	}
	if cfg.Audience == "" {
		cfg.Audience = DefaultAudience
	}
	if cfg.Leeway <= 0 {
		cfg.Leeway = 30 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Verifier{cfg: cfg}, nil
}

// algorithms are the only signing algorithms accepted ("none" never is).
var algorithms = []string{"HS256", "RS256", "ES256"}

// Verify checks token and returns the principal it grants. Every refusal
// matches ErrInvalidToken or ErrUntrustedActor.
func (v *Verifier) Verify(ctx context.Context, token string) (Principal, error) {
	if token == "" {
		return Principal{}, ErrNoToken
	}
	now := v.cfg.Now()
	if p, ok := v.verified.get(token, now); ok {
		return p, nil
	}
	p, expires, err := v.verify(ctx, token)
	if err != nil {
		return Principal{}, err
	}
	v.verified.put(token, p, now, expires)
	return p, nil
}

// verify checks token's signature and claims and returns its principal and
// expiry.
func (v *Verifier) verify(ctx context.Context, token string) (Principal, time.Time, error) {
	// Peek at the unverified claims only to choose the key set: a token with
	// an actor claim is a service credential and must be signed by a
	// service key. Nothing unverified is trusted beyond that choice.
	var peek jwt.MapClaims
	if _, _, err := jwt.NewParser().ParseUnverified(token, &peek); err != nil {
		return Principal{}, time.Time{}, fmt.Errorf("%w: malformed", ErrInvalidToken)
	}
	_, isService := peek["act"]
	keys, issuer := v.cfg.Users, v.cfg.UserIssuer
	if isService {
		if v.cfg.Services == nil {
			return Principal{}, time.Time{}, fmt.Errorf("%w: no service may act for users here", ErrUntrustedActor)
		}
		keys, issuer = v.cfg.Services, v.cfg.ServiceIssuer
	}
	opts := []jwt.ParserOption{
		jwt.WithValidMethods(algorithms),
		jwt.WithAudience(v.cfg.Audience),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithLeeway(v.cfg.Leeway),
		jwt.WithTimeFunc(v.cfg.Now),
	}
	if issuer != "" {
		opts = append(opts, jwt.WithIssuer(issuer))
	}
	var claims jwt.MapClaims
	_, err := jwt.NewParser(opts...).ParseWithClaims(token, &claims, func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		k, err := keys.Key(ctx, kid)
		if err != nil {
			return nil, err
		}
		return k.verificationKey(t.Method.Alg())
	})
	if err != nil {
		return Principal{}, time.Time{}, fmt.Errorf("%w: %s", ErrInvalidToken, reason(err))
	}
	if isService {
		if err := v.shortLived(claims); err != nil {
			return Principal{}, time.Time{}, err
		}
	}
	sub, _ := claims["sub"].(string)
	if sub == "" {
		return Principal{}, time.Time{}, fmt.Errorf("%w: no subject", ErrInvalidToken)
	}
	scope, _ := claims["scope"].(string)
	p := Principal{UserID: sub, Scopes: parseScopes(scope)}
	if isService {
		act, _ := claims["act"].(map[string]any)
		actor, _ := act["sub"].(string)
		if actor == "" || !slices.Contains(v.cfg.TrustedActors, actor) {
			return Principal{}, time.Time{}, fmt.Errorf("%w: actor %q is not trusted", ErrUntrustedActor, truncate(actor, 64))
		}
		p.Actor = actor
	}
	var expires time.Time
	if exp, err := claims.GetExpirationTime(); err == nil && exp != nil {
		expires = exp.Time
	}
	return p, expires, nil
}

// reason is a short, token-free description of a parse failure.
func reason(err error) string {
	switch {
	case errors.Is(err, jwt.ErrTokenExpired):
		return "expired"
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		return "wrong audience"
	case errors.Is(err, jwt.ErrTokenInvalidIssuer):
		return "wrong issuer"
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		return "missing expiry"
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return "bad signature"
	case errors.Is(err, jwt.ErrTokenUsedBeforeIssued), errors.Is(err, jwt.ErrTokenNotValidYet):
		return "not valid yet"
	case errors.Is(err, jwt.ErrTokenUnverifiable):
		return "unknown or unusable key"
	}
	return "malformed"
}

// bearer extracts the token of an Authorization header.
func bearer(header string) string {
	scheme, tok, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(tok)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// DefaultServiceMaxLifetime bounds a service credential's life: the MCP
// service mints them for two minutes (services/mcp/mcpserver), so five
// leaves room for clock skew and nothing for a long-lived one.
const DefaultServiceMaxLifetime = 5 * time.Minute

// shortLived refuses a verified service credential without `iat` or whose
// `exp` is more than ServiceMaxLifetime after it.
func (v *Verifier) shortLived(claims jwt.MapClaims) error {
	iat, err := claims.GetIssuedAt()
	if err != nil || iat == nil {
		return fmt.Errorf("%w: a service credential needs an issue time", ErrInvalidToken)
	}
	exp, err := claims.GetExpirationTime()
	if err != nil || exp == nil {
		return fmt.Errorf("%w: missing expiry", ErrInvalidToken)
	}
	if exp.Sub(iat.Time) > v.cfg.ServiceMaxLifetime {
		return fmt.Errorf("%w: a service credential may live %s at most", ErrInvalidToken, v.cfg.ServiceMaxLifetime)
	}
	return nil
}
