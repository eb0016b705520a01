// Command natsd is a NATS server with JetStream in one small binary, so the
// evidence runs need no nats-server package on the machine: it stores
// JetStream files under -dir and listens on -port until SIGTERM/SIGINT.
//
// With -cluster-port it is one node of a cluster: -name names it (JetStream
// reports stream leaders by server name), -routes lists the other nodes'
// route URLs (the evidence harness points them at TCP proxies it can cut,
// evidence/cluster/proxy.go) and -cluster-advertise is the address it
// gossips to its peers for implicit routes — the harness gives a sink that
// refuses them, so every route between two nodes runs through a proxy.
//
// With -pprof (or $NATSD_PPROF) it serves the Go runtime's profiles, so a
// soak can show what the server keeps on its heap, not only its RSS.
package main

import (
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
)

func main() {
	port := flag.Int("port", 4222, "client port")
	dir := flag.String("dir", "", "JetStream store directory (required)")
	name := flag.String("name", "", "server name (required in a cluster)")
	clusterPort := flag.Int("cluster-port", 0, "route port; 0: no cluster")
	routes := flag.String("routes", "", "comma-separated route URLs of the other nodes (nats-route://host:port)")
	advertise := flag.String("cluster-advertise", "", "host:port gossiped to peers for implicit routes")
	monitor := flag.Int("http-port", 0, "monitoring port (/connz, /jsz); 0: none")
	pprofAddr := flag.String("pprof", os.Getenv(pprofEnv), "host:port serving /debug/pprof and /debug/vars (the server's heap); empty: none ($"+pprofEnv+")")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "natsd: -dir is required")
		os.Exit(2)
	}
	opts := &natsserver.Options{ServerName: *name, Host: "127.0.0.1", Port: *port, JetStream: true, StoreDir: *dir, NoSigs: true, Logtime: true}
	if *monitor != 0 {
		opts.HTTPHost, opts.HTTPPort = "127.0.0.1", *monitor
	}
	if *clusterPort != 0 {
		if *name == "" || *routes == "" {
			fmt.Fprintln(os.Stderr, "natsd: a cluster node needs -name and -routes")
			os.Exit(2)
		}
		opts.Cluster = natsserver.ClusterOpts{Name: "roadbook-evidence", Host: "127.0.0.1", Port: *clusterPort, Advertise: *advertise}
		for _, r := range strings.Split(*routes, ",") {
			u, err := url.Parse(strings.TrimSpace(r))
			if err != nil || u.Host == "" {
				fmt.Fprintf(os.Stderr, "natsd: route %q is not a URL\n", r)
				os.Exit(2)
			}
			opts.Routes = append(opts.Routes, u)
		}
	}
	ns, err := natsserver.NewServer(opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "natsd:", err)
		os.Exit(1)
	}
	if *pprofAddr != "" {
		servePprof(*pprofAddr)
	}
	ns.ConfigureLogger()
	ns.Start()
	// A clustered node accepts clients once it has found its peers, which
	// may be down for minutes in a chaos run: wait long.
	if !ns.ReadyForConnections(10 * time.Minute) {
		fmt.Fprintln(os.Stderr, "natsd: not ready after 10 minutes")
		os.Exit(1)
	}
	fmt.Println("natsd ready on", ns.ClientURL())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
	ns.Shutdown()
	ns.WaitForShutdown()
}
