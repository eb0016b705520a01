// Package rebinding guards an HTTP service against DNS rebinding: a page on
// another site that re-points its DNS name at the service's address arrives
// with its own Host and Origin headers, and is refused. The MCP server runs
// it always; the API runs it under `roadbook dev --no-auth`, where any
// caller that reaches the port acts as the dev user (docs/SECURITY.md).
package rebinding

import (
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Guard refuses requests whose Host or Origin is not this service's. The
// MCP SDK's own guard only covers loopback listeners; this one covers every
// deployment.
type Guard struct {
	hosts   []string
	origins []string
	// loopbackPort, when the public host is a loopback address, accepts
	// every loopback name on that port (localhost, 127.0.0.1, [::1]).
	loopbackPort string
}

// New is the guard of a service reached at public (scheme://host[:port]),
// also accepting the Host values hosts and the Origin values origins.
func New(public *url.URL, hosts, origins []string) *Guard {
	g := &Guard{hosts: append([]string{strings.ToLower(public.Host)}, lower(hosts)...),
		origins: append([]string{strings.ToLower(public.Scheme + "://" + public.Host)}, lower(origins)...)}
	if isLoopback(public.Hostname()) {
		g.loopbackPort = public.Port()
	}
	return g
}

func lower(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = strings.ToLower(v)
	}
	return out
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (g *Guard) hostOK(hostport string) bool {
	hostport = strings.ToLower(hostport)
	if slices.Contains(g.hosts, hostport) {
		return true
	}
	if g.loopbackPort == "" {
		return false
	}
	h, p, err := net.SplitHostPort(hostport)
	if err != nil {
		h, p = hostport, ""
	}
	return isLoopback(h) && p == g.loopbackPort
}

// Wrap answers 403 to a request with a foreign Host or Origin, and passes
// the others to next.
func (g *Guard) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !g.hostOK(r.Host) {
			http.Error(w, "forbidden: unexpected Host", http.StatusForbidden)
			return
		}
		if o := r.Header.Get("Origin"); o != "" {
			u, err := url.Parse(o)
			if err != nil || !(slices.Contains(g.origins, strings.ToLower(o)) || g.hostOK(u.Host) && (u.Scheme == "http" || u.Scheme == "https")) {
				http.Error(w, "forbidden: unexpected Origin", http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}
