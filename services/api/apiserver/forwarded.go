package apiserver

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// clientAddr is the rate-limit subject of an anonymous caller: the TCP
// peer's host, or — behind hops trusted reverse proxies — the address the
// outermost of them saw, which is the hops-th X-Forwarded-For entry from
// the right. Each proxy appends the address of whoever connected to it, so
// the right-most hops entries are written by proxies we trust and every
// entry further left is the client's own text: a client that sends
// "X-Forwarded-For: 1.2.3.4" only adds an entry nobody reads. A header
// with fewer entries than hops, or an entry that is not an IP address,
// did not come through the proxies as configured and keys on the peer.
func clientAddr(peer string, header http.Header, hops int) string {
	if hops > 0 {
		if ip, ok := forwardedFor(header.Values("X-Forwarded-For"), hops); ok {
			return ip
		}
	}
	host, _, err := net.SplitHostPort(peer)
	if err != nil {
		return peer
	}
	return host
}

// forwardedFor is the hops-th address from the right of the
// X-Forwarded-For header lines, read as one comma-separated list in order.
func forwardedFor(lines []string, hops int) (string, bool) {
	var entries []string
	for _, l := range lines {
		entries = append(entries, strings.Split(l, ",")...)
	}
	if len(entries) < hops {
		return "", false
	}
	raw := strings.TrimSpace(entries[len(entries)-hops])
	if ap, err := netip.ParseAddrPort(raw); err == nil {
		return ap.Addr().Unmap().String(), true
	}
	ip, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(raw, "["), "]"))
	if err != nil {
		return "", false
	}
	return ip.Unmap().String(), true
}
