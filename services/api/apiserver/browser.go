package apiserver

import (
	"net/http"

	"github.com/roadbook/roadbook/auth"
	"github.com/roadbook/roadbook/services/api/sharepage"
)

// browserRoutes registers what browsers fetch directly rather than through
// Connect — the share page with its downloads, and the owners' profile SVG —
// and returns the whole API wrapped in the CORS policy of cfg.CORS, so
// browser frontends on other origins can call the Connect services.
func (c *shared) browserRoutes(mux *http.ServeMux) (http.Handler, error) {
	policy, err := newCORS(c.cfg.CORS)
	if err != nil {
		return nil, err
	}
	sharepage.New(c.planner, func(r *http.Request) string {
		return clientAddr(r.RemoteAddr, r.Header, c.cfg.TrustedProxyHops)
	}, c.log).Register(mux)
	mux.Handle("GET /trips/{id}/profile.svg", c.cfg.Verifier.Middleware(auth.ScopeRead, http.HandlerFunc(c.serveTripProfile)))
	return policy(mux), nil
}
