package route

import (
	"bytes"
	"errors"
	"io"
)

// xmlScanner is a streaming tokenizer for the subset of XML that GPX files
// use: elements, attributes, character data, comments, CDATA sections and
// processing instructions. It is written by hand rather than built on
// encoding/xml because encoding/xml allocates a token (and strings) for every
// element and attribute, which dominates the cost of reading a 30 MiB track;
// this scanner hands out slices of its own buffer and allocates nothing per
// token in the steady state.
//
// It never expands anything: markup declarations (<!DOCTYPE, <!ENTITY ...)
// are refused the moment they are seen, and entity references are left in the
// text for the caller to decode against the five predefined entities only.
//
// Slices returned for a token (name, attrs, text) are valid until the next
// call to next.
type xmlScanner struct {
	r    io.Reader
	buf  []byte
	pos  int // next unread byte in buf
	end  int // end of valid data in buf
	rerr error

	read int64 // bytes read from r so far
	max  int64 // refuse the input once read exceeds max

	line    int // line of buf[pos]
	tokLine int // line where the current token starts

	inCDATA     bool // inside a CDATA section: next returns tokCDATA chunks
	cdataLine   int
	name        []byte
	attrs       []xmlAttr
	selfClosing bool
	text        []byte
}

// xmlAttr is one attribute of a start tag, both parts slices of the buffer.
type xmlAttr struct {
	name, value []byte
}

type tokKind uint8

const (
	tokEOF tokKind = iota
	tokStart
	tokEnd
	tokText
	tokCDATA
)

const (
	scanBufSize = 64 << 10
	// maxTagBytes bounds a single start or end tag (with its attributes): a
	// tag must fit in the buffer to be parsed, and nothing in GPX comes close.
	maxTagBytes = 1 << 20
)

// errScanLimit is returned by fill when the input exceeded the byte limit.
var errScanLimit = errors.New("byte limit exceeded")

func newXMLScanner(r io.Reader, maxBytes int64) *xmlScanner {
	return &xmlScanner{
		r:     r,
		buf:   make([]byte, scanBufSize),
		line:  1,
		max:   maxBytes,
		attrs: make([]xmlAttr, 0, 8),
	}
}

// fail builds the scanner's errors: every one names the line.
func (s *xmlScanner) fail(line int, kind error, reason string) error {
	return &ReadError{Format: "gpx", Line: line, Reason: reason, Kind: kind}
}

// fill reads more input after shifting unread bytes to the front of the
// buffer (growing it up to maxTagBytes when it is full). It returns nil when
// it added bytes, io.EOF at the end, errScanLimit past the size limit, or the
// reader's error.
func (s *xmlScanner) fill() error {
	if s.rerr != nil {
		return s.rerr
	}
	if s.pos > 0 {
		n := copy(s.buf, s.buf[s.pos:s.end])
		s.end = n
		s.pos = 0
	}
	if s.end == len(s.buf) {
		if len(s.buf) >= maxTagBytes {
			return errTagTooLong
		}
		nb := make([]byte, 2*len(s.buf))
		copy(nb, s.buf[:s.end])
		s.buf = nb
	}
	for tries := 0; tries < 100; tries++ {
		n, err := s.r.Read(s.buf[s.end:])
		if n > 0 {
			s.end += n
			s.read += int64(n)
			if s.read > s.max {
				s.rerr = errScanLimit
				return s.rerr
			}
			if err != nil {
				s.rerr = err
			}
			return nil
		}
		if err != nil {
			s.rerr = err
			return err
		}
	}
	s.rerr = io.ErrNoProgress
	return s.rerr
}

var errTagTooLong = errors.New("tag too long")

// ioError turns a fill error into the error the reader returns.
func (s *xmlScanner) ioError(err error, what string) error {
	switch {
	case errors.Is(err, errScanLimit):
		return s.fail(s.line, ErrTooLarge, "the document is larger than the limit of "+formatBytes(s.max))
	case errors.Is(err, errTagTooLong):
		return s.fail(s.tokLine, ErrMalformed, "a tag is longer than "+formatBytes(maxTagBytes))
	case err == io.EOF:
		return s.fail(s.line, ErrMalformed, "unexpected end of file "+what)
	default:
		return &readIOError{line: s.line, err: err}
	}
}

// readIOError wraps a failure of the underlying reader (not bad input).
type readIOError struct {
	line int
	err  error
}

func (e *readIOError) Error() string { return "gpx: reading input: " + e.err.Error() }
func (e *readIOError) Unwrap() error { return e.err }

// ensure makes at least n unread bytes available, reporting false when the
// input ends first (err then says why).
func (s *xmlScanner) ensure(n int) (bool, error) {
	for s.end-s.pos < n {
		if err := s.fill(); err != nil {
			if err == io.EOF {
				return false, nil
			}
			return false, err
		}
	}
	return true, nil
}

