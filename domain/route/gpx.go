package route

import (
	"bytes"
	"fmt"
	"io"
	"strings"
)

// DefaultMaxGPXBytes is the upload limit of DOMAIN §2 (30 MiB): ReadGPX
// refuses larger input with ErrTooLarge unless WithMaxBytes says otherwise.
const DefaultMaxGPXBytes int64 = 30 << 20

// Limits on captured text: names are shown to people and elevations are
// numbers, so anything longer is a broken or hostile file.
const (
	maxNameBytes = 64 << 10
	maxEleBytes  = 256
	maxDepth     = 256
)

// Elevation bounds (metres). Everything a bicycle can reach lies well
// inside; values outside come from broken devices or hostile files and would
// poison the climbing totals.
const (
	minEleM = -1000
	maxEleM = 10000
)

// GPXOption configures ReadGPX.
type GPXOption func(*gpxConfig)

type gpxConfig struct {
	maxBytes int64
}

// WithMaxBytes sets the most bytes ReadGPX reads before refusing the input
// with ErrTooLarge (default DefaultMaxGPXBytes). The limit is enforced while
// streaming, so a larger file is never held in memory.
func WithMaxBytes(n int64) GPXOption {
	return func(c *gpxConfig) { c.maxBytes = n }
}

// ReadGPX reads a GPX 1.0 or 1.1 document as it streams from r and returns
// its route: all track points (every trk and trkseg, concatenated in
// document order) or, when the document has no track points, all route
// points (every rte). Waypoints are returned beside the route.
//
// It accepts a missing or any namespace (elements are matched by local
// name), a UTF-8 byte-order mark, and ISO-8859-1/15 or windows-1252 as
// declared by the XML declaration. It refuses, with a *ReadError naming the
// line: any DTD or markup declaration (ErrDTD, before any element is read),
// a root other than <gpx> (ErrNotGPX), malformed XML such as unclosed or
// mismatched tags (ErrMalformed), a missing, non-numeric, non-finite or
// out-of-range lat, lon or ele (ErrCoordinate), input over the byte limit
// (ErrTooLarge), and a document with no trkpt or rtept (ErrEmptyRoute).
//
// Memory stays proportional to the number of points, not the file size: the
// input goes through a 64 KiB window.
func ReadGPX(r io.Reader, opts ...GPXOption) (*Route, error) {
	cfg := gpxConfig{maxBytes: DefaultMaxGPXBytes}
	for _, o := range opts {
		o(&cfg)
	}
	p := gpxParser{s: newXMLScanner(r, cfg.maxBytes)}
	return p.parse()
}

// role is what an open element means to the GPX reader, derived from its
// parent's role and its local name.
type role uint8

const (
	roleOther role = iota
	roleGPX
	roleMetadata
	roleTrk
	roleTrkseg
	roleRte
	roleTrkpt
	roleRtept
	roleWpt
	roleEle
	roleNameMeta
	roleNameTrk
	roleNameRte
	roleNameWpt
)

// gpxParser walks the scanner's tokens with a stack of roles.
type gpxParser struct {
	s  *xmlScanner
	cs charset

	roles   []role
	nameEnd []int  // end offsets of open element names in names
	names   []byte // arena of open element names, for end-tag matching
	lines   []int  // line each open element started on

	capture []byte // raw text of the element being captured (ele, name)
	tmp     []byte

	cur     Point // point being read
	curName string
	curLine int

	trk, rte pointChunks
	wpts     []Waypoint
	titles   [3]string // meta, trk, rte
	hasTitle [3]bool
}

func (p *gpxParser) fail(line int, kind error, format string, args ...any) error {
	return &ReadError{Format: "gpx", Line: line, Reason: fmt.Sprintf(format, args...), Kind: kind}
}

