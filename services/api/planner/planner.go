package planner

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"
)

// bundle is the built planner (index.html, content-hashed JS and CSS).
//
//go:embed all:dist
var bundle embed.FS

// Config is the planner's runtime configuration, served as
// /app/config.json so one bundle runs against any deployment.
type Config struct {
	// APIURL is the Connect API's origin; empty means the page's own origin
	// (the planner is served by the API).
	APIURL string `json:"apiUrl"`
	// OIDC is how people sign in; a zero Issuer means sign-in is not
	// configured (the page says so).
	OIDC OIDC `json:"oidc"`
	// Tiles is the raster tile source; a zero URL means none: the route is
	// drawn on a plain background and the page says so.
	Tiles Tiles `json:"tiles"`
}

// OIDC is the planner's OpenID Connect client: authorization code with
// PKCE against Issuer (discovery at Issuer/.well-known/openid-configuration).
type OIDC struct {
	// Issuer is the authority URL.
	Issuer string `json:"issuer"`
	// ClientID is the planner's public client id at the issuer.
	ClientID string `json:"clientId"`
	// Scope is requested at sign-in (default "openid trips:read trips:write").
	Scope string `json:"scope"`
	// Audience, when set, is sent as the `audience` authorization parameter
	// (issuers that mint API tokens per audience).
	Audience string `json:"audience,omitempty"`
}

// Tiles is a raster tile source (an {z}/{x}/{y} URL template).
type Tiles struct {
	// URL is the template, e.g. https://tile.openstreetmap.org/{z}/{x}/{y}.png.
	URL string `json:"url"`
	// Attribution is shown on the map (the tile provider's terms).
	Attribution string `json:"attribution"`
	// MaxZoom is the highest zoom the source serves (default 18).
	MaxZoom int `json:"maxZoom"`
}

// Prefix is where the planner lives on the API's origin.
const Prefix = "/app/"

// DefaultScope is requested when Config.OIDC.Scope is empty.
const DefaultScope = "openid trips:read trips:write"

// Handler serves the planner under Prefix. It refuses a configuration
// whose URLs are not absolute http(s) URLs, so a typo fails at start-up
// rather than in every rider's browser.
func Handler(cfg Config) (http.Handler, error) {
	if cfg.OIDC.Scope == "" {
		cfg.OIDC.Scope = DefaultScope
	}
	if cfg.Tiles.MaxZoom == 0 {
		cfg.Tiles.MaxZoom = 18
	}
	connect := []string{"'self'"}
	images := []string{"'self'", "data:", "blob:"}
	for _, u := range []struct{ name, value string }{{"APIURL", cfg.APIURL}, {"OIDC.Issuer", cfg.OIDC.Issuer}, {"Tiles.URL", cfg.Tiles.URL}} {
		if u.value == "" {
			continue
		}
		o, err := origin(u.value)
		if err != nil {
			return nil, fmt.Errorf("planner: %s: %w", u.name, err)
		}
		if u.name == "Tiles.URL" {
			images = append(images, o)
		} else {
			connect = append(connect, o)
		}
	}
	if cfg.OIDC.Issuer != "" && cfg.OIDC.ClientID == "" {
		return nil, errors.New("planner: OIDC.ClientID is required with an issuer")
	}
	files, err := fs.Sub(bundle, "dist")
	if err != nil {
		return nil, err
	}
	index, err := fs.ReadFile(files, "index.html")
	if err != nil {
		return nil, errors.New("planner: the bundle has no index.html (run scripts/build-web-client.sh)")
	}
	conf, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	csp := "default-src 'none'; script-src 'self'; style-src 'self'; img-src " + strings.Join(images, " ") +
		"; connect-src " + strings.Join(connect, " ") +
		"; font-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
	return &server{files: files, index: index, config: conf, csp: csp, static: http.FileServerFS(files)}, nil
}

// origin is scheme://host[:port] of an absolute http(s) URL.
func origin(raw string) (string, error) {
	// A tile template's {s} subdomain placeholder is any subdomain.
	u, err := url.Parse(strings.ReplaceAll(raw, "{s}.", "sub."))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%q is not an absolute http(s) URL", raw)
	}
	host := u.Host
	if strings.Contains(raw, "{s}.") {
		host = "*" + strings.TrimPrefix(host, "sub")
	}
	return u.Scheme + "://" + host, nil
}

// server answers the planner's routes.
type server struct {
	files  fs.FS
	index  []byte
	config []byte
	csp    string
	static http.Handler
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", s.csp)
	rel := strings.TrimPrefix(r.URL.Path, Prefix)
	switch {
	case rel == "config.json":
		h.Set("Content-Type", "application/json")
		h.Set("Cache-Control", "no-cache")
		_, _ = w.Write(s.config)
	case strings.HasPrefix(rel, "assets/"):
		if _, err := fs.Stat(s.files, path.Clean(rel)); err != nil {
			http.NotFound(w, r)
			return
		}
		// Content-hashed names: a new build is a new name.
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
		r2 := r.Clone(r.Context())
		r2.URL.Path = "/" + rel
		s.static.ServeHTTP(w, r2)
	case rel != "" && strings.Contains(path.Base(rel), "."):
		http.NotFound(w, r)
	default:
		// Every other path is a view of the single-page app (/app/,
		// /app/trips/<id>): the same page, routed in the browser.
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Cache-Control", "no-cache")
		http.ServeContent(w, r, "index.html", time.Time{}, bytes.NewReader(s.index))
	}
}
