package gazetteer

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// special folds letters that carry no combining mark in Unicode, so NFD
// alone would keep them: "tromso" must find Tromsø, "koln" Köln.
var special = map[rune]string{
	'ø': "o", 'æ': "ae", 'œ': "oe", 'ß': "ss", 'ł': "l", 'đ': "d", 'ð': "d",
	'þ': "th", 'ı': "i", 'ħ': "h", 'ŧ': "t",
}

// Fold is the search key of a name: lower case, accents removed, punctuation
// and runs of spaces collapsed to one space ("São Paulo" → "sao paulo",
// "Saint-Étienne" → "saint etienne"). Queries and names fold the same way,
// which is what makes search accent-insensitive.
func Fold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := true // drop leading spaces
	for _, r := range norm.NFD.String(s) {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		r = unicode.ToLower(r)
		if rep, ok := special[r]; ok {
			b.WriteString(rep)
			space = false
			continue
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
			space = false
			continue
		}
		if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	return strings.TrimRight(b.String(), " ")
}
