// Package sharepage serves a shared trip to browsers: the page (HTML built
// server-side from embedded templates, with the trip's outline and
// elevation profiles inlined as SVG, package routesvg) and its GPX and FIT
// downloads, as plain GET URLs, so a link works in any browser, with
// JavaScript off, and from a download manager:
//
//	/s/{code}                      the page
//	/s/{code}.gpx, /s/{code}.fit   the whole trip
//	/s/{code}/stages/{n}.gpx|.fit  day n (1-based, as the page numbers days)
//	/s/{code}/trip.gpx|.fit        the whole trip again (the address share
//	                               links handed out before carried)
//
// They read exactly what the public RPCs read (planner.SharedTrip, the same
// per-address limit, planner.Export with public=true: no times, no author,
// no source link).
package sharepage

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/planner"
)

// Pages serves the share links of one API.
type Pages struct {
	planner *planner.Planner
	addr    func(*http.Request) string
	log     *slog.Logger
}

// New returns the pages reading through p; clientAddr is the caller's
// address, the subject of the public rate limit (the API's own rule, so a
// page view counts like a public RPC).
func New(p *planner.Planner, clientAddr func(*http.Request) string, log *slog.Logger) *Pages {
	return &Pages{planner: p, addr: clientAddr, log: log}
}

// Register adds the share routes to mux.
func (c *Pages) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET /s/{file}", c.serveShare)
	mux.HandleFunc("GET /s/{code}/stages/{file}", c.serveShareStage)
	mux.HandleFunc("GET /s/{code}/{file}", c.serveShareTrip)
}

// serveShare answers /s/{file}: the page, or the whole trip as a file.
func (c *Pages) serveShare(w http.ResponseWriter, r *http.Request) {
	code, ext := splitExt(r.PathValue("file"))
	format, ok := shareFormats[ext]
	if !ok {
		c.pageError(w, r, errShareNotFound)
		return
	}
	c.serveWhole(w, r, code, format)
}

// serveShareTrip answers /s/{code}/trip.gpx and /s/{code}/trip.fit: the
// whole trip, as /s/{code}.gpx does.
func (c *Pages) serveShareTrip(w http.ResponseWriter, r *http.Request) {
	name, ext := splitExt(r.PathValue("file"))
	format, ok := shareFormats[ext]
	if !ok || name != "trip" || format == 0 {
		c.pageError(w, r, errShareNotFound)
		return
	}
	c.serveWhole(w, r, r.PathValue("code"), format)
}

// serveWhole answers for the whole shared trip code: its page (format 0)
// or its file.
func (c *Pages) serveWhole(w http.ResponseWriter, r *http.Request, code string, format planner.Format) {
	if !validShareCode(code) {
		c.pageError(w, r, errShareNotFound)
		return
	}
	s, err := c.publicState(r, code)
	if err != nil {
		c.pageError(w, r, err)
		return
	}
	if format != 0 {
		c.serveSharedFile(w, r, s, format, nil)
		return
	}
	page, err := c.sharePageView(r.Context(), code, s)
	if err != nil {
		c.pageError(w, r, err)
		return
	}
	var buf bytes.Buffer
	if err := pageTemplates.ExecuteTemplate(&buf, "share.html", page); err != nil {
		c.pageError(w, r, err)
		return
	}
	WriteHeaders(w, "text/html; charset=utf-8", "public, max-age=60")
	_, _ = w.Write(buf.Bytes())
}

// serveShareStage answers /s/{code}/stages/{file}: one day as a file.
func (c *Pages) serveShareStage(w http.ResponseWriter, r *http.Request) {
	code := r.PathValue("code")
	n, ext := splitExt(r.PathValue("file"))
	format, ok := shareFormats[ext]
	day, err := strconv.Atoi(n)
	if !ok || format == 0 || err != nil || day < 1 || !validShareCode(code) {
		c.pageError(w, r, errShareNotFound)
		return
	}
	s, err := c.publicState(r, code)
	if err != nil {
		c.pageError(w, r, err)
		return
	}
	if day > len(s.Stages) || s.Stages[day-1].RestDay {
		c.pageError(w, r, errShareNotFound)
		return
	}
	idx := uint32(day - 1)
	c.serveSharedFile(w, r, s, format, &idx)
}

