package export

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// formatDecimal writes v with at most prec decimals and never in scientific
// notation (GPX readers reject "1e-07"), trailing zeros trimmed so files stay
// small: 1e-7 → "0.0000001", 12.5 → "12.5", -0.00000001 → "0".
func formatDecimal(v float64, prec int) string {
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.IndexByte(s, '.') >= 0 {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	if s == "-0" {
		return "0"
	}
	return s
}

// formatCoord writes a latitude or longitude with 7 decimals (≈ 1 cm), the
// precision of the sources Roadbook imports.
func formatCoord(v float64) string { return formatDecimal(v, 7) }

// formatEle writes an elevation with 2 decimals (1 cm).
func formatEle(v float64) string { return formatDecimal(v, 2) }

// cleanText makes third-party text safe to put on one line of any export:
// invalid UTF-8 becomes U+FFFD, control characters (newlines included, which
// could forge a line in the text roadbook) become spaces, and surrounding
// space is trimmed. Escaping for XML is the GPX writer's job on top of this.
func cleanText(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	return strings.TrimSpace(s)
}

// truncateUTF8 cuts s to at most n bytes without splitting a character, for
// device fields with a byte limit (FIT course names).
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}
