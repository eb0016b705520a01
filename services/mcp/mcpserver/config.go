package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"

	"github.com/roadbook/roadbook/auth"
)

// ServiceIssuer mints the service credential the MCP service calls the API
// with (auth.HS256Issuer implements it, with a key the API trusts as a
// service key).
type ServiceIssuer interface {
	Mint(c auth.Claims) (string, error)
}

// AgentVerifier verifies an agent's bearer token: signature, expiry, and an
// audience naming this MCP resource (auth.Verifier built with Audience =
// ResourceURL(PublicBaseURL) implements it).
type AgentVerifier interface {
	Verify(ctx context.Context, token string) (auth.Principal, error)
}

// Config is what the MCP service needs.
type Config struct {
	// APIBaseURL is the Connect API's base URL, e.g. "http://127.0.0.1:8080".
	// Required.
	APIBaseURL string
	// HTTPClient calls the API (default: a client with a 30 s timeout whose
	// transport keeps DefaultMaxIdleConnsPerHost connections to the API
	// alive; http.DefaultTransport keeps 2, so a busy service would open
	// and close a connection on nearly every call).
	HTTPClient *http.Client
	// ServiceIssuer mints the per-call service credential. Required.
	ServiceIssuer ServiceIssuer
	// ServiceActor is the `act.sub` of the service credential (default
	// "roadbook-mcp"); the API must list it as a trusted actor.
	ServiceActor string
	// APIAudience is the service credential's `aud` (default
	// auth.DefaultAudience).
	APIAudience string
	// AgentVerifier verifies agents' tokens. Required unless NoAuthUser is set.
	AgentVerifier AgentVerifier
	// NoAuthUser, when set, maps requests without a token to this user with
	// both scopes (`roadbook dev --no-auth`, for the conformance suite). The
	// caller must refuse to set it unless every listener is on loopback;
	// requests that do carry a token are still verified.
	NoAuthUser string
	// AuthorizationServers are the issuers named in the protected-resource
	// metadata (RFC 9728).
	AuthorizationServers []string
	// HMACKeys sign list cursors (and confirmation tokens, unless
	// ConfirmKeys is set): key id → key of at least 32 bytes, shared by
	// every replica. Required.
	HMACKeys map[string][]byte
	// CurrentKeyID is the key that signs; the others only verify (rotation).
	// Empty is allowed when HMACKeys has exactly one key.
	CurrentKeyID string
	// ConfirmKeys sign the confirmation tokens of destructive calls, apart
	// from the cursors, so either key set can be rotated (or leak) without
	// the other; CurrentConfirmKeyID as CurrentKeyID. Empty: HMACKeys sign
	// them too.
	ConfirmKeys         map[string][]byte
	CurrentConfirmKeyID string
	// PublicBaseURL is this service's public origin, e.g.
	// "https://mcp.roadbook.example"; the resource is PublicBaseURL + "/mcp".
	// Required.
	PublicBaseURL string
	// AllowedHosts are further Host header values accepted (DNS-rebinding
	// guard); the host of PublicBaseURL is always accepted, and every
	// loopback name when it is a loopback address.
	AllowedHosts []string
	// AllowedOrigins are further Origin header values accepted; the origin
	// of PublicBaseURL is always accepted.
	AllowedOrigins []string
	// SessionTimeout closes idle MCP sessions (default 30 min).
	SessionTimeout time.Duration
	// MaxRequestBodyBytes bounds a request body (default 6 MiB: a 4 MiB GPX
	// document inline plus JSON escaping).
	MaxRequestBodyBytes int64
	// Clock is the injectable clock: idempotency windows, cursor and
	// confirmation expiry (default time.Now).
	Clock func() time.Time
	// Logger receives structured logs (default slog.Default()).
	Logger *slog.Logger
	// TracerProvider makes the spans of /mcp requests, MCP requests and the
	// API calls they make (default the otel global). Whatever it is, an
	// incoming traceparent reaches the API: a no-op provider passes the
	// caller's trace context through unchanged.
	TracerProvider trace.TracerProvider
}

// DefaultMaxIdleConnsPerHost is how many idle connections to the API the
// default HTTPClient keeps: at least as many as calls in flight at once
// under load (bench-mcp drives 100 sessions).
const DefaultMaxIdleConnsPerHost = 256

// ResourceURL is the MCP resource identifier for a public base URL: the
// audience agents' tokens must name.
func ResourceURL(publicBaseURL string) string {
	return strings.TrimRight(publicBaseURL, "/") + "/mcp"
}

func (c *Config) defaults() error {
	switch {
	case c.APIBaseURL == "":
		return errors.New("mcpserver: Config.APIBaseURL is required")
	case c.ServiceIssuer == nil:
		return errors.New("mcpserver: Config.ServiceIssuer is required")
	case c.AgentVerifier == nil && c.NoAuthUser == "":
		return errors.New("mcpserver: Config.AgentVerifier is required (or NoAuthUser for loopback development)")
	case len(c.HMACKeys) == 0:
		return errors.New("mcpserver: Config.HMACKeys is required")
	case c.PublicBaseURL == "":
		return errors.New("mcpserver: Config.PublicBaseURL is required")
	}
	u, err := url.Parse(c.PublicBaseURL)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return fmt.Errorf("mcpserver: Config.PublicBaseURL %q is not an http(s) origin", c.PublicBaseURL)
	}
	if c.CurrentKeyID == "" {
		if len(c.HMACKeys) != 1 {
			return errors.New("mcpserver: Config.CurrentKeyID is required with several HMAC keys")
		}
		for id := range c.HMACKeys {
			c.CurrentKeyID = id
		}
	}
	if len(c.ConfirmKeys) == 0 {
		c.ConfirmKeys, c.CurrentConfirmKeyID = c.HMACKeys, c.CurrentKeyID
	}
	if c.CurrentConfirmKeyID == "" {
		if len(c.ConfirmKeys) != 1 {
			return errors.New("mcpserver: Config.CurrentConfirmKeyID is required with several confirmation keys")
		}
		for id := range c.ConfirmKeys {
			c.CurrentConfirmKeyID = id
		}
	}
	if c.HTTPClient == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConns, tr.MaxIdleConnsPerHost = 2*DefaultMaxIdleConnsPerHost, DefaultMaxIdleConnsPerHost
		c.HTTPClient = &http.Client{Timeout: 30 * time.Second, Transport: tr}
	}
	if c.ServiceActor == "" {
		c.ServiceActor = "roadbook-mcp"
	}
	if c.APIAudience == "" {
		c.APIAudience = auth.DefaultAudience
	}
	if c.SessionTimeout <= 0 {
		c.SessionTimeout = 30 * time.Minute
	}
	if c.MaxRequestBodyBytes <= 0 {
		c.MaxRequestBodyBytes = 6 << 20
	}
	if c.Clock == nil {
		c.Clock = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.TracerProvider == nil {
		c.TracerProvider = otel.GetTracerProvider()
	}
	return nil
}
