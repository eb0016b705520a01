// Package nominatimtest is a faithful fake of the public Nominatim instance
// for tests: it replays the real recorded responses of the shared fixtures
// (testkit/fixtures, nominatim/: search and reverse bodies, the 429 Varnish
// page, the 403 block page) and enforces the
// usage policy the way the real service does — 403 HTML without an
// identifying User-Agent, 429 HTML above 1 request/s, 400 JSON for bad
// parameters, {"error":"Unable to geocode"} with 200 when nothing is there.
// It records every request's arrival time so tests can prove the
// application-wide rate limit from the server's side.
package nominatimtest

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/roadbook/roadbook/testkit/fixtures"
)

// MinInterval is the spacing below which the fake answers 429, like the
// public instance's 1 request/s policy.
const MinInterval = time.Second

// searches maps a recorded query (folded to lower case) to its recording.
var searches = map[string]string{
	"elbphilharmonie, platz der deutschen einheit 1, hamburg": "search_jsonv2_elbphilharmonie-hamburg.json",
	"1 place des palais 1000 bruxelles":                       "search_jsonv2_palais-royal-bruxelles_5results.json",
	"90210,united states":                                     "search_jsonv2_postcode-90210-us.json",
}

// reverses maps recorded points (lat,lon as sent) to their recording.
var reverses = map[[2]float64]string{
	{48.86, 2.35}:           "reverse_jsonv2_paris-48.86_2.35.json",
	{35.685939, 139.811695}: "reverse_jsonv2_tokyo-35.685939_139.811695_en.json",
}

// ReverseFunc answers reverse lookups for points with no recording, so a
// test can label a real route. ok false answers "Unable to geocode".
type ReverseFunc func(lat, lon float64) (name, placeType string, ok bool)

// Request is one request the fake saw.
type Request struct {
	// At is when it arrived.
	At time.Time
	// Path, Query and UserAgent are as sent.
	Path, Query, UserAgent string
	// Status is what the fake answered.
	Status int
}

// Server is a running fake. Create it with New; Close it when done.
type Server struct {
	*httptest.Server

	mu       sync.Mutex
	last     time.Time
	requests []Request
	outage   []int
	outageN  int
	reverse  ReverseFunc
}

// New starts a fake on a loopback port. reverse may be nil.
func New(reverse ReverseFunc) *Server {
	s := &Server{reverse: reverse}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Requests returns every request seen so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// StartOutage makes the fake answer every request with the given statuses
// in turn, the last one repeating (e.g. 429 then 503s), until EndOutage.
// 429 replays the Varnish page; other statuses answer a small HTML page.
func (s *Server) StartOutage(statuses ...int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.outage, s.outageN = statuses, 0
}

// EndOutage restores normal answers.
func (s *Server) EndOutage() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.outage = nil
}

// identifying rejects the User-Agents the real instance blocks: none, and
// library defaults.
func identifying(ua string) bool {
	ua = strings.ToLower(strings.TrimSpace(ua))
	if ua == "" {
		return false
	}
	for _, generic := range []string{"go-http-client", "curl/", "python-requests", "python-urllib", "java/", "wget/", "okhttp"} {
		if strings.HasPrefix(ua, generic) {
			return false
		}
	}
	return true
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	s.mu.Lock()
	status := http.StatusOK
	var outage int
	switch {
	case !identifying(r.UserAgent()):
		status = http.StatusForbidden
	case !s.last.IsZero() && now.Sub(s.last) < MinInterval:
		status = http.StatusTooManyRequests
	case len(s.outage) > 0:
		outage = s.outage[min(s.outageN, len(s.outage)-1)]
		s.outageN++
		status = outage
	}
	s.last = now
	s.requests = append(s.requests, Request{At: now, Path: r.URL.Path, Query: r.URL.RawQuery, UserAgent: r.UserAgent()})
	idx := len(s.requests) - 1
	s.mu.Unlock()

	if status == http.StatusOK {
		status = s.answer(w, r)
	} else {
		writeError(w, status)
	}
	s.mu.Lock()
	s.requests[idx].Status = status
	s.mu.Unlock()
}

