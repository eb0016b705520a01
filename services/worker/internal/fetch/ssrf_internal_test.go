package fetch

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"
)

// The matrix in ssrf_test.go proves refusals through a real fetch; this
// proves the other side, which a fetch cannot without reaching a public
// host: public unicast addresses stay dialable, so the registry blocks do
// not swallow the internet.
func TestGuardAllowsPublicAddresses(t *testing.T) {
	t.Parallel()
	g := &guard{}
	for _, a := range []string{
		"1.1.1.1:443", "8.8.8.8:80", "151.101.1.140:443", "192.0.3.1:443", "100.128.0.1:80", "198.20.0.1:80",
		"[2a00:1450:4001:82b::200e]:443", "[2606:4700::6810:84e5]:443", "[2001:4860:4860::8888]:443", "[2001:200::1]:80",
	} {
		require.NoError(t, g.check(netip.MustParseAddrPort(a)), a)
	}
}

func TestGuardNamesItsRefusals(t *testing.T) {
	t.Parallel()
	g := &guard{}
	for addr, want := range map[string]string{
		"127.0.0.1:80":         "address 127.0.0.1 is loopback",
		"[fe80::1]:80":         "address fe80::1 is link-local",
		"[ff02::1]:80":         "address ff02::1 is multicast",
		"224.0.0.251:5353":     "address 224.0.0.251 is multicast",
		"0.0.0.0:80":           "address 0.0.0.0 is unspecified",
		"[::]:80":              "address :: is unspecified",
		"[::ffff:10.0.0.1]:80": "address ::ffff:10.0.0.1 is an IPv4-mapped IPv6 address",
		"192.0.0.8:80":         "address 192.0.0.8 is in an IANA special-purpose range (192.0.0.0/24)",
	} {
		err := g.check(netip.MustParseAddrPort(addr))
		require.Error(t, err, addr)
		require.Contains(t, err.Error(), want, addr)
	}
	t.Run("every address describe names is refused by the IANA registry too", func(t *testing.T) {
		t.Parallel()
		for _, a := range []string{"127.0.0.1", "10.0.0.1", "172.16.0.1", "192.168.1.1", "169.254.169.254", "169.254.1.1",
			"224.0.0.1", "0.0.0.0", "::1", "fd00::1", "fe80::1", "ff02::1", "::", "::ffff:8.8.8.8"} {
			ip := netip.MustParseAddr(a)
			require.NotEmpty(t, describe(ip), a)
			require.Error(t, special.SafeAddr(ip), a)
		}
	})
	t.Run("a test server's exact address is let through, nothing else on its host", func(t *testing.T) {
		t.Parallel()
		ok := netip.MustParseAddrPort("127.0.0.1:8123")
		g := &guard{allowed: map[netip.AddrPort]bool{ok: true}}
		require.NoError(t, g.check(ok))
		require.Error(t, g.check(netip.MustParseAddrPort("127.0.0.1:8124")))
	})
}