func (p *gpxParser) parse() (*Route, error) {
	cs, err := readProlog(p.s)
	if err != nil {
		return nil, err
	}
	p.cs = cs
	seenRoot := false
	for {
		kind, err := p.s.next()
		if err != nil {
			return nil, err
		}
		switch kind {
		case tokEOF:
			if n := len(p.roles); n > 0 {
				return nil, p.fail(p.s.line, ErrMalformed, "unexpected end of file: <%s> opened on line %d is not closed",
					p.openName(n-1), p.lines[n-1])
			}
			if !seenRoot {
				return nil, p.fail(p.s.line, ErrNotGPX, "the document has no root element")
			}
			return p.result()
		case tokText:
			if len(p.roles) == 0 {
				if !isAllSpace(p.s.text) {
					where := "before"
					if seenRoot {
						where = "after"
					}
					lead := len(p.s.text) - len(bytes.TrimLeft(p.s.text, " \t\r\n"))
					line := p.s.tokLine + bytes.Count(p.s.text[:lead], newline)
					return nil, p.fail(line, ErrMalformed, "text %s the root element (a GPX document is <gpx>…</gpx>, optionally after an XML declaration)", where)
				}
				continue
			}
			if err := p.text(p.s.text, false); err != nil {
				return nil, err
			}
		case tokCDATA:
			if len(p.roles) == 0 {
				return nil, p.fail(p.s.tokLine, ErrMalformed, "CDATA section outside the root element")
			}
			if err := p.text(p.s.text, true); err != nil {
				return nil, err
			}
		case tokStart:
			if len(p.roles) == 0 {
				if seenRoot {
					return nil, p.fail(p.s.tokLine, ErrMalformed, "a second root element <%s> after </gpx>", printable(p.s.name))
				}
				if string(localName(p.s.name)) != "gpx" {
					return nil, p.fail(p.s.tokLine, ErrNotGPX, "the root element is <%s>, not <gpx>", printable(p.s.name))
				}
				seenRoot = true
			}
			if err := p.start(); err != nil {
				return nil, err
			}
			if p.s.selfClosing {
				if err := p.end(); err != nil {
					return nil, err
				}
			}
		case tokEnd:
			n := len(p.roles)
			if n == 0 {
				return nil, p.fail(p.s.tokLine, ErrMalformed, "end tag </%s> without a start tag", printable(p.s.name))
			}
			if open := p.openNameBytes(n - 1); !bytes.Equal(open, p.s.name) {
				return nil, p.fail(p.s.tokLine, ErrMalformed, "end tag </%s> does not match <%s> opened on line %d",
					printable(p.s.name), printable(open), p.lines[n-1])
			}
			if err := p.end(); err != nil {
				return nil, err
			}
		}
	}
}

func (p *gpxParser) openNameBytes(i int) []byte {
	start := 0
	if i > 0 {
		start = p.nameEnd[i-1]
	}
	return p.names[start:p.nameEnd[i]]
}

func (p *gpxParser) openName(i int) string { return printable(p.openNameBytes(i)) }

// childRole gives the role of an element from its parent's role.
func childRole(parent role, local []byte) role {
	switch parent {
	case roleGPX:
		switch string(local) {
		case "trk":
			return roleTrk
		case "rte":
			return roleRte
		case "wpt":
			return roleWpt
		case "metadata":
			return roleMetadata
		case "name": // GPX 1.0 puts the file's name directly under <gpx>
			return roleNameMeta
		}
	case roleMetadata:
		if string(local) == "name" {
			return roleNameMeta
		}
	case roleTrk:
		switch string(local) {
		case "trkseg":
			return roleTrkseg
		case "name":
			return roleNameTrk
		}
	case roleTrkseg:
		if string(local) == "trkpt" {
			return roleTrkpt
		}
	case roleRte:
		switch string(local) {
		case "rtept":
			return roleRtept
		case "name":
			return roleNameRte
		}
	case roleTrkpt, roleRtept:
		if string(local) == "ele" {
			return roleEle
		}
	case roleWpt:
		switch string(local) {
		case "ele":
			return roleEle
		case "name":
			return roleNameWpt
		}
	}
	return roleOther
}

func (p *gpxParser) start() error {
	n := len(p.roles)
	if n >= maxDepth {
		return p.fail(p.s.tokLine, ErrMalformed, "elements nested deeper than %d", maxDepth)
	}
	r := roleGPX
	if n > 0 {
		r = childRole(p.roles[n-1], localName(p.s.name))
	}
	p.roles = append(p.roles, r)
	p.names = append(p.names, p.s.name...)
	p.nameEnd = append(p.nameEnd, len(p.names))
	p.lines = append(p.lines, p.s.tokLine)
	switch r {
	case roleTrkpt, roleRtept, roleWpt:
		return p.startPoint()
	case roleEle, roleNameMeta, roleNameTrk, roleNameRte, roleNameWpt:
		p.capture = p.capture[:0]
	}
	return nil
}

// startPoint reads lat and lon from a trkpt, rtept or wpt start tag.
func (p *gpxParser) startPoint() error {
	p.cur = Point{}
	p.curName = ""
	p.curLine = p.s.tokLine
	el := elementName(p.s.name) // formatted only if an error needs it
	var haveLat, haveLon bool
	for _, a := range p.s.attrs {
		var dst *float64
		var seen *bool
		var what string
		switch string(a.name) {
		case "lat":
			dst, seen, what = &p.cur.Lat, &haveLat, "latitude"
		case "lon":
			dst, seen, what = &p.cur.Lon, &haveLon, "longitude"
		default:
			continue
		}
		if *seen {
			return p.fail(p.curLine, ErrMalformed, "<%s> has the attribute %s twice", el, a.name)
		}
		*seen = true
		v := a.value
		if bytes.IndexByte(v, '&') >= 0 {
			var reason string
			p.tmp, reason = decodeEntities(p.tmp[:0], v)
			if reason != "" {
				return p.fail(p.curLine, ErrMalformed, "attribute %s of <%s>: %s", a.name, el, reason)
			}
			v = p.tmp
		}
		f, reason := parseDecimal(v)
		if reason != "" {
			return p.fail(p.curLine, ErrCoordinate, "<%s> %s %s", el, what, reason)
		}
		*dst = f
	}
	switch {
	case !haveLat:
		return p.fail(p.curLine, ErrCoordinate, "<%s> has no lat attribute", el)
	case !haveLon:
		return p.fail(p.curLine, ErrCoordinate, "<%s> has no lon attribute", el)
	case p.cur.Lat < -90 || p.cur.Lat > 90:
		return p.fail(p.curLine, ErrCoordinate, "<%s> latitude %v is outside -90..90", el, p.cur.Lat)
	case p.cur.Lon < -180 || p.cur.Lon > 180:
		return p.fail(p.curLine, ErrCoordinate, "<%s> longitude %v is outside -180..180", el, p.cur.Lon)
	}
	return nil
}