// next advances to the next token. Comments and processing instructions are
// skipped; character data may arrive in several tokText chunks, CDATA
// content in several tokCDATA chunks.
func (s *xmlScanner) next() (tokKind, error) {
	for {
		if s.pos == s.end {
			if err := s.fill(); err != nil {
				if err == io.EOF {
					if s.inCDATA {
						return 0, s.fail(s.cdataLine, ErrMalformed, "unterminated CDATA section")
					}
					return tokEOF, nil
				}
				return 0, s.ioError(err, "")
			}
		}
		s.tokLine = s.line
		if s.inCDATA {
			return s.cdataChunk()
		}
		if s.buf[s.pos] != '<' {
			chunk := s.buf[s.pos:s.end]
			if i := bytes.IndexByte(chunk, '<'); i >= 0 {
				chunk = chunk[:i]
			}
			s.pos += len(chunk)
			s.line += bytes.Count(chunk, newline)
			s.text = chunk
			return tokText, nil
		}
		if ok, err := s.ensure(2); err != nil {
			return 0, s.ioError(err, "")
		} else if !ok {
			return 0, s.fail(s.line, ErrMalformed, "unexpected end of file after '<'")
		}
		switch s.buf[s.pos+1] {
		case '/':
			return s.endTag()
		case '?':
			if err := s.skipPast(2, piEnd, "processing instruction"); err != nil {
				return 0, err
			}
		case '!':
			if _, err := s.ensure(9); err != nil {
				return 0, s.ioError(err, "")
			}
			rest := s.buf[s.pos:s.end]
			switch {
			case bytes.HasPrefix(rest, commentStart):
				if err := s.skipPast(len(commentStart), commentEnd, "comment"); err != nil {
					return 0, err
				}
			case bytes.HasPrefix(rest, cdataStart):
				s.pos += len(cdataStart)
				s.inCDATA = true
				s.cdataLine = s.tokLine
			case hasDeclPrefix(rest):
				return 0, s.fail(s.tokLine, ErrDTD, "the document contains a markup declaration ("+
					printable(rest[:min(len(rest), 9)])+"…); DTDs and entity declarations are refused")
			default:
				return 0, s.fail(s.tokLine, ErrMalformed, "unknown markup "+printable(rest[:min(len(rest), 9)]))
			}
		default:
			return s.startTag()
		}
	}
}

var (
	newline      = []byte{'\n'}
	piEnd        = []byte("?>")
	commentStart = []byte("<!--")
	commentEnd   = []byte("-->")
	cdataStart   = []byte("<![CDATA[")
	cdataEnd     = []byte("]]>")
)

// hasDeclPrefix reports whether b starts with a markup declaration keyword.
func hasDeclPrefix(b []byte) bool {
	for _, kw := range [...]string{"<!DOCTYPE", "<!ENTITY", "<!ELEMENT", "<!ATTLIST", "<!NOTATION", "<![INCLUDE", "<![IGNORE", "<!["} {
		if len(b) >= len(kw) && bytes.EqualFold(b[:len(kw)], []byte(kw)) {
			return true
		}
	}
	// A declaration cut short by the end of input still counts.
	return len(b) < 9 && bytes.HasPrefix([]byte("<!DOCTYPE"), b) && len(b) > 2
}

// skipPast consumes skip bytes, then everything up to and including delim,
// streaming through the buffer; what names the construct for the error at EOF.
func (s *xmlScanner) skipPast(skip int, delim []byte, what string) error {
	start := s.tokLine
	s.pos += skip
	for {
		avail := s.buf[s.pos:s.end]
		if i := bytes.Index(avail, delim); i >= 0 {
			s.line += bytes.Count(avail[:i+len(delim)], newline)
			s.pos += i + len(delim)
			return nil
		}
		// Keep the last len(delim)-1 bytes: the delimiter may straddle reads.
		if keep := len(delim) - 1; len(avail) > keep {
			s.line += bytes.Count(avail[:len(avail)-keep], newline)
			s.pos += len(avail) - keep
		}
		if err := s.fill(); err != nil {
			if err == io.EOF {
				return s.fail(start, ErrMalformed, "unterminated "+what)
			}
			return s.ioError(err, "")
		}
	}
}

// cdataChunk returns the next piece of a CDATA section's content.
func (s *xmlScanner) cdataChunk() (tokKind, error) {
	for {
		avail := s.buf[s.pos:s.end]
		if i := bytes.Index(avail, cdataEnd); i >= 0 {
			s.text = avail[:i]
			s.line += bytes.Count(avail[:i+len(cdataEnd)], newline)
			s.pos += i + len(cdataEnd)
			s.inCDATA = false
			return tokCDATA, nil
		}
		if keep := len(cdataEnd) - 1; len(avail) > keep {
			s.text = avail[:len(avail)-keep]
			s.line += bytes.Count(s.text, newline)
			s.pos += len(s.text)
			return tokCDATA, nil
		}
		if err := s.fill(); err != nil {
			if err == io.EOF {
				return 0, s.fail(s.cdataLine, ErrMalformed, "unterminated CDATA section")
			}
			return 0, s.ioError(err, "")
		}
	}
}

