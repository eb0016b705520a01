package cluster

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
)

// Proxy is a TCP forwarder in the evidence process between one NATS node
// and another's route port: the harness routes every pair of nodes through
// one, so a partition is Cut (every connection through it closed, new ones
// refused at once) and healing is Restore — no root, no iptables, and only
// the routes between the nodes are affected, never the clients.
type Proxy struct {
	ln     net.Listener
	target string

	mu  sync.Mutex
	cut bool
	// conns maps each accepted connection to its dialled twin (nil until
	// dialled).
	conns map[net.Conn]net.Conn
	// Severed counts connections closed by Cut or refused while cut.
	Severed atomic.Int64
}

// NewProxy listens on a loopback port and forwards each connection to target.
func NewProxy(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{ln: ln, target: target, conns: map[net.Conn]net.Conn{}}
	go p.accept()
	return p, nil
}

// Addr is the host:port to dial instead of the target.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

func (p *Proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return // closed
		}
		go p.forward(c)
	}
}

func (p *Proxy) forward(in net.Conn) {
	if !p.pair(in, nil) {
		p.Severed.Add(1)
		_ = in.Close()
		return
	}
	out, err := net.Dial("tcp", p.target)
	if err != nil {
		p.drop(in)
		return
	}
	if !p.pair(in, out) {
		_ = out.Close()
		return // cut meanwhile: in is closed already
	}
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		done <- struct{}{}
	}
	go pipe(out, in)
	go pipe(in, out)
	<-done // either side ending ends both
	p.drop(in)
	<-done
}

// pair registers in (and its twin) unless the proxy is cut or in was
// severed meanwhile.
func (p *Proxy) pair(in, out net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cut {
		return false
	}
	if _, ok := p.conns[in]; !ok && out != nil {
		return false
	}
	p.conns[in] = out
	return true
}

// drop closes in and its twin and forgets them.
func (p *Proxy) drop(in net.Conn) {
	p.mu.Lock()
	out := p.conns[in]
	delete(p.conns, in)
	p.mu.Unlock()
	_ = in.Close()
	if out != nil {
		_ = out.Close()
	}
}

// Cut closes every connection through the proxy and refuses new ones
// until Restore.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	for in, out := range p.conns {
		_ = in.Close()
		if out != nil {
			_ = out.Close()
		}
		p.Severed.Add(1)
		delete(p.conns, in)
	}
}

// Restore forwards new connections again.
func (p *Proxy) Restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = false
}

// Close stops the proxy and every connection through it.
func (p *Proxy) Close() {
	_ = p.ln.Close()
	p.Cut()
}

// sink accepts connections and closes them at once: the address every
// cluster node advertises for implicit routes, so a node that learns of a
// peer by gossip cannot reach it around the proxies.
func sink() (net.Listener, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	return ln, nil
}
