package fetch

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"

	"code.dny.dev/ssrf"

	"github.com/roadbook/roadbook/services/worker/internal/upstream"
)

// Resolver looks up a host's addresses; *net.Resolver satisfies it. Tests
// pass one that answers private addresses for public-looking names.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// guard decides which resolved addresses may be dialled. It runs at dial
// time on the address actually dialled (DialContext and net.Dialer.Control),
// so DNS rebinding between a check and the connection cannot bypass it.
type guard struct {
	// allowed are exact ip:port pairs a test server listens on
	// (AllowTestServer); production never sets it.
	allowed map[netip.AddrPort]bool
}

// special is the IANA special-purpose registries (IPv4 and IPv6) as
// code.dny.dev/ssrf generates them: every IPv4 special-purpose block, and
// for IPv6 everything outside global unicast (2000::/3, so NAT64
// 64:ff9b::/96 and 64:ff9b:1::/48, discard-only 100::/64, mapped and
// compatible addresses) plus the special blocks inside it (2001::/23,
// 2001:db8::/32, 6to4 2002::/16, 3fff::/20…). Every address describe names
// lies in these blocks too (a test holds it), so describe only words the
// refusal for the common cases; the registry decides. Ports and networks
// are the transport's business here (a configured test source may listen
// anywhere), so the guardian checks addresses only.
var special = ssrf.New(ssrf.WithAnyPort(), ssrf.WithAnyNetwork())

// check returns a refusal naming why ap may not be dialled, or nil.
func (g *guard) check(ap netip.AddrPort) error {
	if g.allowed[ap] {
		return nil
	}
	ip := ap.Addr()
	why := describe(ip)
	if why == "" && special.SafeAddr(ip) != nil {
		why = "is in an IANA special-purpose range" + specialBlock(ip)
	}
	if why == "" {
		return nil
	}
	return &upstream.Refusal{Reason: fmt.Sprintf("address %s %s", ip, why)}
}

// describe names the usual reasons an address is not dialled, in the words
// an operator reading a failed import expects; "" when none applies.
func describe(ip netip.Addr) string {
	switch {
	case !ip.IsValid():
		return "is not a valid address"
	case ip.Is4In6():
		return "is an IPv4-mapped IPv6 address"
	case ip == metadataAddr:
		return "is the cloud metadata endpoint"
	case ip.IsLoopback():
		return "is loopback"
	case ip.IsPrivate():
		return "is private"
	case ip.IsLinkLocalUnicast():
		return "is link-local"
	case ip.IsMulticast(), ip.IsLinkLocalMulticast(), ip.IsInterfaceLocalMulticast():
		return "is multicast"
	case ip.IsUnspecified():
		return "is unspecified"
	}
	return ""
}

// metadataAddr is the cloud providers' instance-metadata endpoint.
var metadataAddr = netip.MustParseAddr("169.254.169.254")

// specialBlock names the registry block holding ip, for the refusal.
func specialBlock(ip netip.Addr) string {
	if ip.Is6() && !ssrf.IPv6GlobalUnicast.Contains(ip) {
		return " (outside IPv6 global unicast " + ssrf.IPv6GlobalUnicast.String() + ")"
	}
	for _, list := range [][]netip.Prefix{ssrf.IPv4DeniedPrefixes, ssrf.IPv6DeniedPrefixes} {
		for _, p := range list {
			if p.Contains(ip) {
				return " (" + p.String() + ")"
			}
		}
	}
	return ""
}

// control is net.Dialer.Control: the last check, on the socket address
// about to be connected.
func (g *guard) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &upstream.Refusal{Reason: fmt.Sprintf("cannot parse dial address %q", address)}
	}
	return g.check(ap)
}

// newTransport returns an HTTP transport that resolves with r, refuses
// forbidden addresses before and during the dial, never uses a proxy from
// the environment (a proxy would dial for us, unchecked) and bounds headers.
func newTransport(r Resolver, g *guard) *http.Transport {
	d := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second, Control: g.control}
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, portStr, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, &upstream.Refusal{Reason: fmt.Sprintf("bad dial address %q", addr)}
		}
		port, err := netip.ParseAddrPort("0.0.0.0:" + portStr)
		if err != nil {
			return nil, &upstream.Refusal{Reason: fmt.Sprintf("bad port %q", portStr)}
		}
		var ips []netip.Addr
		if ip, err := netip.ParseAddr(host); err == nil {
			ips = []netip.Addr{ip}
		} else {
			ips, err = r.LookupNetIP(ctx, "ip", host)
			if err != nil {
				return nil, err
			}
		}
		var lastErr error = &upstream.Refusal{Reason: fmt.Sprintf("%s has no address", host)}
		for _, ip := range ips {
			ap := netip.AddrPortFrom(ip, port.Port())
			if err := g.check(ap); err != nil {
				lastErr = err
				continue
			}
			conn, err := d.DialContext(ctx, network, ap.String())
			if err == nil {
				return conn, nil
			}
			lastErr = err
		}
		return nil, lastErr
	}
	return &http.Transport{
		Proxy:                  nil,
		DialContext:            dial,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           16,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    5 * time.Second,
		ResponseHeaderTimeout:  10 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}
}
