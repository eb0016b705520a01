package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/roadbook/roadbook/auth/rebinding"
	"github.com/roadbook/roadbook/services/mcp/internal/seal"
	"github.com/roadbook/roadbook/services/mcp/internal/tools"
)

// Version is the server version reported at initialisation.
const Version = "0.1.0"

// StdioTokenEnv is the environment variable RunStdioFromEnv reads the
// agent's token from.
const StdioTokenEnv = "ROADBOOK_MCP_TOKEN"

// Server is the MCP service: an http.Handler for /mcp and the
// protected-resource metadata, and a stdio runner.
type Server struct {
	cfg         Config
	cursors     *seal.Keys
	confirms    *seal.Keys
	api         tools.API
	defs        []*mcp.Tool
	handler     http.Handler
	resource    string
	metadataURL string
}

// New builds the service. It refuses to start when any tool's input schema
// is open (an undeclared argument would be dropped in silence).
func New(cfg Config) (*Server, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	cursors, err := seal.NewKeys(cfg.CurrentKeyID, cfg.HMACKeys)
	if err != nil {
		return nil, fmt.Errorf("mcpserver: %w", err)
	}
	confirms, err := seal.NewKeys(cfg.CurrentConfirmKeyID, cfg.ConfirmKeys)
	if err != nil {
		return nil, fmt.Errorf("mcpserver: confirmation keys: %w", err)
	}
	public, _ := url.Parse(strings.TrimRight(cfg.PublicBaseURL, "/"))
	s := &Server{cfg: cfg, cursors: cursors, confirms: confirms, api: newAPI(&cfg), resource: ResourceURL(cfg.PublicBaseURL),
		metadataURL: strings.TrimRight(cfg.PublicBaseURL, "/") + "/.well-known/oauth-protected-resource/mcp"}

	// One SDK server for every HTTP session: the tools keep no state, the
	// caller comes from each request's verified token.
	var fallback *tools.Caller
	if cfg.NoAuthUser != "" {
		fallback = &tools.Caller{UserID: cfg.NoAuthUser, Scopes: []string{tools.ScopeRead, tools.ScopeWrite}}
	}
	httpServer, all, err := s.newMCPServer(fallback)
	if err != nil {
		return nil, err
	}
	scopeOf := map[string]string{}
	for _, t := range all {
		scopeOf[t.Name] = t.Scope
		s.defs = append(s.defs, t.Definition())
	}
	streamable := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return httpServer }, &mcp.StreamableHTTPOptions{
		SessionTimeout:      cfg.SessionTimeout,
		MaxRequestBodyBytes: cfg.MaxRequestBodyBytes,
		Logger:              cfg.Logger,
	})
	guard := &bearer{verifier: cfg.AgentVerifier, noAuthUser: cfg.NoAuthUser, metadataURL: s.metadataURL, scopeOf: scopeOf, maxBody: cfg.MaxRequestBodyBytes}
	meta := sdkauth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:               s.resource,
		AuthorizationServers:   cfg.AuthorizationServers,
		ScopesSupported:        []string{tools.ScopeRead, tools.ScopeWrite},
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "Roadbook",
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", traceHTTP(cfg.TracerProvider.Tracer(TracerName), guard.wrap(streamable)))
	mux.Handle("GET /.well-known/oauth-protected-resource/mcp", meta)
	mux.Handle("OPTIONS /.well-known/oauth-protected-resource/mcp", meta)
	mux.Handle("GET /.well-known/oauth-protected-resource", meta)
	mux.Handle("OPTIONS /.well-known/oauth-protected-resource", meta)
	s.handler = rebinding.New(public, cfg.AllowedHosts, cfg.AllowedOrigins).Wrap(mux)
	return s, nil
}

// newMCPServer builds an SDK server with the registry; fixed is the caller
// of calls that carry no token info (stdio, or --no-auth).
func (s *Server) newMCPServer(fixed *tools.Caller) (*mcp.Server, []tools.Tool, error) {
	env := &tools.Env{API: s.api, Cursors: s.cursors, Confirmations: s.confirms, Clock: s.cfg.Clock, Logger: s.cfg.Logger,
		Caller: func(req *mcp.CallToolRequest) (tools.Caller, bool) {
			if req.Extra != nil && req.Extra.TokenInfo != nil && req.Extra.TokenInfo.UserID != "" {
				return tools.Caller{UserID: req.Extra.TokenInfo.UserID, Scopes: req.Extra.TokenInfo.Scopes}, true
			}
			if fixed != nil {
				return *fixed, true
			}
			return tools.Caller{}, false
		}}
	srv := mcp.NewServer(&mcp.Implementation{Name: "roadbook", Title: "Roadbook", Version: Version}, &mcp.ServerOptions{
		Instructions: tools.Instructions,
		Logger:       s.cfg.Logger,
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
	})
	srv.AddReceivingMiddleware(traceRequests(s.cfg.TracerProvider.Tracer(TracerName)))
	all := tools.All()
	if err := tools.Register(srv, env, all); err != nil {
		return nil, nil, fmt.Errorf("mcpserver: %w", err)
	}
	return srv, all, nil
}

// ServeHTTP serves /mcp, /.well-known/oauth-protected-resource/mcp and
// /.well-known/oauth-protected-resource.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// Handler is s as an http.Handler.
func (s *Server) Handler() http.Handler { return s.handler }

// ResourceURL is this service's resource identifier (the audience agents'
// tokens must name).
func (s *Server) ResourceURL() string { return s.resource }

// Tools returns the published definition of every tool, in tools/list
// order (for snapshots and documentation).
func (s *Server) Tools() []*mcp.Tool { return s.defs }

// ErrNoToken is returned by RunStdioFromEnv when the environment holds no
// token.
var ErrNoToken = errors.New("mcpserver: no agent token in " + StdioTokenEnv)

// Run serves one MCP session on transport for the agent whose token is
// given (verified like an HTTP bearer token; its audience must be this
// resource). It returns when the session ends.
func (s *Server) Run(ctx context.Context, transport mcp.Transport, token string) error {
	var caller tools.Caller
	switch {
	case token != "" && s.cfg.AgentVerifier != nil:
		p, err := s.cfg.AgentVerifier.Verify(ctx, token)
		if err != nil {
			return fmt.Errorf("mcpserver: agent token: %w", err)
		}
		caller.UserID = p.UserID
		for _, sc := range p.Scopes {
			caller.Scopes = append(caller.Scopes, string(sc))
		}
	case token == "" && s.cfg.NoAuthUser != "":
		caller = tools.Caller{UserID: s.cfg.NoAuthUser, Scopes: []string{tools.ScopeRead, tools.ScopeWrite}}
	default:
		return ErrNoToken
	}
	srv, _, err := s.newMCPServer(&caller)
	if err != nil {
		return err
	}
	return srv.Run(ctx, transport)
}

// RunStdioFromEnv serves one session on stdin/stdout for the agent whose
// token is in ROADBOOK_MCP_TOKEN.
func (s *Server) RunStdioFromEnv(ctx context.Context) error {
	tok := strings.TrimSpace(os.Getenv(StdioTokenEnv))
	if tok == "" && s.cfg.NoAuthUser == "" {
		return ErrNoToken
	}
	return s.Run(ctx, &mcp.StdioTransport{}, tok)
}
