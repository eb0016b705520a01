package workerserver

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/roadbook/roadbook/domain/alert"
	"github.com/roadbook/roadbook/services/worker/internal/consumer"
	"github.com/roadbook/roadbook/services/worker/internal/fetch"
	"github.com/roadbook/roadbook/services/worker/internal/gazetteer"
	"github.com/roadbook/roadbook/services/worker/internal/geocode"
	"github.com/roadbook/roadbook/services/worker/internal/geocode/nominatim"
	"github.com/roadbook/roadbook/services/worker/internal/provider"
	"github.com/roadbook/roadbook/services/worker/internal/upstream"
	"github.com/roadbook/roadbook/tripstore"
)

// Geocoders Config.Geocoder accepts.
const (
	// GeocoderGazetteer is the bundled offline gazetteer (the default):
	// labels are written with the analysis, searches answer at once.
	GeocoderGazetteer = "gazetteer"
	// GeocoderNominatim is a Nominatim instance (NominatimURL): 1 request
	// per 1.1 s for the whole application, a 24 h shared cache, labels
	// filling in progressively through one paced queue.
	GeocoderNominatim = "nominatim"
	// GeocoderNone turns geocoding off: labels are recorded unavailable and
	// searches find no responder.
	GeocoderNone = "none"
)

// DefaultUserAgent identifies Roadbook to third parties when Config sets
// none (operators should set their own contact, DOMAIN §7).
const DefaultUserAgent = "Roadbook/0.1 (+https://github.com/roadbook/roadbook)"

// Shared NATS KV buckets of the third-party mechanism.
const (
	geocodeCacheBucket = "roadbook_geocode_cache"
	routeCacheBucket   = "roadbook_route_cache"
	providerCache      = "roadbook_provider_cache"
)

// thirdParties is what New builds from the plain Config.
type thirdParties struct {
	fetcher   consumer.RouteFetcher
	labeler   consumer.Labeler
	providers []consumer.Provider
	finder    consumer.AccommodationFinder
	// router routes waypoint detours (nil: they stay estimated).
	router consumer.DetourRouter
	// searcher answers the API's geocoding requests (nil: none).
	searcher geocode.Geocoder
	// queue runs with the worker when the geocoder is Nominatim.
	queue *geocode.Queue
}

