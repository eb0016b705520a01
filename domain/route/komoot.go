package route

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxKomootPageBytes bounds the Komoot page a reader accepts. Tour pages
// with thousands of coordinates weigh a few MiB; the worker also bounds the
// body while fetching, this is the reader's own guard.
const MaxKomootPageBytes = 30 << 20

// komootMarker starts the call that carries the page's state.
var komootMarker = []byte("kmtBoot.setProps(")

// ReadKomootPage reads a Komoot tour page (the HTML as fetched): the JSON
// inside kmtBoot.setProps("…"), which is a JavaScript string literal, is
// unescaped and decoded; the route is page._embedded.tour._embedded
// .coordinates.items[{lat, lng, alt, t}] and the title page._embedded.tour
// .name (DOMAIN §2). An item without alt makes the route's elevation unknown.
// Errors are *ReadError with Format "komoot": ErrTooLarge, ErrNotFound (no
// setProps call or no tour in it), ErrMalformed (bad string literal or JSON),
// ErrCoordinate (an item's lat/lng missing or out of range) and
// ErrEmptyRoute.
func ReadKomootPage(page []byte) (*Route, error) {
	var doc struct {
		Page struct {
			Embedded struct {
				Tour *struct {
					Name     string `json:"name"`
					Embedded struct {
						Coordinates *struct {
							Items []komootItem `json:"items"`
						} `json:"coordinates"`
					} `json:"_embedded"`
				} `json:"tour"`
			} `json:"_embedded"`
		} `json:"page"`
	}
	if err := decodeKomootProps(page, &doc); err != nil {
		return nil, err
	}
	tour := doc.Page.Embedded.Tour
	if tour == nil {
		return nil, komootError(ErrNotFound, "the page state has no page._embedded.tour (is this a tour page?)")
	}
	if tour.Embedded.Coordinates == nil {
		return nil, komootError(ErrNotFound, "the tour has no _embedded.coordinates")
	}
	items := tour.Embedded.Coordinates.Items
	if len(items) == 0 {
		return nil, komootError(ErrEmptyRoute, "the tour's coordinates.items is empty")
	}
	pts := make([]Point, len(items))
	for i, it := range items {
		switch {
		case it.Lat == nil:
			return nil, komootError(ErrCoordinate, fmt.Sprintf("coordinates.items[%d] has no lat", i))
		case it.Lng == nil:
			return nil, komootError(ErrCoordinate, fmt.Sprintf("coordinates.items[%d] has no lng", i))
		}
		if reason := validCoordinate(*it.Lat, *it.Lng); reason != "" {
			return nil, komootError(ErrCoordinate, fmt.Sprintf("coordinates.items[%d]: %s", i, reason))
		}
		pts[i] = Point{Lat: *it.Lat, Lon: *it.Lng}
		if it.Alt != nil {
			if *it.Alt < minEleM || *it.Alt > maxEleM {
				return nil, komootError(ErrCoordinate, fmt.Sprintf("coordinates.items[%d]: alt %v m is outside %d..%d m", i, *it.Alt, minEleM, maxEleM))
			}
			pts[i].Ele, pts[i].HasEle = *it.Alt, true
		}
	}
	return &Route{
		Title:          strings.TrimSpace(tour.Name),
		Points:         pts,
		ElevationKnown: elevationKnown(pts),
		Source:         SourceKomoot,
	}, nil
}

// komootItem is one coordinate; pointers tell a missing field from 0.
// T (milliseconds since the start) is read but not kept: Roadbook paces by
// its own rider model, not Komoot's.
type komootItem struct {
	Lat *float64 `json:"lat"`
	Lng *float64 `json:"lng"`
	Alt *float64 `json:"alt"`
	T   *float64 `json:"t"`
}

// KomootCollection is what a Komoot collection page lists: Roadbook makes
// one stage per tour, in this order, without pacing (DOMAIN §2).
type KomootCollection struct {
	// Name is the collection's title, trimmed.
	Name string
	// Tours are the collection's tours in page order.
	Tours []KomootTourRef
}

// KomootTourRef names one tour of a collection; the worker fetches each
// tour page by ID.
type KomootTourRef struct {
	// ID is the numeric tour id as a decimal string.
	ID string
	// Name is the tour's title in the collection (may be empty).
	Name string
}

