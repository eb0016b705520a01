package fetch_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/services/worker/internal/fetch"
)

// fakeResolver answers fixed addresses per name; a name with several answer
// lists gives the next list on each lookup (DNS rebinding).
type fakeResolver struct {
	mu      sync.Mutex
	answers map[string][][]netip.Addr
}

func (r *fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	lists := r.answers[host]
	if len(lists) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	first := lists[0]
	if len(lists) > 1 {
		r.answers[host] = lists[1:]
	}
	return first, nil
}

func TestSSRFMatrix(t *testing.T) {
	t.Parallel()
	tour := readTestdata(t, "tour_1234567890.html")

	type tc struct {
		name string
		// setup returns the Komoot base URL, fetcher options and the
		// target servers that must see no connection.
		setup  func(t *testing.T) (string, []fetch.Option, []*source)
		reason string
		// maxBody overrides the body bound.
		maxBody int64
	}
	target := func(t *testing.T) *source {
		return newSource(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(tour) })
	}
	literal := func(base string) func(t *testing.T) (string, []fetch.Option, []*source) {
		return func(t *testing.T) (string, []fetch.Option, []*source) { return base, nil, nil }
	}
	cases := []tc{
		{name: "loopback 127.0.0.1", reason: "is loopback", setup: func(t *testing.T) (string, []fetch.Option, []*source) {
			s := target(t)
			return s.srv.URL, nil, []*source{s}
		}},
		{name: "10/8", reason: "address 10.1.2.3 is private", setup: literal("http://10.1.2.3:8080")},
		{name: "172.16/12", reason: "address 172.16.5.4 is private", setup: literal("http://172.16.5.4")},
		{name: "192.168/16", reason: "address 192.168.1.1 is private", setup: literal("http://192.168.1.1")},
		{name: "the cloud metadata address 169.254.169.254", reason: "is the cloud metadata endpoint", setup: literal("http://169.254.169.254")},
		{name: "IPv6 loopback [::1]", reason: "address ::1 is loopback", setup: func(t *testing.T) (string, []fetch.Option, []*source) {
			ln, err := net.Listen("tcp", "[::1]:0")
			if err != nil {
				return "http://[::1]:9", nil, nil // no IPv6 here; the refusal happens before any dial anyway
			}
			s6 := newSourceOn(t, ln, tour)
			return "http://" + ln.Addr().String(), nil, []*source{s6}
		}},
		{name: "IPv4-mapped IPv6 [::ffff:127.0.0.1] even when 127.0.0.1 itself is allowed", reason: "is an IPv4-mapped IPv6 address", setup: func(t *testing.T) (string, []fetch.Option, []*source) {
			s := target(t)
			return fmt.Sprintf("http://[::ffff:127.0.0.1]:%d", s.addr.Port()), []fetch.Option{fetch.AllowTestServer(s.addr)}, []*source{s}
		}},
		{name: "unique local fd00::/8", reason: "address fd00::1 is private", setup: literal("http://[fd00::1]:80")},
		// IANA special-purpose blocks (code.dny.dev/ssrf's generated registry).
		{name: "NAT64 local-use 64:ff9b:1::/48", reason: "address 64:ff9b:1::a00:1 is in an IANA special-purpose range (outside IPv6 global unicast 2000::/3)", setup: literal("http://[64:ff9b:1::a00:1]:80")},
		{name: "NAT64 well-known 64:ff9b::/96 mapping 127.0.0.1", reason: "address 64:ff9b::7f00:1 is in an IANA special-purpose range", setup: literal("http://[64:ff9b::7f00:1]:80")},
		{name: "IETF protocol assignments 2001::/23 (Teredo)", reason: "address 2001::1 is in an IANA special-purpose range (2001::/23)", setup: literal("http://[2001::1]:443")},
		{name: "documentation 2001:db8::/32", reason: "address 2001:db8::5 is in an IANA special-purpose range (2001:db8::/32)", setup: literal("http://[2001:db8::5]:80")},
		{name: "documentation 3fff::/20", reason: "address 3fff::1 is in an IANA special-purpose range (3fff::/20)", setup: literal("http://[3fff::1]:80")},
		{name: "discard-only 100::/64", reason: "address 100::1 is in an IANA special-purpose range (outside IPv6 global unicast 2000::/3)", setup: literal("http://[100::1]:80")},
		{name: "6to4 2002::/16", reason: "address 2002:a00:1:: is in an IANA special-purpose range (2002::/16)", setup: literal("http://[2002:a00:1::]:80")},
		{name: "TEST-NET-1 192.0.2.0/24", reason: "address 192.0.2.10 is in an IANA special-purpose range (192.0.2.0/24)", setup: literal("http://192.0.2.10")},
		{name: "TEST-NET-2 198.51.100.0/24", reason: "address 198.51.100.7 is in an IANA special-purpose range (198.51.100.0/24)", setup: literal("http://198.51.100.7")},
		{name: "TEST-NET-3 203.0.113.0/24", reason: "address 203.0.113.9 is in an IANA special-purpose range (203.0.113.0/24)", setup: literal("http://203.0.113.9")},
		{name: "shared address space 100.64.0.0/10", reason: "address 100.64.1.1 is in an IANA special-purpose range (100.64.0.0/10)", setup: literal("http://100.64.1.1")},
		{name: "benchmarking 198.18.0.0/15", reason: "address 198.19.0.1 is in an IANA special-purpose range (198.18.0.0/15)", setup: literal("http://198.19.0.1")},
		{name: "the limited broadcast address", reason: "address 255.255.255.255 is in an IANA special-purpose range (240.0.0.0/4)", setup: literal("http://255.255.255.255")},
		{name: "'this network' 0.0.0.0/8", reason: "address 0.1.2.3 is in an IANA special-purpose range (0.0.0.0/8)", setup: literal("http://0.1.2.3")},
		{name: "a name resolving to a documentation address only", reason: "address 2001:db8::7 is in an IANA special-purpose range", setup: func(t *testing.T) (string, []fetch.Option, []*source) {
			r := &fakeResolver{answers: map[string][][]netip.Addr{"www.komoot.example": {{netip.MustParseAddr("2001:db8::7")}}}}
			return "http://www.komoot.example", []fetch.Option{fetch.WithResolver(r)}, nil
		}},
		{name: "a name resolving to a private address", reason: "is loopback", setup: func(t *testing.T) (string, []fetch.Option, []*source) {
			s := target(t)
			r := &fakeResolver{answers: map[string][][]netip.Addr{
				"www.komoot.example": {{netip.MustParseAddr("10.0.0.7"), s.addr.Addr()}},
			}}
			return fmt.Sprintf("http://www.komoot.example:%d", s.addr.Port()), []fetch.Option{fetch.WithResolver(r)}, []*source{s}
		}},
		{name: "a redirect to a private address", reason: "redirect to another host (10.0.0.1)", setup: func(t *testing.T) (string, []fetch.Option, []*source) {
			s := newSource(t, func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, "http://10.0.0.1/tour/1", http.StatusFound)
			})
			return s.srv.URL, []fetch.Option{fetch.AllowTestServer(s.addr)}, nil
		}},
		{name: "a redirect on the same name that now resolves to a private address (DNS rebinding)", reason: "address 10.0.0.1 is private", setup: func(t *testing.T) (string, []fetch.Option, []*source) {
			s := newSource(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/tour/1" {
					w.Header().Set("Connection", "close") // force a new dial for the redirect
					http.Redirect(w, r, "/tour/1/again", http.StatusFound)
					return
				}
				_, _ = w.Write(tour)
			})
			r := &fakeResolver{answers: map[string][][]netip.Addr{
				"komoot.example": {{s.addr.Addr()}, {netip.MustParseAddr("10.0.0.1")}},
			}}
			return fmt.Sprintf("http://komoot.example:%d", s.addr.Port()), []fetch.Option{fetch.WithResolver(r), fetch.AllowTestServer(s.addr)}, nil
		}},
		{name: "a redirect to another host", reason: "redirect to another host", setup: func(t *testing.T) (string, []fetch.Option, []*source) {
			other := target(t)
			s := newSource(t, func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, other.srv.URL+"/tour/1", http.StatusFound)
			})
			return s.srv.URL, []fetch.Option{fetch.AllowTestServer(s.addr), fetch.AllowTestServer(other.addr)}, []*source{other}
		}},
		{name: "an oversized body", reason: "response body exceeds 65536 bytes", maxBody: 64 << 10, setup: func(t *testing.T) (string, []fetch.Option, []*source) {
			s := newSource(t, func(w http.ResponseWriter, r *http.Request) {
				w.(http.Flusher).Flush()
				chunk := []byte(strings.Repeat("<p>padding</p>", 1024))
				for range 200 { // ~2.8 MB, no Content-Length
					if _, err := w.Write(chunk); err != nil {
						return
					}
				}
			})
			return s.srv.URL, []fetch.Option{fetch.AllowTestServer(s.addr)}, nil
		}},
	}
	for _, c := range cases {
		t.Run("refuses "+c.name, func(t *testing.T) {
			t.Parallel()
			base, opts, targets := c.setup(t)
			f := newFetcher(t, fetch.Config{KomootBaseURL: base, MaxBodyBytes: c.maxBody}, opts...)
			_, err := f.Fetch(context.Background(), trip.Source{Kind: trip.SourceKomootTour, ID: "1"})
			require.ErrorIs(t, err, fetch.ErrRouteFetchFailed)
			var fe *fetch.Error
			require.ErrorAs(t, err, &fe)
			require.Equal(t, trip.ImportRouteFetchFailed, fe.ImportCode())
			require.False(t, fe.Retryable())
			require.Contains(t, fe.Reason, c.reason)
			for _, s := range targets {
				require.Zero(t, s.conns.Load(), "the target saw a connection")
				require.Zero(t, s.hits.Load(), "the target saw a request")
			}
		})
	}
}

// newSourceOn serves the tour page on an existing listener.
func newSourceOn(t *testing.T, ln net.Listener, page []byte) *source {
	t.Helper()
	s := &source{}
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.hits.Add(1); _, _ = w.Write(page) }),
		ConnState: func(_ net.Conn, st http.ConnState) {
			if st == http.StateNew {
				s.conns.Add(1)
			}
		},
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return s
}