// serveSharedFile renders an export through the public RPCs' code path.
func (c *Pages) serveSharedFile(w http.ResponseWriter, r *http.Request, s trip.State, format planner.Format, stage *uint32) {
	f, err := c.planner.Export(r.Context(), s, format, stage, true)
	if err != nil {
		c.pageError(w, r, err)
		return
	}
	WriteHeaders(w, f.ContentType, "public, max-age=60")
	w.Header().Set("Content-Disposition", `attachment; filename="`+f.Name+`"`)
	w.Header().Set("Content-Length", strconv.Itoa(len(f.Content)))
	_, _ = w.Write(f.Content)
}

// publicState is sharedTrip after the per-address limit the public RPCs
// apply (one shared counter: a page view counts like an RPC).
func (c *Pages) publicState(r *http.Request, code string) (trip.State, error) {
	return c.planner.SharedTrip(r.Context(), code, c.addr(r))
}

// shareFormats maps a URL's extension to the export format (none, 0: the
// page).
var shareFormats = map[string]planner.Format{
	"":     0,
	".gpx": planner.FormatGPX,
	".fit": planner.FormatFIT,
}

// splitExt splits "abc.gpx" into "abc" and ".gpx".
func splitExt(file string) (string, string) {
	if i := strings.LastIndexByte(file, '.'); i >= 0 {
		return file[:i], strings.ToLower(file[i:])
	}
	return file, ""
}

// validShareCode accepts the base64url alphabet only (codes are
// trip.ShareCodeBytes random bytes, 16 characters, or 8 for
// links made before); anything else is not
// found without a store read.
func validShareCode(code string) bool {
	if code == "" || len(code) > 64 {
		return false
	}
	for _, ch := range code {
		if !(ch == '-' || ch == '_' || ch >= '0' && ch <= '9' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z') {
			return false
		}
	}
	return true
}

// errShareNotFound is every unknown, revoked or malformed share URL.
var errShareNotFound = &trip.Error{Code: trip.CodeNotFound, Message: "no such share link"}

// WriteHeaders sets the headers of every browser response: the type (never
// sniffed), the CSP, no referrer (the code is in the URL) and the cache.
func WriteHeaders(w http.ResponseWriter, contentType, cache string) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", cache)
	if strings.HasPrefix(contentType, "image/svg+xml") {
		h.Set("Content-Security-Policy", svgCSP)
	} else {
		h.Set("Content-Security-Policy", pageCSP)
	}
}

// pageError is the one translation of errors into browser responses: a
// plain page, identical for every not-found (unknown, revoked, malformed,
// no such day, nothing to export yet), 429 with Retry-After over the limit,
// 500 (logged) otherwise.
func (c *Pages) pageError(w http.ResponseWriter, r *http.Request, err error) {
	var (
		te *trip.Error
		rl *planner.RateLimitedError
		ie *planner.InvalidError
	)
	status, heading, msg := http.StatusInternalServerError, "Something went wrong", "Please try again in a moment."
	switch {
	case errors.As(err, &rl):
		status, heading, msg = http.StatusTooManyRequests, "Too many requests", "Please wait a minute and reload the page."
		w.Header().Set("Retry-After", strconv.Itoa(int(rl.RetryAfter.Seconds())))
	case errors.As(err, &te) && (te.Code == trip.CodeNotFound || te.Code == trip.CodePreconditionFailed),
		errors.As(err, &ie):
		status, heading, msg = http.StatusNotFound, "Not found", "There is no shared trip at this address. The link may have been revoked."
	case errors.Is(err, context.Canceled):
		return
	default:
		c.log.ErrorContext(r.Context(), "share page failed", "error", err, "path", r.URL.Path)
	}
	var buf bytes.Buffer
	_ = pageTemplates.ExecuteTemplate(&buf, "message.html", struct{ Heading, Message string }{heading, msg})
	WriteHeaders(w, "text/html; charset=utf-8", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}
