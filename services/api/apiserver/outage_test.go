package apiserver_test

import (
	"context"
	"io"
	"net"
	"strconv"
	"sync"
	"testing"

	"connectrpc.com/connect"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/eventstore/postgres"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/services/api/apiserver"
	"github.com/roadbook/roadbook/testkit"
)

// TestReadDuringPostgresOutage: while PostgreSQL is away — every connection
// of the store cut, new ones refused, as in a restart — GetTrip answers
// Unavailable with a retry delay (an agent retries; Internal would say
// "a bug"), and once the database is back the same call answers again.
func TestReadDuringPostgresOutage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(testkit.SchemaURL(t))
	require.NoError(t, err)
	proxy := startTCPProxy(t, net.JoinHostPort(cfg.ConnConfig.Host, strconv.Itoa(int(cfg.ConnConfig.Port))))
	host, port, err := net.SplitHostPort(proxy.addr())
	require.NoError(t, err)
	p, err := strconv.Atoi(port)
	require.NoError(t, err)
	cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Fallbacks = host, uint16(p), nil
	postgres.ConfigurePool(cfg)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	h := newHarness(t, func(c *apiserver.Config) { c.Store = postgres.New(pool) })
	c := h.as(t, "outage", nil)

	created := upload(t, c.trips)
	get := func() (*connect.Response[roadbookv1.GetTripResponse], error) {
		return c.trips.GetTrip(ctx, connect.NewRequest(&roadbookv1.GetTripRequest{TripId: created.TripId}))
	}
	before, err := get()
	require.NoError(t, err)

	proxy.setDown(true)
	_, err = get()
	require.Equal(t, connect.CodeUnavailable, connect.CodeOf(err), "%v", err)
	info := errorInfo(t, err)
	require.Equal(t, roadbookv1.Code_CODE_UNAVAILABLE, info.Code)
	require.Positive(t, info.GetRetryDelay().AsDuration())
	require.Contains(t, err.Error(), "retry")

	proxy.setDown(false)
	after, err := get()
	require.NoError(t, err, "the pool reconnects once PostgreSQL is back")
	require.Equal(t, before.Msg.Trip.Version, after.Msg.Trip.Version)
}

// tcpProxy forwards connections to a server and can play its outage: down
// cuts every open connection and refuses new ones (accepted, then closed).
type tcpProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	down   bool
	conns  map[net.Conn]struct{}
}

func startTCPProxy(t *testing.T, target string) *tcpProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &tcpProxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(c)
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		<-done
		p.setDown(true)
	})
	return p
}

func (p *tcpProxy) addr() string { return p.ln.Addr().String() }

func (p *tcpProxy) serve(client net.Conn) {
	if !p.track(client) {
		_ = client.Close()
		return
	}
	server, err := net.Dial("tcp", p.target)
	if err != nil || !p.track(server) {
		_ = client.Close()
		if server != nil {
			_ = server.Close()
		}
		return
	}
	var wg sync.WaitGroup
	wg.Add(2)
	pipe := func(dst, src net.Conn) {
		defer wg.Done()
		_, _ = io.Copy(dst, src) // ends when either side closes
		_ = dst.Close()
		_ = src.Close()
	}
	go pipe(server, client)
	go pipe(client, server)
	wg.Wait()
	p.untrack(client, server)
}

// track registers c unless the proxy is down.
func (p *tcpProxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *tcpProxy) untrack(cs ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range cs {
		delete(p.conns, c)
	}
}

// setDown starts (true) or ends (false) the outage.
func (p *tcpProxy) setDown(down bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = down
	if down {
		for c := range p.conns {
			_ = c.Close()
		}
		clear(p.conns)
	}
}