// buildThirdParties turns the Config's URLs into clients, all behind the
// one upstream mechanism (pacer, breaker, cache, User-Agent, metrics).
func buildThirdParties(cfg Config, js jetstream.JetStream, trips *tripstore.Store, reg prometheus.Registerer) (thirdParties, error) {
	var tp thirdParties
	m, err := upstream.NewMetrics(reg)
	if err != nil {
		return tp, fmt.Errorf("workerserver: upstream metrics: %w", err)
	}
	ua := cfg.UserAgent
	if ua == "" {
		ua = DefaultUserAgent
	}

	switch cfg.Geocoder {
	case "", GeocoderGazetteer:
		g, err := gazetteer.Load()
		if err != nil {
			return tp, fmt.Errorf("workerserver: gazetteer: %w", err)
		}
		tp.searcher, tp.labeler = g, syncLabeler{g}
	case GeocoderNominatim:
		base := cfg.NominatimURL
		if base == "" {
			base = nominatim.PublicBaseURL
		}
		up, err := upstream.New("nominatim", upstream.WithBaseURL(base), upstream.WithUserAgent(ua),
			upstream.WithPacer(newLazyPacer(js, "nominatim", nominatim.PaceInterval)),
			upstream.WithCache(newLazyCache(js, geocodeCacheBucket, nominatim.CacheTTL)),
			upstream.WithMetrics(m))
		if err != nil {
			return tp, fmt.Errorf("%w: NominatimURL: %w", ErrInvalidConfig, err)
		}
		client, err := nominatim.New(up)
		if err != nil {
			return tp, err
		}
		sink := labelSink{trips: trips}
		tp.queue, err = geocode.NewQueue(client, sink.resolved, geocode.QueueOptions{
			Interval: nominatim.PaceInterval, Logger: cfg.Logger, Unavailable: sink.unavailable,
		})
		if err != nil {
			return tp, err
		}
		tp.searcher, tp.labeler = tp.queue, queueLabeler{tp.queue}
	case GeocoderNone:
	default:
		return tp, fmt.Errorf("%w: Geocoder %q is not one of gazetteer, nominatim, none", ErrInvalidConfig, cfg.Geocoder)
	}

	var opts []fetch.Option
	if cfg.AllowLoopbackFetch {
		for _, raw := range []string{cfg.KomootURL, cfg.StravaURL, cfg.RideWithGPSURL} {
			if ap, ok := loopbackAddr(raw); ok {
				opts = append(opts, fetch.AllowTestServer(ap))
			}
		}
	}
	f, err := fetch.New(fetch.Config{
		KomootBaseURL: cfg.KomootURL, StravaBaseURL: cfg.StravaURL, RideWithGPSBaseURL: cfg.RideWithGPSURL,
		UserAgent: ua, Metrics: m, Cache: newLazyCache(js, routeCacheBucket, fetch.CacheTTL),
	}, opts...)
	if err != nil {
		return tp, fmt.Errorf("%w: route sources: %w", ErrInvalidConfig, err)
	}
	tp.fetcher = routeFetcher{f}

	interval := cfg.ProviderInterval
	if interval <= 0 {
		interval = time.Second
	}
	client := func(name, base string) (*upstream.Client, error) {
		c, err := upstream.New(name, upstream.WithBaseURL(base), upstream.WithUserAgent(ua),
			upstream.WithPacer(newLazyPacer(js, name, interval)),
			upstream.WithCache(newLazyCache(js, providerCache, time.Hour)),
			upstream.WithTimeout(30*time.Second), upstream.WithMetrics(m))
		if err != nil {
			return nil, fmt.Errorf("%w: %s URL: %w", ErrInvalidConfig, name, err)
		}
		return c, nil
	}
	if cfg.OverpassURL != "" {
		c, err := client("overpass", cfg.OverpassURL)
		if err != nil {
			return tp, err
		}
		o, err := provider.NewOverpass(c)
		if err != nil {
			return tp, err
		}
		// One provider for the six OSM families: one Overpass query per
		// stage evaluates them all, so they are available, unavailable or
		// not_configured together.
		tp.providers = append(tp.providers, familyProvider{
			a: &provider.Analyzer{Overpass: o, SkipAccommodations: true}, source: alert.FamilyOSM})
		tp.finder = accommodationFinder{o}
	}
	if cfg.OpenMeteoURL != "" {
		c, err := client("open-meteo", cfg.OpenMeteoURL)
		if err != nil {
			return tp, err
		}
		w, err := provider.NewOpenMeteo(c)
		if err != nil {
			return tp, err
		}
		tp.providers = append(tp.providers, familyProvider{a: &provider.Analyzer{Weather: w}, source: alert.FamilyWeather})
	}
	if cfg.OSRMURL != "" {
		c, err := client("osrm", cfg.OSRMURL)
		if err != nil {
			return tp, err
		}
		o, err := provider.NewOSRM(c)
		if err != nil {
			return tp, err
		}
		tp.router = detourRouter{o}
	}
	return tp, nil
}

// loopbackAddr is the ip:port of a base URL whose host is a loopback IP
// literal (a test server), for AllowLoopbackFetch.
func loopbackAddr(raw string) (netip.AddrPort, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return netip.AddrPort{}, false
	}
	host, port, err := net.SplitHostPort(u.Host)
	if err != nil {
		return netip.AddrPort{}, false
	}
	ap, err := netip.ParseAddrPort(net.JoinHostPort(host, port))
	if err != nil || !ap.Addr().IsLoopback() {
		return netip.AddrPort{}, false
	}
	return ap, true
}
