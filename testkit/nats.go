package testkit

import (
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// NATSServer is an embedded nats-server with JetStream storing in a
// directory. Restart stops it and starts it again on the same port and
// directory, as a NATS restart does.
type NATSServer struct {
	// Dir holds JetStream's files.
	Dir string
	// Port is the client port (chosen by the OS when started with -1).
	Port int
	srv  *server.Server
}

// StartNATS starts a server on 127.0.0.1:port (-1: a free port) storing
// JetStream in dir, for programs that are not tests (the benchmarks).
func StartNATS(dir string, port int) (*NATSServer, error) {
	n := &NATSServer{Dir: dir, Port: port}
	if err := n.start(); err != nil {
		return nil, err
	}
	return n, nil
}

func (n *NATSServer) start() error {
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: n.Port, JetStream: true, StoreDir: n.Dir, NoLog: true, NoSigs: true})
	if err != nil {
		return fmt.Errorf("testkit: nats server: %w", err)
	}
	srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		srv.Shutdown()
		return fmt.Errorf("testkit: nats server not ready after 10 s")
	}
	n.srv = srv
	n.Port = srv.Addr().(*net.TCPAddr).Port
	return nil
}

// URL is the client URL.
func (n *NATSServer) URL() string { return n.srv.ClientURL() }

// Server is the running nats-server (for its monitoring calls).
func (n *NATSServer) Server() *server.Server { return n.srv }

// Stop shuts the server down and waits until it is gone.
func (n *NATSServer) Stop() {
	n.srv.Shutdown()
	n.srv.WaitForShutdown()
}

// Restart stops the server and starts it again on the same port and store
// directory: JetStream recovers its streams from disk.
func (n *NATSServer) Restart() error {
	n.Stop()
	return n.start()
}

// NATS starts a server for t (a free port, JetStream in t.TempDir) and
// returns it with a connection that reconnects for as long as the test runs
// (see Connect); both end with the test.
func NATS(t testing.TB, opts ...nats.Option) (*NATSServer, *nats.Conn) {
	t.Helper()
	ns, err := StartNATS(t.TempDir(), -1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Stop)
	nc, err := Connect(ns.URL(), opts...)
	if err != nil {
		t.Fatalf("testkit: connect to nats: %v", err)
	}
	t.Cleanup(nc.Close)
	return ns, nc
}

// Connect dials url with unlimited reconnects every 50 ms (nats.go gives up
// after 60 tries by default, which a test restarting NATS would outlast);
// opts come after and may override them.
func Connect(url string, opts ...nats.Option) (*nats.Conn, error) {
	base := []nats.Option{nats.MaxReconnects(-1), nats.ReconnectWait(50 * time.Millisecond), nats.RetryOnFailedConnect(true)}
	return nats.Connect(url, append(base, opts...)...)
}
