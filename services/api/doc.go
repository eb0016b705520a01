// Package api is the Connect RPC service that frontends call. It is the one
// place where every rule is enforced; the MCP service is only its client.
package api
