package cluster

import (
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
)

// FakeNominatim answers /search and /reverse with real recorded Nominatim
// responses (testkit/fixtures/nominatim) and can be switched off, to show
// what a geocoder outage does to the pipeline.
type FakeNominatim struct {
	search, reverse []byte
	down            atomic.Bool
	// Requests and Refused count calls answered and calls refused while down.
	Requests, Refused atomic.Int64
}

// NewFakeNominatim loads its answers from dir.
func NewFakeNominatim(dir string) (*FakeNominatim, error) {
	s, err := os.ReadFile(filepath.Join(dir, "search_jsonv2_elbphilharmonie-hamburg.json"))
	if err != nil {
		return nil, err
	}
	r, err := os.ReadFile(filepath.Join(dir, "reverse_jsonv2_paris-48.86_2.35.json"))
	if err != nil {
		return nil, err
	}
	return &FakeNominatim{search: s, reverse: r}, nil
}

// SetDown switches the outage on or off.
func (f *FakeNominatim) SetDown(down bool) { f.down.Store(down) }

// ServeHTTP answers like Nominatim, or 503 while down.
func (f *FakeNominatim) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f.down.Load() {
		f.Refused.Add(1)
		http.Error(w, "Service Unavailable", http.StatusServiceUnavailable)
		return
	}
	f.Requests.Add(1)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	switch r.URL.Path {
	case "/search", "/search.php":
		_, _ = w.Write(f.search)
	case "/reverse", "/reverse.php":
		_, _ = w.Write(f.reverse)
	default:
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":{"code":400,"message":"Parameter 'q' missing"}}`))
	}
}

// Canary counts every request that reaches it. The hostile run points
// source URLs at it: a Roadbook that refuses them never calls it.
type Canary struct {
	// Hits is the number of requests received.
	Hits atomic.Int64
}

// ServeHTTP counts and answers a GPX-looking body, to tempt an importer.
func (c *Canary) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	c.Hits.Add(1)
	_, _ = w.Write([]byte(`<gpx><trk><trkseg><trkpt lat="1" lon="1"/><trkpt lat="1.1" lon="1.1"/></trkseg></trk></gpx>`))
}

// URL is where the canary listens.
func (c *Cluster) CanaryURL() string { return c.canaryURL }

// FakeProviders stands in for Komoot, Strava and RideWithGPS: the worker's
// configured base URL for all three, so an import fetches here and nowhere
// else. It answers 404 to everything and remembers what was asked.
type FakeProviders struct {
	mu    sync.Mutex
	paths []string
}

// ServeHTTP records the request and answers 404.
func (f *FakeProviders) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.paths = append(f.paths, r.URL.RequestURI())
	f.mu.Unlock()
	http.NotFound(w, r)
}

// Paths are the request URIs received so far.
func (f *FakeProviders) Paths() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.paths...)
}
