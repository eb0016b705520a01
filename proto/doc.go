// Package proto holds Roadbook's contracts: the frontend API
// (roadbook/v1) and the domain event payloads (roadbook/events/v1). The
// generated Go lives under gen/, is committed and is never edited by hand;
// `make generate` rebuilds it byte for byte.
package proto
