package fetch

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"

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

// reservedPrefixes are refused besides what netip's predicates cover.
var reservedPrefixes = []struct {
	prefix netip.Prefix
	what   string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "in the 'this network' range"},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared (carrier-grade NAT)"},
	{netip.MustParsePrefix("192.0.0.0/24"), "reserved for protocol assignments"},
	{netip.MustParsePrefix("198.18.0.0/15"), "reserved for benchmarking"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
	{netip.MustParsePrefix("64:ff9b::/96"), "NAT64-mapped"},
	{netip.MustParsePrefix("2002::/16"), "6to4-mapped"},
}

// check returns a refusal naming why ip may not be dialled, or nil.
func (g *guard) check(ap netip.AddrPort) error {
	ip := ap.Addr()
	if g.allowed[ap] {
		return nil
	}
	why := ""
	switch {
	case ip.Is4In6():
		why = "is an IPv4-mapped IPv6 address"
	case ip == netip.MustParseAddr("169.254.169.254"):
		why = "is the cloud metadata endpoint"
	case ip.IsLoopback():
		why = "is loopback"
	case ip.IsPrivate():
		why = "is private"
	case ip.IsLinkLocalUnicast():
		why = "is link-local"
	case ip.IsMulticast(), ip.IsLinkLocalMulticast(), ip.IsInterfaceLocalMulticast():
		why = "is multicast"
	case ip.IsUnspecified():
		why = "is unspecified"
	case ip == netip.MustParseAddr("255.255.255.255"):
		why = "is broadcast"
	case !ip.IsValid():
		why = "is not a valid address"
	default:
		for _, r := range reservedPrefixes {
			if r.prefix.Contains(ip) {
				why = "is " + r.what
				break
			}
		}
	}
	if why == "" {
		return nil
	}
	return &upstream.Refusal{Reason: fmt.Sprintf("address %s %s", ip, why)}
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
