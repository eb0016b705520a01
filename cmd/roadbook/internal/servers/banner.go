package servers

import (
	"fmt"
	"io"

	"github.com/roadbook/roadbook/cmd/roadbook/internal/devstate"
)

// printBanner tells a newcomer what is running and how to use it: the
// planner URL first, the two service URLs, the two tokens, a curl call and MCP client configurations.
func printBanner(w io.Writer, info devstate.Info, dataDir string, noAuth bool) {
	fmt.Fprintf(w, `Roadbook is running (one process; data in %s).

  Planner      %s   (open it: you are signed in as %q)
  Connect API  %s
  MCP server   %s

  API token (user %q; CLI, curl, frontends):
    %s
  MCP token (user %q; audience %s, for agents):
    %s

Both are also in %s/dev.json. Try:
  roadbook trip create --data-dir %s --gpx route.gpx
  curl -sS -X POST %s/roadbook.v1.TripService/ListTrips \
    -H "Authorization: Bearer $(jq -r .apiToken %s/dev.json)" \
    -H 'Content-Type: application/json' -d '{}'

Claude Code (.mcp.json in your project, or: claude mcp add --transport http roadbook %s --header "Authorization: Bearer <MCP token>"):
%s
Claude Desktop (claude_desktop_config.json, through the mcp-remote bridge):
%s
MCP Inspector: npx @modelcontextprotocol/inspector, transport "Streamable HTTP", URL %s,
  header Authorization = Bearer <MCP token>.
`, dataDir, info.AppURL, devstate.User, info.APIURL, info.MCPURL, devstate.User, info.APIToken, devstate.User, info.MCPURL, info.MCPToken,
		dataDir, dataDir, info.APIURL, dataDir, info.MCPURL, claudeCodeConfig(info), claudeDesktopConfig(info), info.MCPURL)
	if noAuth {
		fmt.Fprintln(w, "--no-auth: requests without a token act as user \"dev\" (loopback only).")
	}
	fmt.Fprintln(w, "Press Ctrl-C to stop.")
}

// claudeCodeConfig is a .mcp.json for Claude Code's HTTP transport.
func claudeCodeConfig(info devstate.Info) string {
	b, _ := jsonIndent(map[string]any{"mcpServers": map[string]any{"roadbook": map[string]any{
		"type": "http", "url": info.MCPURL,
		"headers": map[string]string{"Authorization": "Bearer " + info.MCPToken},
	}}})
	return string(b)
}

// claudeDesktopConfig is a claude_desktop_config.json entry: Claude
// Desktop starts local (stdio) servers, so mcp-remote bridges to HTTP.
func claudeDesktopConfig(info devstate.Info) string {
	b, _ := jsonIndent(map[string]any{"mcpServers": map[string]any{"roadbook": map[string]any{
		"command": "npx",
		"args":    []string{"-y", "mcp-remote", info.MCPURL, "--header", "Authorization:${ROADBOOK_MCP_AUTH}"},
		"env":     map[string]string{"ROADBOOK_MCP_AUTH": "Bearer " + info.MCPToken},
	}}})
	return string(b)
}
