// Package auth is how the API knows who calls it: bearer JWTs verified
// against static keys or an external issuer's JWKS (rotation by kid), the
// audience and expiry checked, scopes required per RPC, and the service
// credential by which the MCP service acts for a user (an RFC 8693 `act`
// claim verified against a separate, trusted key set).
//
// The MCP service and the one-process `roadbook dev` command import it: the
// dev command mints tokens with NewHS256Issuer, the MCP service mints its
// service credential the same way with its own key. DevSignIn is the dev
// command's OpenID provider, through which the web planner signs in as the
// dev user with those tokens.
package auth
