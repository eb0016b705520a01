// Package geocoding is the contract between the API and the worker for
// geocoding: a NATS request-reply whose bodies are binary protobuf of
// roadbook.v1 (SearchPlacesRequest/Response on SubjectSearch,
// ReversePlaceRequest/Response on SubjectReverse) and whose reply headers
// say whether it failed, how long to wait, and whether the answer came from
// the shared cache. The worker's responder writes replies with Reply.Write
// and the API reads them with Read, so neither side spells a subject or a
// header of its own.
//
// Why not nats.go/micro: its error headers (Nats-Service-Error,
// Nats-Service-Error-Code) carry a code and a text but not the retry delay
// or the cache mark this contract needs, and changing the headers would
// break a rolling deployment's API and worker talking across versions.
package geocoding

import (
	"math"
	"strconv"
	"time"
)

// The subjects the worker answers on, in QueueGroup so exactly one replica
// answers each request.
const (
	SubjectSearch  = "roadbook.geocode.search"
	SubjectReverse = "roadbook.geocode.reverse"
	QueueGroup     = "roadbook-geocode"
)

// The reply headers. A reply carrying HeaderError is an error; its body is
// a human-readable message.
const (
	HeaderError      = "Roadbook-Error"
	HeaderRetryAfter = "Roadbook-Retry-After"
	// HeaderCache is "hit" when every lookup of an answer came from the
	// shared cache, "miss" otherwise: the API counts a user's geocode quota
	// on misses only (DOMAIN §8).
	HeaderCache = "Roadbook-Cache"
)

// Code is a failed reply's class, an MCP §8 error word.
type Code string

// The codes a reply can carry.
const (
	CodeRateLimited     Code = "rate_limited"
	CodeUnavailable     Code = "unavailable"
	CodeInvalidArgument Code = "invalid_argument"
)

// Header is the part of nats.Header (or http.Header) a reply is read from
// and written to.
type Header interface {
	Get(key string) string
	Set(key, value string)
}

// Reply is what a reply's headers say.
type Reply struct {
	// Err is the failure's code; empty for an answer.
	Err Code
	// RetryAfter is how long to wait before asking again, for an error
	// (whole seconds on the wire, rounded up).
	RetryAfter time.Duration
	// Cached is true when the answer came from the shared cache alone.
	Cached bool
}

// Write sets r's headers on h.
func (r Reply) Write(h Header) {
	if r.Err == "" {
		h.Set(HeaderCache, "miss")
		if r.Cached {
			h.Set(HeaderCache, "hit")
		}
		return
	}
	h.Set(HeaderError, string(r.Err))
	if r.RetryAfter > 0 {
		h.Set(HeaderRetryAfter, strconv.Itoa(int(math.Ceil(r.RetryAfter.Seconds()))))
	}
}

// Read is what h says. An answer without HeaderCache counts as a miss
// (counted), and an error without a retry delay asks for a second.
func Read(h Header) Reply {
	if code := h.Get(HeaderError); code != "" {
		secs, _ := strconv.Atoi(h.Get(HeaderRetryAfter))
		return Reply{Err: Code(code), RetryAfter: time.Duration(max(secs, 1)) * time.Second}
	}
	return Reply{Cached: h.Get(HeaderCache) == "hit"}
}
