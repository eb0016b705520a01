// Package mcp is Roadbook's agent surface: an MCP server whose thirteen tools
// wrap the Connect API and answer at once, with partial flags and next-call
// hints, so that an agent's own loop is the progress bar.
package mcp
