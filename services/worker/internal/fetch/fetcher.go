package fetch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/netip"
	"regexp"
	"time"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/services/worker/internal/upstream"
)

// Production hosts of the route sources. Only these (or what Config sets
// instead) are ever contacted; the user's URL never chooses the host.
const (
	DefaultKomootBaseURL      = "https://www.komoot.com"
	DefaultStravaBaseURL      = "https://www.strava.com"
	DefaultRideWithGPSBaseURL = "https://ridewithgps.com"
)

// Per-source client settings of DOMAIN §2.
const (
	SourceTimeout      = 10 * time.Second
	SourceRetries      = 2
	SourceMaxRedirects = 2
	// MaxBodyBytes bounds a fetched page or document (the route readers'
	// own bound).
	MaxBodyBytes = route.MaxKomootPageBytes
	// CacheTTL is how long a fetched route is reused, by source and id.
	CacheTTL = 24 * time.Hour
	// MaxCollectionTours bounds the tour pages fetched for one collection.
	MaxCollectionTours = 200
)

// Config holds the production settings of the route fetcher.
type Config struct {
	// Base URLs of the sources; empty means the Default… constants.
	KomootBaseURL      string
	StravaBaseURL      string
	RideWithGPSBaseURL string
	// UserAgent identifies Roadbook to the sources (required).
	UserAgent string
	// Cache keeps fetched routes by source and id; a [upstream.KVCache]
	// with a 24 h TTL shares them between replicas. Nil: an in-process LRU
	// of 256 routes for 24 h.
	Cache upstream.Cache
	// Metrics, when set, reports the per-source upstream metrics.
	Metrics *upstream.Metrics
	// RetryBackoff is the first wait between retries (default 500 ms).
	RetryBackoff time.Duration
	// MaxBodyBytes overrides MaxBodyBytes (tests use it to prove the bound).
	MaxBodyBytes int64
}

// Option adjusts what Config cannot: the resolver and test-only allowances.
type Option func(*options)

type options struct {
	resolver Resolver
	allowed  map[netip.AddrPort]bool
}

// WithResolver replaces the DNS resolver (default net.DefaultResolver).
// Tests use it to make a public-looking name resolve to a private address.
func WithResolver(r Resolver) Option { return func(o *options) { o.resolver = r } }

// AllowTestServer lets the SSRF guard dial exactly addr (an httptest
// server's ip:port), so tests exercise the production code path against a
// local server. It is for tests only: production configuration never sets
// it, and every other loopback or private address stays refused.
func AllowTestServer(addr netip.AddrPort) Option {
	return func(o *options) {
		if o.allowed == nil {
			o.allowed = map[netip.AddrPort]bool{}
		}
		o.allowed[addr] = true
	}
}

// Fetcher fetches URL-sourced routes (DOMAIN §2). Each source has its own
// upstream client (breaker, pacer, retries, same-host redirects, bounded
// body) over one SSRF-guarded transport.
type Fetcher struct {
	komoot, strava, rwgps *upstream.Client
	cache                 upstream.Cache
}

// numericID is the only shape of id ever put into a path.
var numericID = regexp.MustCompile(`^[0-9]{1,20}$`)

