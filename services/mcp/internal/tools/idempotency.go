package tools

import (
	"encoding/json"
	"strconv"

	"github.com/roadbook/roadbook/services/mcp/internal/canonical"
)

// idempotencyWindowSeconds is the window a derived key lives in (ADR-080 §3,
// docs/design/adr/080-mcp-tools.md): the same call within it is the same
// key, so the API answers the replay with the first answer.
const idempotencyWindowSeconds = 300

// idempotencyKey returns the caller's key when they sent one, else a key
// derived from (user, tool, RFC 8785 canonical arguments, 5-minute window
// of the injectable clock): a retry with reordered keys is the same call.
// Windows are aligned buckets, so a retry straddling a boundary is a new
// call — the price of needing no store. bind adds what else makes two calls
// one: a confirmed act binds the impact it acts on, so the same arguments
// confirmed again over another impact (a link shared again since) are a
// new call, never a replay of the first act.
func (c *call) idempotencyKey(explicit *string, bind ...string) (*string, error) {
	if explicit != nil {
		return explicit, nil
	}
	canon, err := c.canonicalArgs("idempotencyKey")
	if err != nil {
		return nil, err
	}
	window := c.env.Clock().Unix() / idempotencyWindowSeconds
	parts := [][]byte{[]byte("roadbook-mcp/idempotency/v1"), []byte(c.caller.UserID), []byte(c.tool.Name), canon, []byte(strconv.FormatInt(window, 10))}
	for _, b := range bind {
		parts = append(parts, []byte(b))
	}
	k := canonical.Digest(parts...)
	return &k, nil
}

// argDigest is the digest of the call's canonical arguments without the
// named keys (the confirmation token itself, a caller's idempotency key).
func (c *call) argDigest(without ...string) (string, error) {
	canon, err := c.canonicalArgs(without...)
	if err != nil {
		return "", err
	}
	return canonical.Digest(canon), nil
}

// canonicalArgs is the RFC 8785 form of the call's arguments without the
// named keys. The arguments as sent are canonicalised whole first, so a
// duplicate key (at any depth) or invalid UTF-8 is refused by jcs: decoding
// them into a map to drop keys would repair both silently (the last of two
// equal keys kept, an invalid byte in a key turned into U+FFFD), and two
// different documents would share a digest.
func (c *call) canonicalArgs(without ...string) ([]byte, error) {
	canon, err := canonical.JSON(c.args)
	if err != nil {
		return nil, invalid("", "the arguments cannot be canonicalised: "+bound(err.Error(), 120))
	}
	var args map[string]json.RawMessage
	if err := json.Unmarshal(canon, &args); err != nil {
		return nil, invalid("", "the arguments are not a JSON object")
	}
	dropped := false
	for _, k := range without {
		if _, ok := args[k]; ok {
			delete(args, k)
			dropped = true
		}
	}
	if !dropped {
		return canon, nil
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	if canon, err = canonical.JSON(raw); err != nil {
		return nil, invalid("", "the arguments cannot be canonicalised: "+bound(err.Error(), 120))
	}
	return canon, nil
}
