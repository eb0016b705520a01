package eventstore

import "context"

// Notifier is implemented by backends that can wake feed readers in-process
// when an append commits, so a relay tails the feed without busy polling.
// It is separate from Store because a reader in another process is not
// woken by it: that takes a FeedListener (ARCHITECTURE §4: no NOTIFY in the
// append transaction, which would serialise commits).
type Notifier interface {
	// Notify returns a channel that is closed at the next commit of an
	// append through this store value. Call it again after each wake-up
	// (and before reading the feed, so no commit falls in between).
	Notify() <-chan struct{}
}

// FeedListener is implemented by backends whose commits in other processes
// can wake this process's feed readers: without it a relay learns of an
// append made by the API in another process only from its poll interval
// (250 ms) or by chance from an append of its own (ARCHITECTURE §4).
type FeedListener interface {
	// ListenFeed closes the channels Notify handed out whenever another
	// process announces a commit, until ctx ends (nil) or the listening
	// connection fails (the error; the caller listens again after a
	// pause, and its poll interval covers the gap). While it runs, this
	// store value does not announce its own commits: its readers are
	// woken in-process, and only the one active relay listens.
	ListenFeed(ctx context.Context) error
}
