package auth

import "errors"

// Sentinel errors of verification, matched with errors.Is. Their text never
// echoes the token.
var (
	// ErrNoToken: the request carries no bearer token.
	ErrNoToken = errors.New("auth: no bearer token")
	// ErrInvalidToken: the token is malformed, badly signed, expired, for
	// another audience or issuer, or signed by an unknown key.
	ErrInvalidToken = errors.New("auth: invalid token")
	// ErrUntrustedActor: a service credential names an actor the API does
	// not trust, or a user key signed a token with an actor claim.
	ErrUntrustedActor = errors.New("auth: untrusted actor")
	// ErrInsufficientScope: the token lacks the scope the RPC requires.
	ErrInsufficientScope = errors.New("auth: insufficient scope")
)
