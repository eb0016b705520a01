// Package fetch imports routes from the URL sources of DOMAIN §2 — Komoot
// tours and collections, Strava routes and RideWithGPS routes — through the
// upstream mechanism (breaker, pacer, retries, bounded bodies), and guards
// every connection against SSRF.
//
// Only the numeric id of a trip.Source is put into a fixed path on a fixed,
// configurable host: /tour/{id} and /collection/{id} on Komoot,
// /routes/{id}/export_gpx on Strava, /routes/{id}.json on RideWithGPS. The
// user's URL never chooses the host. Every dial resolves the name itself and
// refuses loopback, private (incl. fc00::/7), link-local (incl.
// 169.254.169.254), multicast, unspecified, IPv4-mapped IPv6 and every
// other block of IANA's IPv4 and IPv6 special-purpose registries (as
// code.dny.dev/ssrf generates them; for IPv6, anything outside global
// unicast 2000::/3) — checked again in net.Dialer.Control on the socket
// address actually connected, so DNS rebinding cannot slip past. Redirects:
// at most 2 and only to the same host. Bodies are bounded while read.
//
// Failures are [*Error]s carrying the import code (route_fetch_failed for
// 403/404, unusable pages and every refusal; empty_route; invalid_gpx;
// route_too_large; source_unavailable, retryable, for 5xx/429/timeouts/open
// breaker) and satisfy the consumer's ImportFailure interface.
package fetch
