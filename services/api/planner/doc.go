// Package planner serves Roadbook's web planner: the static bundle built
// from clients/web (scripts/build-web-client.sh writes it to dist/, which
// is committed like proto/gen, so `go run ./cmd/roadbook dev` serves it on
// a machine without npm) under /app/, with its runtime configuration
// (/app/config.json: where the API is, which OpenID issuer signs people in,
// which map tiles to draw) and a strict Content-Security-Policy: scripts
// and styles only from the bundle, no inline script, connections only to
// the API and the issuer, images only from the page and the tile server.
//
// The other half of one-process mode is auth.DevSignIn: a minimal OpenID
// provider on the dev API whose authorize endpoint signs in the dev user
// without asking, so opening the planner URL `roadbook dev` prints goes
// straight to the trips, through the same authorization code + PKCE flow
// the planner runs against a real issuer in production.
//
// Not to be confused with the planner module (package planner at the
// repository's root), the use cases the API's handlers call: this package
// is the web page a rider opens, and knows nothing of them.
package planner
