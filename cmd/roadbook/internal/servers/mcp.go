package servers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/roadbook/roadbook/auth"
	"github.com/roadbook/roadbook/cmd/roadbook/internal/devstate"
	"github.com/roadbook/roadbook/cmd/roadbook/internal/envflag"
	"github.com/roadbook/roadbook/services/mcp/mcpserver"
)

// mcpService is the MCP server on its one port with the probes beside it:
// /healthz, /readyz (off from the start of a drain) and /metrics; every
// other path goes to mcpserver (/mcp and the protected-resource metadata).
type mcpService struct {
	http     *http.Server
	draining atomic.Bool
}

// newMCPService wraps srv with the probes and process metrics.
func newMCPService(srv *mcpserver.Server) *mcpService {
	m := &mcpService{}
	reg := processRegistry()
	mux := http.NewServeMux()
	probes := healthHandler(func() bool { return !m.draining.Load() }, reg)
	mux.Handle("GET /healthz", probes)
	mux.Handle("GET /readyz", probes)
	mux.Handle("GET /metrics", probes)
	mux.Handle("/", srv.Handler())
	m.http = h2cServer(mux)
	return m
}

// Serve serves on ln until Shutdown.
func (m *mcpService) Serve(ln net.Listener) error { return serveErr(m.http.Serve(ln)) }

// Shutdown turns readiness off, then lets in-flight requests finish.
func (m *mcpService) Shutdown(ctx context.Context) error {
	m.draining.Store(true)
	return m.http.Shutdown(ctx)
}

// withKeys sets cfg's HMAC keys: the cursor key signs list cursors, the
// confirmation key confirmation tokens, each verifying only its own.
func withKeys(cfg *mcpserver.Config, cursorKey, confirmKey string) error {
	if len(cursorKey) < 32 || len(confirmKey) < 32 {
		return errors.New("the MCP cursor and confirmation keys must be at least 32 bytes each")
	}
	cfg.HMACKeys, cfg.CurrentKeyID = map[string][]byte{"cursor": []byte(cursorKey)}, "cursor"
	cfg.ConfirmKeys, cfg.CurrentConfirmKeyID = map[string][]byte{"confirm": []byte(confirmKey)}, "confirm"
	return nil
}

// devMCP is the MCP server of one-process mode.
type devMCP struct {
	svc  *mcpService
	url  string
	errc chan error
}

// startMCP builds the MCP server of a dev instance: agents' tokens from
// the dev issuer with the MCP resource as audience, service credentials
// signed with the data directory's service key.
func (d *devInstance) startMCP(secrets devstate.Secrets, svcKey auth.Key, ln net.Listener, tp trace.TracerProvider) error {
	base := "http://" + ln.Addr().String()
	agents, err := auth.NewVerifier(auth.Config{Users: auth.NewStaticKeys(d.issuer.Key()), UserIssuer: devstate.Issuer,
		Audience: mcpserver.ResourceURL(base)})
	if err != nil {
		return err
	}
	svcIssuer, err := auth.NewHS256Issuer(svcKey.ID, svcKey.Secret, mcpActor)
	if err != nil {
		return err
	}
	cfg := mcpserver.Config{APIBaseURL: d.apiURL, ServiceIssuer: svcIssuer, ServiceActor: mcpActor,
		AgentVerifier: agents, AuthorizationServers: []string{devstate.Issuer},
		PublicBaseURL: base, Logger: d.log, TracerProvider: tp}
	if err := withKeys(&cfg, secrets.CursorKey, secrets.ConfirmKey); err != nil {
		return err
	}
	if d.flags.noAuth {
		cfg.NoAuthUser = devstate.User
	}
	srv, err := mcpserver.New(cfg)
	if err != nil {
		return err
	}
	if srv.ResourceURL() != d.mcpURL {
		return fmt.Errorf("the MCP resource %s is not the printed MCP URL %s", srv.ResourceURL(), d.mcpURL)
	}
	d.mcp = devMCP{svc: newMCPService(srv), url: base, errc: make(chan error, 1)}
	go func() { d.mcp.errc <- d.mcp.svc.Serve(ln) }()
	return nil
}

// ready reports whether the MCP port answers its readiness probe.
func (m *devMCP) ready(ctx context.Context) bool {
	return m.svc != nil && httpOK(ctx, m.url+"/readyz")
}

// shutdown drains the MCP server.
func (m *devMCP) shutdown(ctx context.Context) error {
	if m.svc == nil {
		return nil
	}
	return errors.Join(m.svc.Shutdown(ctx), <-m.errc)
}

// close stops the MCP server at once (start failed half way).
func (m *devMCP) close() {
	if m.svc != nil {
		_ = m.svc.http.Close()
	}
}

