package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	sdkjson "github.com/segmentio/encoding/json"

	"github.com/roadbook/roadbook/auth"
	"github.com/roadbook/roadbook/services/mcp/internal/tools"
)

type principalKey struct{}

// bearer guards /mcp as an OAuth 2.1 protected resource (MCP authorization
// spec): a missing or bad token is 401 with a WWW-Authenticate challenge
// naming the resource metadata; a token without the scope the request
// needs is 403 with error="insufficient_scope" and the scope to ask for.
// A verified caller is handed to the SDK as its TokenInfo, which also binds
// a session to its user.
type bearer struct {
	verifier    AgentVerifier
	noAuthUser  string
	metadataURL string
	scopeOf     map[string]string // tool name → scope
	maxBody     int64
}

func (b *bearer) challenge(w http.ResponseWriter, status int, params ...string) {
	params = append(params, fmt.Sprintf("resource_metadata=%q", b.metadataURL))
	w.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(params, ", "))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	msg := map[int]string{http.StatusUnauthorized: "a valid bearer token for this resource is required", http.StatusForbidden: "the token lacks the scope this request needs"}[status]
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

func (b *bearer) wrap(next http.Handler) http.Handler {
	// The SDK reads TokenInfo only from its own context key, which only its
	// middleware sets: feed it the principal verified below.
	inject := sdkauth.RequireBearerToken(func(ctx context.Context, _ string, r *http.Request) (*sdkauth.TokenInfo, error) {
		p, ok := r.Context().Value(principalKey{}).(auth.Principal)
		if !ok {
			return nil, sdkauth.ErrInvalidToken
		}
		scopes := make([]string, len(p.Scopes))
		for i, s := range p.Scopes {
			scopes[i] = string(s)
		}
		return &sdkauth.TokenInfo{UserID: p.UserID, Scopes: scopes}, nil
	}, &sdkauth.RequireBearerTokenOptions{AllowMissingExpiration: true})(next)

	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		header := r.Header.Get("Authorization")
		if header == "" && b.noAuthUser != "" {
			next.ServeHTTP(w, r)
			return
		}
		fields := strings.Fields(header)
		if len(fields) != 2 || !strings.EqualFold(fields[0], "Bearer") {
			b.challenge(w, http.StatusUnauthorized)
			return
		}
		if b.verifier == nil {
			b.challenge(w, http.StatusUnauthorized, `error="invalid_token"`)
			return
		}
		p, err := b.verifier.Verify(r.Context(), fields[1])
		if err != nil {
			b.challenge(w, http.StatusUnauthorized, `error="invalid_token"`)
			return
		}
		need, err := b.requiredScopes(r)
		if err != nil {
			var mb *http.MaxBytesError
			if errors.As(err, &mb) {
				http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, "unreadable request body", http.StatusBadRequest)
			return
		}
		for _, s := range need {
			if !p.Has(auth.Scope(s)) {
				b.challenge(w, http.StatusForbidden, `error="insufficient_scope"`, fmt.Sprintf("scope=%q", s))
				return
			}
		}
		if len(need) == 0 && !p.Has(auth.ScopeRead) && !p.Has(auth.ScopeWrite) {
			b.challenge(w, http.StatusForbidden, `error="insufficient_scope"`, fmt.Sprintf("scope=%q", tools.ScopeRead))
			return
		}
		inject.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), principalKey{}, p)))
	})
}

// requiredScopes reads the JSON-RPC message(s) of a POST (restoring the
// body) and returns the scopes of the tools it calls.
func (b *bearer) requiredScopes(r *http.Request) ([]string, error) {
	if r.Method != http.MethodPost || r.Body == nil {
		return nil, nil
	}
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, b.maxBody))
	if err != nil {
		return nil, err
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	type msg struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	// Read the message(s) as the SDK will (its readBatch): an array of
	// messages first, else one message, each key matched exactly. A parse
	// that differs from the SDK's ("NAME" matching name, as encoding/json
	// does) could ask for the scope of one tool while the SDK runs another.
	var msgs []msg
	var raws []json.RawMessage
	if err := decodeLikeSDK(body, &raws); err == nil {
		for _, raw := range raws {
			var m msg
			if decodeLikeSDK(raw, &m) == nil {
				msgs = append(msgs, m)
			}
		}
	} else {
		var m msg
		if decodeLikeSDK(body, &m) == nil {
			msgs = append(msgs, m)
		}
	}
	var need []string
	for _, m := range msgs {
		if m.Method != "tools/call" {
			continue
		}
		s, ok := b.scopeOf[m.Params.Name]
		if !ok {
			s = tools.ScopeRead
		}
		if !slices.Contains(need, s) {
			need = append(need, s)
		}
	}
	return need, nil
}

// decodeLikeSDK decodes data with the MCP SDK's JSON settings: the same
// library (segmentio/encoding) with case-sensitive keys.
func decodeLikeSDK(data []byte, v any) error {
	dec := sdkjson.NewDecoder(bytes.NewReader(data))
	dec.DontMatchCaseInsensitiveStructFields()
	return dec.Decode(v)
}