// writeError replays the real error pages: never JSON.
func writeError(w http.ResponseWriter, status int) {
	switch status {
	case http.StatusForbidden:
		replay(w, status, "text/html", "error_403_access-blocked.html")
	case http.StatusTooManyRequests:
		replay(w, status, "text/html; charset=utf-8", "error_429_varnish.html")
	default:
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(status)
		fmt.Fprintf(w, "<html><body><h1>%d %s</h1></body></html>\n", status, http.StatusText(status))
	}
}

func replay(w http.ResponseWriter, status int, contentType, name string) {
	b, err := fs.ReadFile(fixtures.FS(), "nominatim/"+name)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// badRequest is Nominatim's JSON error for bad parameters.
func badRequest(w http.ResponseWriter, msg string) int {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusBadRequest)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": 400, "message": msg}})
	return http.StatusBadRequest
}

func (s *Server) answer(w http.ResponseWriter, r *http.Request) int {
	q := r.URL.Query()
	if f := q.Get("format"); f != "" && f != "jsonv2" && f != "json" && f != "xml" && f != "geojson" && f != "geocodejson" {
		return badRequest(w, "Parameter 'format' must be one of: xml, json, jsonv2, geojson, geocodejson")
	}
	switch r.URL.Path {
	case "/search":
		query := strings.TrimSpace(q.Get("q"))
		if query == "" {
			return badRequest(w, "Nominatim needs a query: parameter 'q' is missing")
		}
		if l := q.Get("limit"); l != "" {
			if n, err := strconv.Atoi(l); err != nil || n < 1 || n > 40 {
				return badRequest(w, "Parameter 'limit' must be an integer between 1 and 40")
			}
		}
		name, ok := searches[strings.ToLower(query)]
		if !ok {
			name = "search_jsonv2_no-results.json"
		}
		replay(w, http.StatusOK, "application/json; charset=utf-8", name)
	case "/reverse":
		lat, err1 := strconv.ParseFloat(q.Get("lat"), 64)
		lon, err2 := strconv.ParseFloat(q.Get("lon"), 64)
		if err1 != nil || err2 != nil || lat < -90 || lat > 90 || lon < -180 || lon > 180 {
			return badRequest(w, "Parameters 'lat' and 'lon' must be valid coordinates")
		}
		for at, name := range reverses { // recorded points, to the metre
			if math.Abs(at[0]-lat) < 2e-5 && math.Abs(at[1]-lon) < 2e-5 {
				replay(w, http.StatusOK, "application/json; charset=utf-8", name)
				return http.StatusOK
			}
		}
		if s.reverse != nil {
			if name, typ, ok := s.reverse(lat, lon); ok {
				w.Header().Set("Content-Type", "application/json; charset=utf-8")
				_ = json.NewEncoder(w).Encode(reverseBody(lat, lon, name, typ))
				return http.StatusOK
			}
		}
		replay(w, http.StatusOK, "application/json; charset=utf-8", "reverse_jsonv2_unable-to-geocode.json")
	default:
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintln(w, "<html><body><h1>404 Not Found</h1></body></html>")
		return http.StatusNotFound
	}
	return http.StatusOK
}

// reverseBody is a jsonv2 reverse answer in the documented shape (the same
// keys as the Paris recording).
func reverseBody(lat, lon float64, name, typ string) map[string]any {
	return map[string]any{
		"place_id": 1, "licence": "Data © OpenStreetMap contributors, ODbL 1.0. https://osm.org/copyright",
		"osm_type": "node", "osm_id": 1,
		"lat": strconv.FormatFloat(lat, 'f', 7, 64), "lon": strconv.FormatFloat(lon, 'f', 7, 64),
		"place_rank": 16, "category": "place", "type": typ, "importance": 0.5, "addresstype": typ,
		"name": name, "display_name": name + ", Norge",
		"address":     map[string]string{typ: name, "country": "Norge", "country_code": "no"},
		"boundingbox": []string{"0", "0", "0", "0"},
	}
}
