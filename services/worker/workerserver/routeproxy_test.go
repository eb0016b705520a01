package workerserver_test

import (
	"io"
	"net"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// routeProxy forwards one NATS node's route connections to another's route
// port, so a test can cut a node off its cluster (cut) while its clients
// stay connected to it — a network partition, as evidence/cluster/proxy.go
// makes one for the chaos runs.
type routeProxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	cut   bool
	conns map[net.Conn]net.Conn
}

func newRouteProxy(t *testing.T, target string) *routeProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &routeProxy{ln: ln, target: target, conns: map[net.Conn]net.Conn{}}
	t.Cleanup(func() { _ = ln.Close(); p.setCut(true) })
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			go p.forward(in)
		}
	}()
	return p
}

func (p *routeProxy) addr() string { return p.ln.Addr().String() }

func (p *routeProxy) forward(in net.Conn) {
	p.mu.Lock()
	if p.cut {
		p.mu.Unlock()
		_ = in.Close()
		return
	}
	p.conns[in] = nil
	p.mu.Unlock()
	out, err := net.Dial("tcp", p.target)
	if err != nil {
		_ = in.Close()
		return
	}
	p.mu.Lock()
	if _, ok := p.conns[in]; !ok || p.cut {
		p.mu.Unlock()
		_ = in.Close()
		_ = out.Close()
		return
	}
	p.conns[in] = out
	p.mu.Unlock()
	go func() { _, _ = io.Copy(out, in); _ = out.Close() }()
	_, _ = io.Copy(in, out)
	_ = in.Close()
}

// setCut closes every connection through the proxy and refuses new ones
// (true), or forwards again (false).
func (p *routeProxy) setCut(cut bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = cut
	if !cut {
		return
	}
	for in, out := range p.conns {
		_ = in.Close()
		if out != nil {
			_ = out.Close()
		}
		delete(p.conns, in)
	}
}

// sinkAddr is a listener that closes what it accepts: the route address a
// node advertises, so no node reaches another around the proxies.
func sinkAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	return ln.Addr().String()
}