// New builds a Fetcher; the configuration is validated here.
func New(cfg Config, opts ...Option) (*Fetcher, error) {
	o := options{resolver: net.DefaultResolver}
	for _, opt := range opts {
		opt(&o)
	}
	if o.resolver == nil {
		return nil, fmt.Errorf("%w: fetch: resolver is nil", upstream.ErrInvalidOption)
	}
	transport := newTransport(o.resolver, &guard{allowed: o.allowed})
	backoff := cfg.RetryBackoff
	if backoff == 0 {
		backoff = 500 * time.Millisecond
	}
	maxBody := cfg.MaxBodyBytes
	if maxBody == 0 {
		maxBody = MaxBodyBytes
	}
	build := func(name, base, def string) (*upstream.Client, error) {
		if base == "" {
			base = def
		}
		pacer, err := upstream.NewLocalPacer(100 * time.Millisecond)
		if err != nil {
			return nil, err
		}
		uopts := []upstream.Option{
			upstream.WithBaseURL(base), upstream.WithUserAgent(cfg.UserAgent),
			upstream.WithTransport(transport), upstream.WithTimeout(SourceTimeout),
			upstream.WithMaxRedirects(SourceMaxRedirects), upstream.WithRetries(SourceRetries, backoff),
			upstream.WithMaxBodyBytes(maxBody), upstream.WithPacer(pacer),
		}
		if cfg.Metrics != nil {
			uopts = append(uopts, upstream.WithMetrics(cfg.Metrics))
		}
		return upstream.New(name, uopts...)
	}
	f := &Fetcher{cache: cfg.Cache}
	var err error
	if f.komoot, err = build("komoot", cfg.KomootBaseURL, DefaultKomootBaseURL); err != nil {
		return nil, err
	}
	if f.strava, err = build("strava", cfg.StravaBaseURL, DefaultStravaBaseURL); err != nil {
		return nil, err
	}
	if f.rwgps, err = build("ridewithgps", cfg.RideWithGPSBaseURL, DefaultRideWithGPSBaseURL); err != nil {
		return nil, err
	}
	if f.cache == nil {
		if f.cache, err = upstream.NewLRUCache(256, CacheTTL); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// Fetch returns the route of a URL source. Only src.Kind and src.ID are
// used — src.URL is never requested. A Komoot collection comes back as its
// tours concatenated in order under the collection's name (use FetchTours
// for one stage per tour). Failures are [*Error]s; the caller's context
// ending is returned as ctx.Err().
func (f *Fetcher) Fetch(ctx context.Context, src trip.Source) (*route.Route, error) {
	if src.Kind == trip.SourceKomootCollection {
		name, tours, err := f.collection(ctx, src)
		if err != nil {
			return nil, err
		}
		r := &route.Route{Title: name, ElevationKnown: true, Source: tours[0].Route.Source}
		for _, t := range tours {
			r.Points = append(r.Points, t.Route.Points...)
			r.ElevationKnown = r.ElevationKnown && t.Route.ElevationKnown
		}
		return r, nil
	}
	return f.fetchOne(ctx, src.Kind, src.ID)
}

// Tour is one tour of a Komoot collection with its route.
type Tour struct {
	// ID is the tour's numeric id.
	ID string
	// Title is the tour's name (the collection's entry name when the tour
	// page has none).
	Title string
	// Route is the tour's route.
	Route *route.Route
}

// FetchTours returns a Komoot collection as its tours, in collection order,
// for one stage per tour (pacing.FromTours). Other sources are refused with
// ErrUnsupportedSource.
func (f *Fetcher) FetchTours(ctx context.Context, src trip.Source) ([]Tour, error) {
	if src.Kind != trip.SourceKomootCollection {
		return nil, unsupported(src, "only a Komoot collection has tours")
	}
	_, tours, err := f.collection(ctx, src)
	return tours, err
}

func (f *Fetcher) collection(ctx context.Context, src trip.Source) (string, []Tour, error) {
	if !numericID.MatchString(src.ID) {
		return "", nil, unsupported(src, "the id is not a number")
	}
	resp, err := f.komoot.Do(ctx, upstream.Request{Path: "/collection/" + src.ID, NoCache: true})
	if err != nil {
		return "", nil, f.fail(ctx, src.Kind, src.ID, err, false)
	}
	col, err := route.ReadKomootCollection(resp.Body)
	if err != nil {
		return "", nil, classify(src.Kind, src.ID, err, false)
	}
	if len(col.Tours) > MaxCollectionTours {
		return "", nil, &Error{Source: src.Kind, ID: src.ID, Code: trip.ImportRouteTooLarge, kind: ErrRouteTooLarge,
			Reason: fmt.Sprintf("the collection lists %d tours, more than %d", len(col.Tours), MaxCollectionTours)}
	}
	tours := make([]Tour, 0, len(col.Tours))
	for _, ref := range col.Tours {
		r, err := f.fetchOne(ctx, trip.SourceKomootTour, ref.ID)
		if err != nil {
			return "", nil, err
		}
		title := r.Title
		if title == "" {
			title = ref.Name
		}
		tours = append(tours, Tour{ID: ref.ID, Title: title, Route: r})
	}
	return col.Name, tours, nil
}

// fetchOne fetches one tour or route by kind and id, through the cache.
func (f *Fetcher) fetchOne(ctx context.Context, kind trip.SourceKind, id string) (*route.Route, error) {
	src := trip.Source{Kind: kind, ID: id}
	if !numericID.MatchString(id) {
		return nil, unsupported(src, "the id is not a number")
	}
	var (
		client *upstream.Client
		path   string
		read   func([]byte) (*route.Route, error)
		gpx    bool
	)
	switch kind {
	case trip.SourceKomootTour:
		client, path, read = f.komoot, "/tour/"+id, route.ReadKomootPage
	case trip.SourceStravaRoute:
		client, path, gpx = f.strava, "/routes/"+id+"/export_gpx", true
		read = func(b []byte) (*route.Route, error) { return route.ReadGPX(bytes.NewReader(b)) }
	case trip.SourceRideWithGPSRoute:
		client, path, read = f.rwgps, "/routes/"+id+".json", route.ReadRideWithGPS
	default:
		return nil, unsupported(src, "not a URL source")
	}
	key := "route:" + string(kind) + ":" + id
	if r, ok := f.cached(ctx, key); ok {
		return r, nil
	}
	resp, err := client.Do(ctx, upstream.Request{Path: path, NoCache: true})
	if err != nil {
		return nil, f.fail(ctx, kind, id, err, gpx)
	}
	r, err := read(resp.Body)
	if err != nil {
		return nil, classify(kind, id, err, gpx)
	}
	if len(r.Points) == 0 {
		return nil, classify(kind, id, route.ErrEmptyRoute, gpx)
	}
	f.store(ctx, key, r)
	return r, nil
}

func (f *Fetcher) fail(ctx context.Context, kind trip.SourceKind, id string, err error, gpx bool) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return classify(kind, id, err, gpx)
}

func unsupported(src trip.Source, why string) *Error {
	return &Error{Source: src.Kind, ID: src.ID, Code: trip.ImportRouteFetchFailed, kind: ErrUnsupportedSource, Reason: why}
}

// cachedRoute is the cache's value: the route with its points in the
// compact binary encoding.
type cachedRoute struct {
	Title          string       `json:"title"`
	ElevationKnown bool         `json:"elevationKnown"`
	Source         route.Source `json:"source"`
	Points         []byte       `json:"points"`
}

func (f *Fetcher) cached(ctx context.Context, key string) (*route.Route, bool) {
	b, ok, err := f.cache.Get(ctx, key)
	if err != nil || !ok {
		return nil, false
	}
	var c cachedRoute
	if json.Unmarshal(b, &c) != nil {
		return nil, false
	}
	pts, err := route.DecodePoints(c.Points)
	if err != nil || len(pts) == 0 {
		return nil, false
	}
	return &route.Route{Title: c.Title, ElevationKnown: c.ElevationKnown, Source: c.Source, Points: pts}, true
}

func (f *Fetcher) store(ctx context.Context, key string, r *route.Route) {
	b, err := json.Marshal(cachedRoute{Title: r.Title, ElevationKnown: r.ElevationKnown, Source: r.Source, Points: route.EncodePoints(r.Points)})
	if err == nil {
		_ = f.cache.Put(ctx, key, b) // advisory: a failing cache only costs a refetch
	}
}