// ReadKomootCollection reads a Komoot collection page and lists its tours.
//
// Assumed payload shape (observed in public tools that read these pages; no
// official documentation exists): the same kmtBoot.setProps("…") state as a
// tour page, with the collection at page._embedded.collectionHal — name in
// "name", entries in _embedded.compilation._embedded.items[]. Entries carry
// "id" (number or string) and "type"; only tours ("tour", "tour_planned",
// "tour_recorded", or no type) are kept, highlights and other entry kinds
// are skipped. Duplicate ids are kept once.
func ReadKomootCollection(page []byte) (*KomootCollection, error) {
	var doc struct {
		Page struct {
			Embedded struct {
				Collection *struct {
					Name     string `json:"name"`
					Embedded struct {
						Compilation struct {
							Embedded struct {
								Items []struct {
									ID   json.RawMessage `json:"id"`
									Type string          `json:"type"`
									Name string          `json:"name"`
								} `json:"items"`
							} `json:"_embedded"`
						} `json:"compilation"`
					} `json:"_embedded"`
				} `json:"collectionHal"`
			} `json:"_embedded"`
		} `json:"page"`
	}
	if err := decodeKomootProps(page, &doc); err != nil {
		return nil, err
	}
	c := doc.Page.Embedded.Collection
	if c == nil {
		return nil, komootError(ErrNotFound, "the page state has no page._embedded.collectionHal (is this a collection page?)")
	}
	out := &KomootCollection{Name: strings.TrimSpace(c.Name)}
	seen := map[string]bool{}
	for i, it := range c.Embedded.Compilation.Embedded.Items {
		switch it.Type {
		case "", "tour", "tour_planned", "tour_recorded":
		default:
			continue
		}
		id := strings.Trim(string(it.ID), `"`)
		if id == "" || len(id) > 20 || strings.Trim(id, "0123456789") != "" {
			return nil, komootError(ErrMalformed, fmt.Sprintf("compilation item %d has id %s, not a tour number", i, printable(it.ID)))
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		out.Tours = append(out.Tours, KomootTourRef{ID: id, Name: strings.TrimSpace(it.Name)})
	}
	if len(out.Tours) == 0 {
		return nil, komootError(ErrEmptyRoute, "the collection lists no tours")
	}
	return out, nil
}

func komootError(kind error, reason string) error {
	return &ReadError{Format: "komoot", Reason: reason, Kind: kind}
}

// decodeKomootProps finds kmtBoot.setProps("…") in page, unescapes the
// string literal and decodes the JSON into v.
func decodeKomootProps(page []byte, v any) error {
	if len(page) > MaxKomootPageBytes {
		return komootError(ErrTooLarge, fmt.Sprintf("the page is larger than %s", formatBytes(MaxKomootPageBytes)))
	}
	i := bytes.Index(page, komootMarker)
	if i < 0 {
		return komootError(ErrNotFound, "the page has no kmtBoot.setProps(…) call")
	}
	rest := bytes.TrimLeft(page[i+len(komootMarker):], " \t\r\n")
	js, err := unescapeJSString(rest)
	if err != nil {
		return komootError(ErrMalformed, "kmtBoot.setProps argument: "+err.Error())
	}
	if err := json.Unmarshal(js, v); err != nil {
		return komootError(ErrMalformed, "kmtBoot.setProps JSON: "+jsonReason(err))
	}
	return nil
}

// jsonReason words a encoding/json error with its byte offset.
func jsonReason(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("%s at byte %d", se.Error(), se.Offset)
	case errors.As(err, &te):
		return fmt.Sprintf("field %s holds a JSON %s, want %s (byte %d)", te.Field, te.Value, te.Type, te.Offset)
	}
	return err.Error()
}

// unescapeJSString decodes the JavaScript string literal at the start of b
// ('…' or "…") and returns its value as UTF-8. It understands the escapes a
// serializer emits: \" \' \\ \/ \b \f \n \r \t \v \0, \xHH, \uHHHH (with
// surrogate pairs), \u{H…} and line continuations.
func unescapeJSString(b []byte) ([]byte, error) {
	if len(b) == 0 || (b[0] != '"' && b[0] != '\'') {
		return nil, fmt.Errorf("not a string literal")
	}
	q := b[0]
	out := make([]byte, 0, len(b)/2)
	for i := 1; i < len(b); {
		c := b[i]
		switch {
		case c == q:
			return out, nil
		case c == '\n' || c == '\r':
			return nil, fmt.Errorf("line break inside the string literal at byte %d", i)
		case c != '\\':
			j := i + 1
			for j < len(b) && b[j] != q && b[j] != '\\' && b[j] != '\n' && b[j] != '\r' {
				j++
			}
			out = append(out, b[i:j]...)
			i = j
			continue
		}
		if i+1 >= len(b) {
			break
		}
		e := b[i+1]
		i += 2
		switch e {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'v':
			out = append(out, '\v')
		case '0':
			out = append(out, 0)
		case '\n':
			// line continuation
		case '\r':
			if i < len(b) && b[i] == '\n' {
				i++
			}
		case 'x':
			if i+2 > len(b) {
				return nil, fmt.Errorf("truncated \\x escape")
			}
			n, err := strconv.ParseUint(string(b[i:i+2]), 16, 8)
			if err != nil {
				return nil, fmt.Errorf("bad \\x escape at byte %d", i)
			}
			out = utf8.AppendRune(out, rune(n))
			i += 2
		case 'u':
			r, n, err := jsUnicodeEscape(b[i:])
			if err != nil {
				return nil, fmt.Errorf("%v at byte %d", err, i)
			}
			i += n
			if utf16.IsSurrogate(r) && i+1 < len(b) && b[i] == '\\' && b[i+1] == 'u' {
				if r2, n2, err := jsUnicodeEscape(b[i+2:]); err == nil {
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						r = dec
						i += 2 + n2
					}
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			out = append(out, e) // \" \' \\ \/ and identity escapes
		}
	}
	return nil, fmt.Errorf("the string literal is not closed")
}

// jsUnicodeEscape reads the part of a \u escape after "\u": HHHH or {H…}.
func jsUnicodeEscape(b []byte) (rune, int, error) {
	if len(b) > 0 && b[0] == '{' {
		end := bytes.IndexByte(b, '}')
		if end < 2 || end > 7 {
			return 0, 0, fmt.Errorf("bad \\u{…} escape")
		}
		n, err := strconv.ParseUint(string(b[1:end]), 16, 32)
		if err != nil || n > utf8.MaxRune {
			return 0, 0, fmt.Errorf("bad \\u{…} escape")
		}
		return rune(n), end + 1, nil
	}
	if len(b) < 4 {
		return 0, 0, fmt.Errorf("truncated \\u escape")
	}
	n, err := strconv.ParseUint(string(b[:4]), 16, 32)
	if err != nil {
		return 0, 0, fmt.Errorf("bad \\u escape")
	}
	return rune(n), 4, nil
}
