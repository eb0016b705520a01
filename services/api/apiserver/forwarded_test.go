package apiserver

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestClientAddr(t *testing.T) {
	t.Parallel()
	xff := func(lines ...string) http.Header {
		h := http.Header{}
		for _, l := range lines {
			h.Add("X-Forwarded-For", l)
		}
		return h
	}
	cases := []struct {
		name   string
		peer   string
		header http.Header
		hops   int
		want   string
	}{
		{"with no trusted hop the header is ignored", "10.0.0.9:5123", xff("203.0.113.7"), 0, "10.0.0.9"},
		{"one hop takes the right-most entry, the one the proxy wrote", "10.0.0.9:5123", xff("198.51.100.1, 203.0.113.7"), 1, "203.0.113.7"},
		{"a client-written left-most entry is never read", "10.0.0.9:5123", xff("1.1.1.1, 2.2.2.2, 203.0.113.7"), 1, "203.0.113.7"},
		{"two hops take the second entry from the right", "10.0.0.9:5123", xff("1.1.1.1, 203.0.113.7, 10.0.0.2"), 2, "203.0.113.7"},
		{"entries of several header lines are read in order", "10.0.0.9:5123", xff("1.1.1.1", "203.0.113.7, 10.0.0.2"), 2, "203.0.113.7"},
		{"fewer entries than hops key on the peer", "10.0.0.9:5123", xff("203.0.113.7"), 2, "10.0.0.9"},
		{"no header keys on the peer", "10.0.0.9:5123", http.Header{}, 1, "10.0.0.9"},
		{"an entry that is no address keys on the peer", "10.0.0.9:5123", xff("203.0.113.7, bogus"), 1, "10.0.0.9"},
		{"an address with a port keys on the address", "10.0.0.9:5123", xff("203.0.113.7:4711"), 1, "203.0.113.7"},
		{"IPv6 entries, bracketed or not, are read", "[::1]:5123", xff("[2001:db8::1], 2001:db8::2"), 2, "2001:db8::1"},
		{"an IPv4-mapped address is its IPv4 address", "10.0.0.9:5123", xff("::ffff:203.0.113.7"), 1, "203.0.113.7"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, c.want, clientAddr(c.peer, c.header, c.hops))
		})
	}
}
