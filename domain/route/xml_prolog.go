package route

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

// charset says how the bytes of captured text (names) become UTF-8. Markup,
// numbers and tag names are ASCII in every supported encoding, so only the
// text a reader keeps is transcoded: the scanner works on raw bytes.
type charset struct {
	name string
	// table is nil for UTF-8; otherwise a single-byte code page.
	table *charmap.Charmap
}

// readProlog consumes a UTF-8 byte-order mark and the XML declaration, if
// present, and returns the charset the declaration names. It runs before any
// element is tokenized. The rest of the prolog (comments, processing
// instructions, white space) is read by the scanner, which refuses
// <!DOCTYPE and every other markup declaration on sight, so no DTD ever
// reaches anything that could expand it.
func readProlog(s *xmlScanner) (charset, error) {
	utf8cs := charset{name: "UTF-8"}
	if _, err := s.ensure(4); err != nil {
		return utf8cs, s.ioError(err, "")
	}
	b := s.buf[s.pos:s.end]
	bom := false
	switch {
	case bytes.HasPrefix(b, []byte{0xEF, 0xBB, 0xBF}):
		s.pos += 3
		bom = true
	case bytes.HasPrefix(b, []byte{0xFE, 0xFF}), bytes.HasPrefix(b, []byte{0xFF, 0xFE}),
		bytes.HasPrefix(b, []byte{0, '<'}), bytes.HasPrefix(b, []byte{'<', 0}):
		return utf8cs, s.fail(1, ErrEncoding, "UTF-16 and UTF-32 documents are not supported; save the file as UTF-8")
	}
	if _, err := s.ensure(6); err != nil {
		return utf8cs, s.ioError(err, "")
	}
	b = s.buf[s.pos:s.end]
	if !bytes.HasPrefix(b, []byte("<?xml")) || len(b) < 6 || !isXMLSpace(b[5]) {
		return utf8cs, nil
	}
	// The declaration is short; demand it whole within the first KiB.
	end := -1
	for {
		b = s.buf[s.pos:s.end]
		if end = bytes.Index(b, piEnd); end >= 0 || len(b) >= 1024 {
			break
		}
		if err := s.fill(); err != nil {
			break
		}
	}
	if end < 0 {
		return utf8cs, s.fail(1, ErrMalformed, "the XML declaration is not closed with '?>'")
	}
	decl := b[5:end]
	s.line += bytes.Count(b[:end+2], newline)
	s.pos += end + 2

	enc, found := pseudoAttr(decl, "encoding")
	if !found {
		return utf8cs, nil
	}
	cs, ok := lookupCharset(enc)
	if !ok {
		return utf8cs, s.fail(1, ErrEncoding, "encoding "+quoteBytes(enc)+" is not supported (use UTF-8 or ISO-8859-1)")
	}
	if bom && cs.table != nil {
		return utf8cs, s.fail(1, ErrEncoding, "a UTF-8 byte-order mark contradicts encoding "+quoteBytes(enc))
	}
	return cs, nil
}

// pseudoAttr finds name="value" in an XML declaration.
func pseudoAttr(decl []byte, name string) ([]byte, bool) {
	i := bytes.Index(decl, []byte(name))
	if i < 0 {
		return nil, false
	}
	rest := bytes.TrimLeft(decl[i+len(name):], " \t\r\n")
	if len(rest) == 0 || rest[0] != '=' {
		return nil, false
	}
	rest = bytes.TrimLeft(rest[1:], " \t\r\n")
	if len(rest) == 0 || (rest[0] != '"' && rest[0] != '\'') {
		return nil, false
	}
	j := bytes.IndexByte(rest[1:], rest[0])
	if j < 0 {
		return nil, false
	}
	return rest[1 : 1+j], true
}

// lookupCharset maps an encoding label to a charset. UTF-8 and its ASCII
// subset, ISO-8859-1 (GPX from older Windows tools such as OziExplorer),
// ISO-8859-15 and windows-1252 are supported.
func lookupCharset(label []byte) (charset, bool) {
	switch strings.ToLower(string(label)) {
	case "utf-8", "utf8", "us-ascii", "ascii":
		return charset{name: "UTF-8"}, true
	case "iso-8859-1", "iso8859-1", "iso_8859-1", "latin1", "latin-1", "l1":
		return charset{name: "ISO-8859-1", table: charmap.ISO8859_1}, true
	case "iso-8859-15", "iso8859-15", "latin-9", "latin9":
		return charset{name: "ISO-8859-15", table: charmap.ISO8859_15}, true
	case "windows-1252", "cp1252":
		return charset{name: "windows-1252", table: charmap.Windows1252}, true
	}
	return charset{}, false
}

// toUTF8 transcodes captured text to UTF-8 (appending to dst). UTF-8 input
// with invalid sequences gets U+FFFD instead of failing the whole import
// over a name.
func (c charset) toUTF8(dst, raw []byte) []byte {
	if c.table == nil {
		if utf8.Valid(raw) {
			return append(dst, raw...)
		}
		return append(dst, bytes.ToValidUTF8(raw, []byte("\uFFFD"))...)
	}
	for _, b := range raw {
		if b < utf8.RuneSelf {
			dst = append(dst, b)
			continue
		}
		dst = utf8.AppendRune(dst, c.table.DecodeByte(b))
	}
	return dst
}
