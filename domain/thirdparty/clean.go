package thirdparty

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Clean returns s without format characters (Unicode category Cf: bidi
// controls, tag characters, zero-width spaces, the byte-order mark, soft
// hyphens…), with control characters and line or paragraph separators
// turned into spaces, invalid UTF-8 turned into U+FFFD, and surrounding
// space trimmed.
//
// One exception keeps spelling intact: the zero-width non-joiner and joiner
// (U+200C, U+200D) are kept between two letters or marks, where Persian,
// the Indic scripts and others need them to write a word correctly (UAX #31
// allows them in identifiers in the same place). Anywhere else they only
// hide things, and go.
//
// Text that needs no change is returned as is, without allocating.
func Clean(s string) string {
	if clean(s) {
		return strings.TrimSpace(s)
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	b.Grow(len(s))
	prev := rune(-1) // the last rune written
	for i, r := range s {
		switch {
		case r == zwnj || r == zwj:
			next, _ := utf8.DecodeRuneInString(s[i+utf8.RuneLen(r):])
			if letterOrMark(prev) && letterOrMark(next) {
				b.WriteRune(r)
				prev = r
			}
		case unicode.Is(unicode.Cf, r):
			// dropped
		case unicode.IsControl(r) || unicode.In(r, unicode.Zl, unicode.Zp):
			b.WriteByte(' ')
			prev = ' '
		default:
			b.WriteRune(r)
			prev = r
		}
	}
	return strings.TrimSpace(b.String())
}

// The two joiners Clean keeps between letters.
const (
	zwnj = '\u200C'
	zwj  = '\u200D'
)

// letterOrMark: a joiner between two of these is part of a word's spelling.
func letterOrMark(r rune) bool {
	return r >= 0 && (unicode.IsLetter(r) || unicode.IsMark(r))
}

// clean reports whether s is valid UTF-8 without format, control or
// separator characters: the common case, answered without allocating.
func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return cleanSlow(s[i:])
		}
	}
	return true
}

func cleanSlow(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || r < 0x20 || unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp) {
			return false // U+FFFD itself takes the slow path too, harmlessly
		}
	}
	return true
}
