package servers

import (
	"flag"
	"net/http"
	"strings"
	"time"

	"github.com/roadbook/roadbook/auth"
	"github.com/roadbook/roadbook/cmd/roadbook/internal/devstate"
	"github.com/roadbook/roadbook/services/api/planner"
)

// plannerFlags configure the web planner that `roadbook api` and `roadbook
// dev` serve under /app/ (services/api/planner).
type plannerFlags struct {
	issuer, clientID, scope, audience string
	tilesURL, tilesAttribution        string
}

// register adds the planner's flags. withOIDC is false for `roadbook dev`,
// whose planner signs in through the dev provider.
func (p *plannerFlags) register(fs *flag.FlagSet, withOIDC bool) {
	if withOIDC {
		fs.StringVar(&p.issuer, "planner-oidc-issuer", "", "OpenID issuer the planner signs people in with (default: --jwt-issuer) ($ROADBOOK_PLANNER_OIDC_ISSUER)")
		fs.StringVar(&p.clientID, "planner-oidc-client-id", "", "the planner's public client id at the issuer ($ROADBOOK_PLANNER_OIDC_CLIENT_ID)")
		fs.StringVar(&p.scope, "planner-oidc-scope", planner.DefaultScope, "scopes the planner asks for ($ROADBOOK_PLANNER_OIDC_SCOPE)")
		fs.StringVar(&p.audience, "planner-oidc-audience", "", "`audience` authorization parameter, for issuers that need one ($ROADBOOK_PLANNER_OIDC_AUDIENCE)")
	}
	fs.StringVar(&p.tilesURL, "tiles-url", "", "raster map tiles of the planner, a {z}/{x}/{y} URL template; empty: the route on a plain background ($ROADBOOK_TILES_URL)")
	fs.StringVar(&p.tilesAttribution, "tiles-attribution", "© OpenStreetMap contributors", "attribution shown with the tiles ($ROADBOOK_TILES_ATTRIBUTION)")
}

// config is the planner's runtime configuration; jwtIssuer is the API's
// --jwt-issuer, the default issuer once a client id is given. Without a
// client id the planner is served and says sign-in is not configured (an
// API deployed before the planner keeps starting); an issuer given without
// one is refused by planner.Handler.
func (p *plannerFlags) config(jwtIssuer string) planner.Config {
	iss := p.issuer
	if iss == "" && p.clientID != "" && strings.HasPrefix(jwtIssuer, "http") {
		iss = jwtIssuer
	}
	return planner.Config{
		OIDC:  planner.OIDC{Issuer: iss, ClientID: p.clientID, Scope: p.scope, Audience: p.audience},
		Tiles: planner.Tiles{URL: p.tilesURL, Attribution: p.tilesAttribution},
	}
}

// withPlanner serves the planner under /app/ (and extra, e.g. the dev
// provider, under its own prefix) beside the API.
func withPlanner(api, app http.Handler, extra map[string]http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", api)
	mux.Handle(planner.Prefix, app)
	mux.Handle("GET /app", http.RedirectHandler(planner.Prefix, http.StatusMovedPermanently))
	for prefix, h := range extra {
		mux.Handle(prefix, h)
	}
	return mux
}

// devPlanner is the dev instance's planner: signed in by the dev provider
// on the API's origin, as the dev user.
func (d *devInstance) devPlanner(api http.Handler) (http.Handler, error) {
	cfg := d.flags.planner.config("")
	cfg.OIDC = planner.OIDC{Issuer: d.apiURL + auth.DevIssuerPath, ClientID: auth.DevClientID}
	app, err := planner.Handler(cfg)
	if err != nil {
		return nil, err
	}
	ttl := d.flags.tokenTTL
	if ttl > 12*time.Hour {
		ttl = 12 * time.Hour // a browser session's token, not the printed one
	}
	provider := &auth.DevSignIn{
		Issuer: d.apiURL + auth.DevIssuerPath, ClientID: auth.DevClientID, RedirectPrefix: d.apiURL + planner.Prefix,
		AccessToken: func() (string, time.Duration, error) {
			tok, err := devstate.MintToken(d.issuer, devstate.User, auth.DefaultAudience, ttl)
			return tok, ttl, err
		},
		IDToken: func(aud, iss string) (string, error) {
			return d.issuer.Mint(auth.Claims{Issuer: iss, Subject: devstate.User, Audience: []string{aud}, ExpiresAt: time.Now().Add(ttl)})
		},
	}
	signIn, err := provider.Handler()
	if err != nil {
		return nil, err
	}
	return withPlanner(api, app, map[string]http.Handler{auth.DevIssuerPath + "/": signIn}), nil
}
