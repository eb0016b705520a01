package route

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// decodeEntities appends raw with its character and entity references
// resolved to dst. Only the five predefined entities and numeric references
// exist: a document without a DTD cannot define others, so any other name is
// refused rather than expanded or kept.
func decodeEntities(dst, raw []byte) ([]byte, string) {
	for {
		i := bytes.IndexByte(raw, '&')
		if i < 0 {
			return append(dst, raw...), ""
		}
		dst = append(dst, raw[:i]...)
		raw = raw[i:]
		semi := bytes.IndexByte(raw, ';')
		if semi < 0 || semi > 12 {
			return dst, "a '&' that does not start an entity reference (write &amp;)"
		}
		ref := raw[1:semi]
		raw = raw[semi+1:]
		switch string(ref) {
		case "amp":
			dst = append(dst, '&')
		case "lt":
			dst = append(dst, '<')
		case "gt":
			dst = append(dst, '>')
		case "quot":
			dst = append(dst, '"')
		case "apos":
			dst = append(dst, '\'')
		default:
			if len(ref) < 2 || ref[0] != '#' {
				return dst, "undefined entity &" + printable(ref) + "; (only the five predefined entities exist without a DTD)"
			}
			var n uint64
			var err error
			if ref[1] == 'x' {
				n, err = strconv.ParseUint(string(ref[2:]), 16, 32)
			} else {
				n, err = strconv.ParseUint(string(ref[1:]), 10, 32)
			}
			r := rune(n)
			if err != nil || !validXMLChar(r) {
				return dst, "invalid character reference &" + printable(ref) + ";"
			}
			dst = utf8.AppendRune(dst, r)
		}
	}
}

func validXMLChar(r rune) bool {
	return r == 0x9 || r == 0xA || r == 0xD ||
		(r >= 0x20 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD) || (r >= 0x10000 && r <= 0x10FFFF)
}

// escapeCDATA appends CDATA content escaped so that the capture buffer can
// hold text and CDATA together and be entity-decoded once at the end.
func escapeCDATA(dst, cdata []byte) []byte {
	for _, c := range cdata {
		switch c {
		case '&':
			dst = append(dst, "&amp;"...)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseDecimal parses a GPX decimal ("-12.3456", surrounding white space
// allowed). Plain decimals with at most 15 significant digits take an exact
// fast path (an integer below 2^53 divided by an exact power of ten is
// correctly rounded by IEEE division), which is what makes coordinate parsing
// cheap; anything else (exponents, long mantissas) goes to strconv. Hex
// floats, "NaN", "Inf" and the like are refused: the reason is returned.
func parseDecimal(b []byte) (float64, string) {
	for len(b) > 0 && isXMLSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isXMLSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	if len(b) == 0 {
		return 0, "empty value"
	}
	i := 0
	neg := false
	if b[0] == '-' || b[0] == '+' {
		neg = b[0] == '-'
		i++
	}
	var mant uint64
	digits, frac := 0, 0
	seenDot, seenDigit, fast := false, false, true
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= '0' && c <= '9':
			seenDigit = true
			if digits > 0 || c != '0' {
				digits++
			}
			if digits > 15 {
				fast = false
			}
			mant = mant*10 + uint64(c-'0')
			if seenDot {
				frac++
			}
		case c == '.' && !seenDot:
			seenDot = true
		case c == 'e' || c == 'E' || c == '+' || c == '-' || c == '.':
			fast = false
		default:
			if isNaNOrInf(b) {
				return 0, fmt.Sprintf("%s is not a finite number", quoteBytes(b))
			}
			return 0, fmt.Sprintf("%s is not a number", quoteBytes(b))
		}
	}
	if fast && frac <= 22 && (i > 1 || !neg) && (len(b) > 1 || b[0] != '.') {
		if !seenDigit { // "-", "." or "-.": the loop accepted no digit
			return 0, fmt.Sprintf("%s is not a number", quoteBytes(b))
		}
		f := float64(mant) / pow10[frac]
		if neg {
			f = -f
		}
		return f, ""
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return 0, fmt.Sprintf("%s is not a number", quoteBytes(b))
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Sprintf("%s is not a finite number", quoteBytes(b))
	}
	return f, ""
}

// isNaNOrInf recognizes the spellings strconv accepts for NaN and infinity,
// so that the message says why such a value is refused.
func isNaNOrInf(b []byte) bool {
	b = bytes.TrimLeft(b, "+-")
	switch strings.ToLower(string(b)) {
	case "nan", "inf", "infinity":
		return true
	}
	return false
}

// printable renders raw input for an error message: at most 40 bytes, with
// control bytes and invalid UTF-8 escaped.
func printable(b []byte) string {
	const max = 40
	cut := len(b) > max
	if cut {
		b = b[:max]
	}
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '\uFFFD'
		}
		return r
	}, s)
	if cut {
		s += "…"
	}
	return s
}

// quoteBytes renders raw input in double quotes for an error message.
func quoteBytes(b []byte) string { return `"` + printable(b) + `"` }

// formatBytes renders a byte limit as "30 MiB" or "1024 bytes".
func formatBytes(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