// text handles character data (or CDATA) inside the root element: only the
// content of captured elements is kept.
func (p *gpxParser) text(b []byte, cdata bool) error {
	r := p.roles[len(p.roles)-1]
	limit := maxNameBytes
	switch r {
	case roleEle:
		limit = maxEleBytes
	case roleNameMeta, roleNameTrk, roleNameRte, roleNameWpt:
	default:
		return nil
	}
	if cdata {
		p.capture = escapeCDATA(p.capture, b)
	} else {
		p.capture = append(p.capture, b...)
	}
	if len(p.capture) > limit {
		kind := ErrMalformed
		if r == roleEle {
			kind = ErrCoordinate
		}
		return p.fail(p.lines[len(p.lines)-1], kind, "<%s> text is longer than %d bytes", p.openName(len(p.roles)-1), limit)
	}
	return nil
}

// end closes the innermost element, acting on what it held.
func (p *gpxParser) end() error {
	n := len(p.roles) - 1
	r := p.roles[n]
	line := p.lines[n]
	switch r {
	case roleEle:
		if err := p.endEle(line); err != nil {
			return err
		}
	case roleNameMeta, roleNameTrk, roleNameRte:
		idx := int(r - roleNameMeta)
		if !p.hasTitle[idx] {
			name, err := p.capturedText(line)
			if err != nil {
				return err
			}
			if name != "" {
				p.titles[idx], p.hasTitle[idx] = name, true
			}
		}
	case roleNameWpt:
		name, err := p.capturedText(line)
		if err != nil {
			return err
		}
		p.curName = name
	case roleTrkpt:
		p.trk.add(p.cur)
	case roleRtept:
		p.rte.add(p.cur)
	case roleWpt:
		p.wpts = append(p.wpts, Waypoint{Point: p.cur, Name: p.curName})
	}
	p.roles = p.roles[:n]
	p.lines = p.lines[:n]
	p.nameEnd = p.nameEnd[:n]
	if n == 0 {
		p.names = p.names[:0]
	} else {
		p.names = p.names[:p.nameEnd[n-1]]
	}
	return nil
}

// endEle parses a captured <ele>. An empty <ele/> counts as missing; the
// first <ele> of a point wins.
func (p *gpxParser) endEle(line int) error {
	if p.cur.HasEle || isAllSpace(p.capture) {
		return nil
	}
	v := p.capture
	if bytes.IndexByte(v, '&') >= 0 {
		var reason string
		p.tmp, reason = decodeEntities(p.tmp[:0], v)
		if reason != "" {
			return p.fail(line, ErrMalformed, "<ele>: %s", reason)
		}
		v = p.tmp
	}
	f, reason := parseDecimal(v)
	if reason != "" {
		return p.fail(line, ErrCoordinate, "elevation %s", reason)
	}
	if f < minEleM || f > maxEleM {
		return p.fail(line, ErrCoordinate, "elevation %v m is outside %d..%d m", f, minEleM, maxEleM)
	}
	p.cur.Ele, p.cur.HasEle = f, true
	return nil
}

// capturedText turns the captured raw bytes into trimmed UTF-8 text.
func (p *gpxParser) capturedText(line int) (string, error) {
	p.tmp = p.cs.toUTF8(p.tmp[:0], p.capture)
	out, reason := decodeEntities(nil, p.tmp)
	if reason != "" {
		return "", p.fail(line, ErrMalformed, "%s", reason)
	}
	return strings.TrimSpace(string(out)), nil
}

func (p *gpxParser) result() (*Route, error) {
	rt := &Route{Waypoints: p.wpts}
	const meta, trk, rte = 0, 1, 2
	switch {
	case p.trk.len() > 0:
		rt.Points, rt.Source, rt.Title = p.trk.flatten(), SourceGPXTrack, p.titles[trk]
	case p.rte.len() > 0:
		rt.Points, rt.Source, rt.Title = p.rte.flatten(), SourceGPXRoute, p.titles[rte]
	default:
		return nil, p.fail(p.s.line, ErrEmptyRoute, "the document has no track points (trkpt) or route points (rtept); it has %d waypoint(s)", len(p.wpts))
	}
	if rt.Title == "" {
		rt.Title = p.titles[meta]
	}
	rt.ElevationKnown = elevationKnown(rt.Points)
	return rt, nil
}

// elementName defers rendering an element name until an error message
// needs it, so the per-point path allocates nothing.
type elementName []byte

func (e elementName) String() string { return printable(e) }

func isAllSpace(b []byte) bool {
	for _, c := range b {
		if !isXMLSpace(c) {
			return false
		}
	}
	return true
}
