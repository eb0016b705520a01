package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// DevSignIn is a minimal OpenID provider for `roadbook dev`, mounted at
// DevIssuerPath on the dev API beside the web planner (services/api/planner),
// minting with the dev HS256Issuer. There is one person on a loopback machine,
// so its authorize endpoint signs in the dev user without a login page;
// everything else is the real flow the planner runs against a production
// issuer: authorization code with PKCE (S256 only), the code sent back in
// the URL fragment (never to a server), single use, bound to the client,
// the redirect URI and the challenge, exchanged at the token endpoint for
// tokens the dev issuer mints.
type DevSignIn struct {
	// Issuer is the provider's URL: the API's origin + DevIssuerPath.
	Issuer string
	// ClientID is the one client it knows (the planner).
	ClientID string
	// RedirectPrefix is where codes may be sent: the planner's URL.
	RedirectPrefix string
	// AccessToken mints the dev user's API token.
	AccessToken func() (token string, ttl time.Duration, err error)
	// IDToken mints the dev user's ID token for the client (aud) and this
	// issuer (iss).
	IDToken func(audience, issuer string) (string, error)

	mu    sync.Mutex
	codes map[string]grant
	now   func() time.Time
}

// DevIssuerPath is where DevSignIn is mounted.
const DevIssuerPath = "/dev/oidc"

// DevClientID is the planner's client id at the dev provider.
const DevClientID = "roadbook-planner"

// codeTTL is how long an authorization code can be exchanged.
const codeTTL = time.Minute

// grant is one issued authorization code.
type grant struct {
	clientID, redirectURI, challenge string
	expires                          time.Time
}

// Handler serves the provider's endpoints under DevIssuerPath.
func (d *DevSignIn) Handler() (http.Handler, error) {
	if d.Issuer == "" || d.ClientID == "" || d.RedirectPrefix == "" || d.AccessToken == nil || d.IDToken == nil {
		return nil, errors.New("auth: DevSignIn needs Issuer, ClientID, RedirectPrefix, AccessToken and IDToken")
	}
	d.codes = map[string]grant{}
	if d.now == nil {
		d.now = time.Now
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+DevIssuerPath+"/.well-known/openid-configuration", d.discovery)
	mux.HandleFunc("GET "+DevIssuerPath+"/authorize", d.authorize)
	mux.HandleFunc("POST "+DevIssuerPath+"/token", d.token)
	return mux, nil
}

// discovery is the OpenID provider metadata (same origin as the planner,
// so no CORS is needed).
func (d *DevSignIn) discovery(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                d.Issuer,
		"authorization_endpoint":                d.Issuer + "/authorize",
		"token_endpoint":                        d.Issuer + "/token",
		"response_types_supported":              []string{"code"},
		"response_modes_supported":              []string{"fragment", "query"},
		"grant_types_supported":                 []string{"authorization_code"},
		"code_challenge_methods_supported":      []string{"S256"},
		"subject_types_supported":               []string{"public"},
		"id_token_signing_alg_values_supported": []string{"HS256"},
		"token_endpoint_auth_methods_supported": []string{"none"},
		"scopes_supported":                      []string{"openid", "trips:read", "trips:write"},
	})
}

// authorize signs the dev user in at once and sends the code back to the
// planner. A request that could send a code elsewhere, or without PKCE,
// gets a plain 400 page (never a redirect to an unchecked URI).
func (d *DevSignIn) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	redirect := q.Get("redirect_uri")
	switch {
	case q.Get("client_id") != d.ClientID:
		http.Error(w, "unknown client_id", http.StatusBadRequest)
		return
	case !strings.HasPrefix(redirect, d.RedirectPrefix):
		http.Error(w, "redirect_uri is not the planner's", http.StatusBadRequest)
		return
	}
	target, err := url.Parse(redirect)
	if err != nil {
		http.Error(w, "redirect_uri is not a URL", http.StatusBadRequest)
		return
	}
	back := url.Values{}
	if s := q.Get("state"); s != "" {
		back.Set("state", s)
	}
	switch {
	case q.Get("response_type") != "code":
		back.Set("error", "unsupported_response_type")
	case q.Get("code_challenge_method") != "S256" || len(q.Get("code_challenge")) < 43:
		back.Set("error", "invalid_request")
		back.Set("error_description", "PKCE with S256 is required")
	default:
		code := randomString()
		d.mu.Lock()
		for k, g := range d.codes {
			if d.now().After(g.expires) {
				delete(d.codes, k)
			}
		}
		d.codes[code] = grant{clientID: d.ClientID, redirectURI: redirect, challenge: q.Get("code_challenge"), expires: d.now().Add(codeTTL)}
		d.mu.Unlock()
		back.Set("code", code)
	}
	target.Fragment, target.RawFragment = "", ""
	loc := target.String() + "#" + back.Encode()
	if q.Get("response_mode") == "query" {
		target.RawQuery = back.Encode()
		loc = target.String()
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	http.Redirect(w, r, loc, http.StatusFound)
}

// token exchanges a code for the dev user's tokens (RFC 6749 §4.1.3 with
// RFC 7636's verifier check).
func (d *DevSignIn) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		tokenError(w, "invalid_request", "the body is not a form")
		return
	}
	f := r.PostForm
	if f.Get("grant_type") != "authorization_code" {
		tokenError(w, "unsupported_grant_type", "only authorization_code")
		return
	}
	d.mu.Lock()
	g, ok := d.codes[f.Get("code")]
	delete(d.codes, f.Get("code")) // single use, whatever happens next
	d.mu.Unlock()
	sum := sha256.Sum256([]byte(f.Get("code_verifier")))
	challenge := base64.RawURLEncoding.EncodeToString(sum[:])
	switch {
	case !ok || d.now().After(g.expires):
		tokenError(w, "invalid_grant", "unknown, used or expired code")
		return
	case f.Get("client_id") != g.clientID || f.Get("redirect_uri") != g.redirectURI:
		tokenError(w, "invalid_grant", "client_id or redirect_uri differ from the authorization request")
		return
	case subtle.ConstantTimeCompare([]byte(challenge), []byte(g.challenge)) != 1:
		tokenError(w, "invalid_grant", "code_verifier does not match the code_challenge")
		return
	}
	access, ttl, err := d.AccessToken()
	if err != nil {
		tokenError(w, "server_error", "could not mint a token")
		return
	}
	id, err := d.IDToken(d.ClientID, d.Issuer)
	if err != nil {
		tokenError(w, "server_error", "could not mint a token")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token": access, "token_type": "Bearer", "expires_in": int(ttl.Seconds()),
		"id_token": id, "scope": "openid trips:read trips:write",
	})
}

func tokenError(w http.ResponseWriter, code, desc string) {
	writeJSON(w, http.StatusBadRequest, map[string]string{"error": code, "error_description": desc})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// randomString is 32 random bytes, base64url.
func randomString() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
