package servers

import (
	"fmt"
	"net"
)

// requireLoopback refuses a listen address that is reachable from another
// machine: --no-auth lets anyone who can connect act as the dev user, so it
// runs only where no one else can connect.
func requireLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("listen address %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("--no-auth needs every listener on loopback, and %q is not (use 127.0.0.1:PORT)", addr)
	}
	return nil
}
