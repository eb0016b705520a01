package apiserver

import (
	"errors"
	"io"
	"net"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// transientRetryAfter is the retry delay suggested for a transient
// infrastructure failure: a PostgreSQL restart or a NATS reconnect is over
// in seconds, and the pool reconnects on the next call.
const transientRetryAfter = 2 * time.Second

// transientMessage is what a caller reads for one; the cause stays in the log.
const transientMessage = "the service is briefly unavailable (its database or message bus is reconnecting); retry in a few seconds"

// transient reports whether err is a failure of the infrastructure under
// the API that the same call can get past by being retried: PostgreSQL
// restarting, shutting down, refusing or dropping connections, cancelling a
// statement on a server-side timeout, or aborting a transaction as a
// serialization failure or deadlock; a connection that broke mid-call; NATS
// disconnected, reconnecting or not answering. The store passes driver errors
// through wrapped (eventstore/postgres translate), so they are matched here by
// type and SQLSTATE, never by text. A client sees these as Unavailable with a
// retry delay — never as Internal, which says "a Roadbook bug".
func transient(err error) bool {
	var (
		connectErr *pgconn.ConnectError
		pgErr      *pgconn.PgError
		netErr     net.Error
	)
	switch {
	case errors.As(err, &connectErr):
		// No connection could be made (server down, starting up, refusing).
		return true
	case errors.As(err, &pgErr):
		return transientSQLState(pgErr.Code)
	case errors.As(err, &netErr), pgconn.Timeout(err), pgconn.SafeToRetry(err),
		errors.Is(err, pgconn.ErrConnClosed), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.EPIPE):
		// The connection broke under the call, or was already gone.
		return true
	}
	for _, e := range transientNATS {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// transientNATS are the NATS client's errors for a server it cannot reach
// now (a restart, a network partition, a reconnect in progress).
var transientNATS = []error{
	nats.ErrConnectionClosed, nats.ErrConnectionDraining, nats.ErrConnectionReconnecting, nats.ErrDisconnected,
	nats.ErrNoServers, nats.ErrStaleConnection, nats.ErrReconnectBufExceeded, nats.ErrTimeout, nats.ErrNoResponders,
	jetstream.ErrServerShutdown, jetstream.ErrConnectionClosed, jetstream.ErrNoHeartbeat,
}

// transientSQLState reports the SQLSTATEs a retry can cure (PostgreSQL
// Appendix A): class 08 connection exception, class 53 insufficient
// resources (too many connections, out of memory), the operator
// interventions of a restart or a statement timeout, serialization
// failures, deadlocks and lock timeouts. Everything else — constraint
// violations, syntax, a missing table — is a bug or a refusal and is
// answered elsewhere.
func transientSQLState(code string) bool {
	if len(code) == 5 && (code[:2] == "08" || code[:2] == "53") {
		return true
	}
	switch code {
	case "57014", // query_canceled (statement_timeout or a cancel request)
		"57P01", // admin_shutdown: the server is stopping (fast shutdown)
		"57P02", // crash_shutdown
		"57P03", // cannot_connect_now: the server is starting up or shutting down
		"57P05", // idle_session_timeout
		"40001", // serialization_failure
		"40P01", // deadlock_detected
		"55P03": // lock_not_available (lock_timeout)
		return true
	}
	return false
}
