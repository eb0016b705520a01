// Package errorcode spells roadbook.v1.Code as the error words of MCP §8
// ("not_found", "version_conflict"…), the words the MCP tools answer with
// and the CLI prints: one table, read both ways, instead of a string
// convention on the enum's names in every client.
package errorcode

import roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"

// words is every code's word; CODE_UNSPECIFIED has none.
var words = map[roadbookv1.Code]string{
	roadbookv1.Code_CODE_INVALID_ARGUMENT:      "invalid_argument",
	roadbookv1.Code_CODE_NOT_FOUND:             "not_found",
	roadbookv1.Code_CODE_VERSION_CONFLICT:      "version_conflict",
	roadbookv1.Code_CODE_PRECONDITION_FAILED:   "precondition_failed",
	roadbookv1.Code_CODE_LOCKED:                "locked",
	roadbookv1.Code_CODE_CONFLICT:              "conflict",
	roadbookv1.Code_CODE_ALREADY_RUNNING:       "already_running",
	roadbookv1.Code_CODE_CONFIRMATION_REQUIRED: "confirmation_required",
	roadbookv1.Code_CODE_STALE_CURSOR:          "stale_cursor",
	roadbookv1.Code_CODE_RATE_LIMITED:          "rate_limited",
	roadbookv1.Code_CODE_UNAVAILABLE:           "unavailable",
}

// Word is c as MCP §8 spells it; "" for CODE_UNSPECIFIED or a code this
// build does not know (a newer server's).
func Word(c roadbookv1.Code) string { return words[c] }

// Of is the code a word names; CODE_UNSPECIFIED for none.
func Of(word string) roadbookv1.Code {
	for c, w := range words {
		if w == word {
			return c
		}
	}
	return roadbookv1.Code_CODE_UNSPECIFIED
}