// RunMCP is `roadbook mcp`: the MCP service in front of the API. It holds
// no database and no NATS connection; it verifies agents' tokens (audience:
// the MCP resource) and calls the API with its own service credential.
func RunMCP(ctx context.Context, args []string, _, stderr io.Writer) error {
	fs := envflag.New("mcp", stderr)
	var sf serviceFlags
	sf.register(fs, ":8090", 45*time.Second)
	apiURL := fs.String("api-url", "http://127.0.0.1:8080", "the Connect API's base URL ($ROADBOOK_API_URL)")
	baseURL := fs.String("public-base-url", "", "public base URL; the MCP resource is this + /mcp ($ROADBOOK_PUBLIC_BASE_URL)")
	mcpAud := fs.String("mcp-audience", "", "audience agents' tokens must name; must equal the public base URL + /mcp ($ROADBOOK_MCP_AUDIENCE)")
	issuer := fs.String("jwt-issuer", "", "the `iss` agents' tokens must carry, named as authorization server ($ROADBOOK_JWT_ISSUER)")
	jwks := fs.String("jwks-url", "", "JWKS of the token issuer ($ROADBOOK_JWKS_URL)")
	apiAud := fs.String("api-audience", auth.DefaultAudience, "audience of the service credential ($ROADBOOK_API_AUDIENCE)")
	svcKey := envflag.Secret(fs, "mcp-service-key", "HS256 key the service credential is signed with ($ROADBOOK_MCP_SERVICE_KEY)")
	svcKeyID := fs.String("mcp-service-key-id", "roadbook-mcp-1", "its kid ($ROADBOOK_MCP_SERVICE_KEY_ID)")
	cursorKey := envflag.Secret(fs, "mcp-cursor-key", "HMAC key of list cursors ($ROADBOOK_MCP_CURSOR_KEY)")
	confirmKey := envflag.Secret(fs, "mcp-confirm-key", "HMAC key of confirmation tokens ($ROADBOOK_MCP_CONFIRM_KEY)")
	allowExample := registerAllowExample(fs)
	sessionTimeout := fs.Duration("session-timeout", 30*time.Minute, "idle timeout of MCP sessions ($ROADBOOK_MCP_SESSION_TIMEOUT)")
	if err := envflag.Parse(fs, args); err != nil {
		return err
	}
	if err := envflag.Required([3]string{*baseURL, "public-base-url", "ROADBOOK_PUBLIC_BASE_URL"}, [3]string{*jwks, "jwks-url", "ROADBOOK_JWKS_URL"},
		[3]string{*svcKey, "mcp-service-key", "ROADBOOK_MCP_SERVICE_KEY"}); err != nil {
		return err
	}
	if err := refuseExampleSecrets(*allowExample, [2]string{"mcp-service-key", *svcKey}, [2]string{"mcp-cursor-key", *cursorKey},
		[2]string{"mcp-confirm-key", *confirmKey}); err != nil {
		return err
	}
	resource := mcpserver.ResourceURL(*baseURL)
	if *mcpAud != "" && *mcpAud != resource {
		return fmt.Errorf("ROADBOOK_MCP_AUDIENCE %q is not the MCP resource %q (ROADBOOK_PUBLIC_BASE_URL + /mcp)", *mcpAud, resource)
	}
	log, err := newLogger(sf.logLevel, stderr)
	if err != nil {
		return err
	}
	tr, err := setupTracing(ctx, "roadbook-mcp", log)
	if err != nil {
		return err
	}
	defer flushTracing(tr, log)
	key, err := serviceKey(*svcKeyID, *svcKey)
	if err != nil {
		return err
	}
	svcIssuer, err := auth.NewHS256Issuer(key.ID, key.Secret, mcpActor)
	if err != nil {
		return err
	}
	userKeys, err := auth.NewJWKS(*jwks, jwksOptions(ctx, log))
	if err != nil {
		return err
	}
	agents, err := auth.NewVerifier(auth.Config{Users: userKeys, UserIssuer: *issuer, Audience: resource})
	if err != nil {
		return err
	}
	var servers []string
	if *issuer != "" {
		servers = []string{*issuer}
	}
	cfg := mcpserver.Config{APIBaseURL: *apiURL, ServiceIssuer: svcIssuer, ServiceActor: mcpActor,
		APIAudience: *apiAud, AgentVerifier: agents, AuthorizationServers: servers,
		PublicBaseURL: *baseURL, SessionTimeout: *sessionTimeout, Logger: log, TracerProvider: tr.Provider}
	if err := withKeys(&cfg, *cursorKey, *confirmKey); err != nil {
		return err
	}
	srv, err := mcpserver.New(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", sf.addr)
	if err != nil {
		return err
	}
	svc := newMCPService(srv)
	log.Info("mcp listening", slog.String("addr", ln.Addr().String()), slog.String("resource", resource))
	return serveUntilDone(ctx, log, sf.shutdown, svc.Serve, svc.Shutdown, ln)
}
