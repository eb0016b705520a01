package servers

import (
	"fmt"
	"io"
	"log/slog"
)

// newLogger is the services' structured log: slog JSON on w at level
// ("debug", "info", "warn" or "error"), the format the cluster's log
// pipeline parses.
func newLogger(level string, w io.Writer) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("log level %q is not one of debug, info, warn, error", level)
	}
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: l})), nil
}
