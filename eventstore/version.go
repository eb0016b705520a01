package eventstore

import "fmt"

// ExpectedVersion is the optimistic-concurrency condition of an append. Its
// zero value is invalid on purpose: every append must say what it expects.
type ExpectedVersion struct {
	kind expectedKind
	n    int64
}

type expectedKind uint8

const (
	expectInvalid expectedKind = iota
	expectNoStream
	expectExact
	expectStreamExists
	expectAny
)

// NoStream expects the stream not to exist yet (creation).
func NoStream() ExpectedVersion { return ExpectedVersion{kind: expectNoStream} }

// Exact expects the stream to be exactly at version n (n ≥ 1).
func Exact(n int64) ExpectedVersion { return ExpectedVersion{kind: expectExact, n: n} }

// StreamExists expects the stream to exist, at any version.
func StreamExists() ExpectedVersion { return ExpectedVersion{kind: expectStreamExists} }

// Any appends whatever the stream's state, creating it if needed.
func Any() ExpectedVersion { return ExpectedVersion{kind: expectAny} }

// IsNoStream, IsExact, IsStreamExists and IsAny let backends switch on the kind.
func (e ExpectedVersion) IsNoStream() bool     { return e.kind == expectNoStream }
func (e ExpectedVersion) IsExact() bool        { return e.kind == expectExact }
func (e ExpectedVersion) IsStreamExists() bool { return e.kind == expectStreamExists }
func (e ExpectedVersion) IsAny() bool          { return e.kind == expectAny }

// Version is n for Exact, 0 otherwise.
func (e ExpectedVersion) Version() int64 { return e.n }

// String renders the condition for error messages.
func (e ExpectedVersion) String() string {
	switch e.kind {
	case expectNoStream:
		return "no stream"
	case expectExact:
		return fmt.Sprintf("version %d", e.n)
	case expectStreamExists:
		return "stream exists"
	case expectAny:
		return "any"
	default:
		return "invalid"
	}
}
