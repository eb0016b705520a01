// Package mcpserver builds Roadbook's MCP service: the thirteen tools of
// docs/design/MCP.md over streamable HTTP at /mcp (and stdio), as an OAuth 2.1
// protected resource. It is a client of the Connect API: every tool calls
// the API with a service credential minted per call for the agent's user
// (sub = the user, act = roadbook-mcp); the agent's own token is verified
// here (audience = this MCP resource) and never forwarded.
//
// Build it with New(Config) and serve Server as an http.Handler, or run it
// on stdio with RunStdio. Tools keep no state between calls — cursors and
// confirmation tokens are HMAC-signed and carried by the client — so any
// replica sharing the HMAC keys answers any call.
package mcpserver
