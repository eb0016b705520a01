package mcpserver

import (
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// rebinding refuses requests whose Host or Origin is not this service's:
// a page on another site that re-points its DNS name at this address (DNS
// rebinding) arrives with its own Host and Origin. The SDK's own guard only
// covers loopback listeners; this one covers every deployment.
type rebinding struct {
	hosts   []string
	origins []string
	// loopbackPort, when the public host is a loopback address, accepts
	// every loopback name on that port (localhost, 127.0.0.1, [::1]).
	loopbackPort string
}

func newRebinding(public *url.URL, hosts, origins []string) *rebinding {
	rb := &rebinding{hosts: append([]string{strings.ToLower(public.Host)}, lower(hosts)...),
		origins: append([]string{strings.ToLower(public.Scheme + "://" + public.Host)}, lower(origins)...)}
	if isLoopback(public.Hostname()) {
		rb.loopbackPort = public.Port()
	}
	return rb
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

func (rb *rebinding) hostOK(hostport string) bool {
	hostport = strings.ToLower(hostport)
	if slices.Contains(rb.hosts, hostport) {
		return true
	}
	if rb.loopbackPort == "" {
		return false
	}
	h, p, err := net.SplitHostPort(hostport)
	if err != nil {
		h, p = hostport, ""
	}
	return isLoopback(h) && p == rb.loopbackPort
}

func (rb *rebinding) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !rb.hostOK(r.Host) {
			http.Error(w, "forbidden: unexpected Host", http.StatusForbidden)
			return
		}
		if o := r.Header.Get("Origin"); o != "" {
			u, err := url.Parse(o)
			if err != nil || !(slices.Contains(rb.origins, strings.ToLower(o)) || rb.hostOK(u.Host) && (u.Scheme == "http" || u.Scheme == "https")) {
				http.Error(w, "forbidden: unexpected Origin", http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}
