package envflag

import "flag"

// Secret defines a string flag holding a secret (a database URL with its
// password, an HMAC key): its value never appears in -h, in the usage a
// mistyped flag prints, nor in an error about the flag, so it cannot reach
// a log. Its default is always empty: a secret has no sensible default.
func Secret(fs *flag.FlagSet, name, usage string) *string {
	v := new(secretValue)
	fs.Var(v, name, usage)
	return (*string)(v)
}

// secretValue is a string flag whose String is always empty: the flag
// package prints a default only when String differs from the zero value's.
type secretValue string

// String is empty, whatever the value: the flag package shows defaults
// through it.
func (s *secretValue) String() string { return "" }

// Set stores the secret.
func (s *secretValue) Set(v string) error {
	*s = secretValue(v)
	return nil
}