// tagEnd finds the '>' closing the tag that starts at s.pos, skipping '>'
// inside quoted attribute values and reading more input as needed. It returns
// the offset of '>' relative to s.pos.
func (s *xmlScanner) tagEnd() (int, error) {
	rel := 1
	var quote byte
	for {
		b := s.buf[s.pos:s.end]
		for ; rel < len(b); rel++ {
			c := b[rel]
			if quote != 0 {
				if c == quote {
					quote = 0
				}
				continue
			}
			switch c {
			case '>':
				return rel, nil
			case '"', '\'':
				quote = c
			case '<':
				return 0, s.fail(s.tokLine, ErrMalformed, "'<' inside a tag (is a tag left unclosed?)")
			}
		}
		if err := s.fill(); err != nil {
			if err == io.EOF {
				return 0, s.fail(s.tokLine, ErrMalformed, "unexpected end of file inside a tag")
			}
			return 0, s.ioError(err, "")
		}
	}
}

// startTag parses "<name attr='v' ...>" or its self-closing form.
func (s *xmlScanner) startTag() (tokKind, error) {
	gt, err := s.tagEnd()
	if err != nil {
		return 0, err
	}
	t := s.buf[s.pos+1 : s.pos+gt]
	s.pos += gt + 1
	s.line += bytes.Count(t, newline)

	s.selfClosing = false
	if len(t) > 0 && t[len(t)-1] == '/' {
		s.selfClosing = true
		t = t[:len(t)-1]
	}
	i := 0
	for i < len(t) && !isXMLSpace(t[i]) {
		i++
	}
	s.name = t[:i]
	if !validName(s.name) {
		return 0, s.fail(s.tokLine, ErrMalformed, "invalid element name "+quoteBytes(s.name))
	}
	s.attrs = s.attrs[:0]
	for {
		for i < len(t) && isXMLSpace(t[i]) {
			i++
		}
		if i == len(t) {
			return tokStart, nil
		}
		if i > 0 && !isXMLSpace(t[i-1]) {
			return 0, s.fail(s.tokLine, ErrMalformed, "attributes of <"+string(s.name)+"> are not separated by white space")
		}
		ns := i
		for i < len(t) && t[i] != '=' && !isXMLSpace(t[i]) {
			i++
		}
		an := t[ns:i]
		for i < len(t) && isXMLSpace(t[i]) {
			i++
		}
		if i == len(t) || t[i] != '=' || !validName(an) {
			return 0, s.fail(s.tokLine, ErrMalformed, "attribute "+quoteBytes(an)+" of <"+string(s.name)+"> has no value")
		}
		i++
		for i < len(t) && isXMLSpace(t[i]) {
			i++
		}
		if i == len(t) || (t[i] != '"' && t[i] != '\'') {
			return 0, s.fail(s.tokLine, ErrMalformed, "value of attribute "+quoteBytes(an)+" of <"+string(s.name)+"> is not quoted")
		}
		q := t[i]
		j := bytes.IndexByte(t[i+1:], q)
		if j < 0 {
			return 0, s.fail(s.tokLine, ErrMalformed, "value of attribute "+quoteBytes(an)+" is not closed")
		}
		v := t[i+1 : i+1+j]
		if bytes.IndexByte(v, '<') >= 0 {
			return 0, s.fail(s.tokLine, ErrMalformed, "'<' in the value of attribute "+quoteBytes(an))
		}
		s.attrs = append(s.attrs, xmlAttr{name: an, value: v})
		i += j + 2
	}
}

// endTag parses "</name>".
func (s *xmlScanner) endTag() (tokKind, error) {
	gt, err := s.tagEnd()
	if err != nil {
		return 0, err
	}
	t := s.buf[s.pos+2 : s.pos+gt]
	s.pos += gt + 1
	s.line += bytes.Count(t, newline)
	n := len(t)
	for n > 0 && isXMLSpace(t[n-1]) {
		n--
	}
	s.name = t[:n]
	if !validName(s.name) {
		return 0, s.fail(s.tokLine, ErrMalformed, "invalid end tag </"+printable(t)+">")
	}
	return tokEnd, nil
}

func isXMLSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// validName is a cheap well-formedness check of an XML name: non-empty,
// not starting with a digit, '-' or '.', and free of markup characters.
func validName(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	if c := b[0]; (c >= '0' && c <= '9') || c == '-' || c == '.' {
		return false
	}
	for _, c := range b {
		switch {
		case c < 0x20, c == '<', c == '>', c == '"', c == '\'', c == '=', c == '&', c == '/', c == ' ':
			return false
		}
	}
	return true
}

// localName strips a namespace prefix: GPX is read by local names because
// the namespace is optional in the wild (and 1.0 and 1.1 differ).
func localName(b []byte) []byte {
	if i := bytes.LastIndexByte(b, ':'); i >= 0 {
		return b[i+1:]
	}
	return b
}
