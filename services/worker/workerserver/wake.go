package workerserver

import (
	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/feedwake"
)

// wake is the cross-process half of the relay's wake-up (Config.
// CrossProcessWake): the announcer of this process's commits and the
// listener for the others'. Both are nil when it is off.
type wake struct {
	announcer *feedwake.Announcer
	remote    eventstore.Notifier
	listener  *feedwake.Listener
}

// crossProcessWake subscribes to the other processes' announcements,
// leaving out this process's own (the store's Notifier already wakes the
// relay on those), and makes the announcer Run starts, which is silent
// while this replica's relay is the active one.
func (s *Server) crossProcessWake() (wake, error) {
	if !s.cfg.CrossProcessWake {
		return wake{}, nil
	}
	// While this replica's relay holds the lease, its commits wake it in
	// process and no other relay reads: they are not announced.
	an, err := feedwake.NewAnnouncer(s.cfg.NATS, s.cfg.Store.(eventstore.Notifier), feedwake.SkipWhile(s.RelayActive)) // checked by New
	if err != nil {
		return wake{}, err
	}
	l, err := feedwake.Listen(s.cfg.NATS, an.Origin())
	if err != nil {
		return wake{}, err
	}
	return wake{announcer: an, remote: l, listener: l}, nil
}

func (w wake) close() {
	if w.listener != nil {
		_ = w.listener.Close()
	}
}

func isNotifier(s eventstore.Store) bool {
	_, ok := s.(eventstore.Notifier)
	return ok
}
