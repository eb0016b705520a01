// Package envflag is how the roadbook subcommands read their command
// lines: a flag set per subcommand whose bad flags become ErrUsage (exit
// status 2), and flag defaults read from the ROADBOOK_* environment, so the
// containers are configured by env and a shell by flags.
package envflag

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"
)

// ErrUsage marks a command line that is wrong (exit status 2); the message
// has already named what is wrong.
var ErrUsage = errors.New("usage")

// New returns a subcommand's flag set. Its errors go to stderr and
// the caller turns them into ErrUsage through Parse.
func New(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("roadbook "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// Parse parses args; a bad flag has already been reported by the flag
// package, so it becomes ErrUsage (exit 2), and -h stays flag.ErrHelp.
func Parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return ErrUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "%s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return ErrUsage
	}
	return nil
}

// Env returns the environment variable name, or def when it is unset or
// empty: every flag of the service commands defaults to its ROADBOOK_*
// variable, so the containers are configured by Env and a shell by flags.
func Env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// Duration is Env for a duration; a malformed value is an error naming
// the variable, not a silent default.
func Duration(name string, def time.Duration) (time.Duration, error) {
	v := os.Getenv(name)
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s=%q is not a positive duration (e.g. 45s, 30m)", name, v)
	}
	return d, nil
}

// Bool is Env for a boolean (true, false, 1, 0…, as strconv.ParseBool
// reads them); a malformed value is an error naming the variable.
func Bool(name string, def bool) (bool, error) {
	v := os.Getenv(name)
	if v == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%s=%q is not a boolean (true or false)", name, v)
	}
	return b, nil
}

// Int is Env for a positive integer.
func Int(name string, def int) (int, error) {
	v := os.Getenv(name)
	if v == "" {
		return def, nil
	}
	var n int
	if _, err := fmt.Sscanf(v, "%d", &n); err != nil || n < 1 || fmt.Sprint(n) != v {
		return 0, fmt.Errorf("%s=%q is not a positive integer", name, v)
	}
	return n, nil
}

// Required names the first empty setting, with the flag and the variable
// that set it.
func Required(settings ...[3]string) error {
	for _, s := range settings {
		if s[0] == "" {
			return fmt.Errorf("%s is Required (flag --%s or $%s)", s[2], s[1], s[2])
		}
	}
	return nil
}
