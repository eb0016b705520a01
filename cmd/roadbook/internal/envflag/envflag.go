// Package envflag is how the roadbook subcommands read their command
// lines: a flag set per subcommand whose bad flags become ErrUsage (exit
// status 2), and whose flags that name a ROADBOOK_* variable in their usage
// are filled from that variable at parse time (peterbourgon/ff), so the
// containers are configured by env and a shell by flags.
//
// The environment is read only after the command line parsed: a default
// printed by -h or by a mistyped flag is always the literal in the code,
// never a value from the environment (the database URL and the HMAC keys
// would otherwise land in the pod log). Secret flags print no value at all.
package envflag

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"

	"github.com/peterbourgon/ff/v3"
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

// envInUsage is how a flag names its variable: its usage ends with
// "($ROADBOOK_NAME)", so the help text and the variable read are one fact.
var envInUsage = regexp.MustCompile(`\(\$(ROADBOOK_[A-Z0-9_]+)\)$`)

// EnvName is the variable a flag reads, from its usage, or "" for a flag
// the environment does not set.
func EnvName(f *flag.Flag) string {
	if m := envInUsage.FindStringSubmatch(f.Usage); m != nil {
		return m[1]
	}
	return ""
}

// Parse parses args; a bad flag has already been reported by the flag
// package, so it becomes ErrUsage (exit 2), and -h stays flag.ErrHelp.
// Then every flag the command line did not set and whose usage names a
// variable takes that variable's value when it is set and not empty; a
// value the flag refuses is an error naming the variable (and, unless the
// flag is a Secret, the value).
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
	return fromEnv(fs)
}

// ParseOne is Parse for a command that takes one positional argument (a
// trip id), which may stand before, between or after the flags: `trip show
// ID --width 60` and `trip show --data-dir DIR ID` alike, as a rider types
// them. The flag package stops at the first non-flag, so the flags on each
// side of the argument are parsed in two passes of the same set. The
// argument is "" when the command line has none: the caller names what is
// missing. A second positional argument is refused as Parse refuses one.
func ParseOne(fs *flag.FlagSet, args []string) (string, error) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return "", err
		}
		return "", ErrUsage
	}
	rest := fs.Args()
	if len(rest) == 0 {
		return "", fromEnv(fs)
	}
	return rest[0], Parse(fs, rest[1:])
}

// fromEnv lets ff fill the flags from their variables. ff names a flag's
// variable after the flag; the flags here name theirs in their usage
// (--consumer reads ROADBOOK_WORKER_CONSUMER), so ff parses a view of the
// flag set whose flags are named by their variables and share their values.
func fromEnv(fs *flag.FlagSet) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	view := flag.NewFlagSet(fs.Name()+" environment", flag.ContinueOnError)
	view.SetOutput(io.Discard)
	fs.VisitAll(func(f *flag.Flag) {
		if env := EnvName(f); env != "" && !given[f.Name] {
			view.Var(&named{Value: f.Value, flag: f.Name, env: env}, env, f.Usage)
		}
	})
	if err := ff.Parse(view, nil, ff.WithEnvVars()); err != nil {
		var bad *badValue
		if errors.As(err, &bad) {
			return bad
		}
		return err
	}
	// A flag set from its variable is not "set" for flag.Visit, as when the
	// variable was its default: Visit tells what the command line chose.
	return nil
}

// named is a flag's value seen through its variable: a refused value
// becomes a badValue naming both.
type named struct {
	flag.Value
	flag, env string
}

// Set sets the shared value, naming the variable when refused.
func (n *named) Set(s string) error {
	if err := n.Value.Set(s); err != nil {
		shown := fmt.Sprintf("%q", s)
		if _, secret := n.Value.(*secretValue); secret {
			shown = "(secret, not shown)"
		}
		return &badValue{msg: fmt.Sprintf("$%s=%s is not a valid --%s: %v", n.env, shown, n.flag, err)}
	}
	return nil
}

// badValue is a variable whose value its flag refused.
type badValue struct{ msg string }

// Error names the variable, the flag and why.
func (b *badValue) Error() string { return b.msg }

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
