package servers

import (
	"flag"
	"fmt"
	"net/url"
	"os"

	"github.com/roadbook/roadbook/services/worker/workerserver"
)

// workerFlags are the worker's third-party settings: which geocoder labels
// stages and answers searches, where the route sources and data providers
// are, how Roadbook introduces itself to them, and the durable consumer.
type workerFlags struct {
	geocoder, nominatimURL, userAgent, consumer string
	komootURL, stravaURL, rwgpsURL              string
	overpassURL, openMeteoURL, osrmURL          string
	openMeteoArchiveURL                         string
	// providers is none or public (workerserver.Providers*).
	providers string
	// fs is the flag set registered on, to tell a geocoder chosen on the
	// command line from the default.
	fs *flag.FlagSet
	// streamReplicas is the replica count of EVENTS, JOBS and the worker's
	// KV buckets: 1 on one NATS server, 3 on a 3-node cluster (deploy/k8s
	// prod).
	streamReplicas int
}

// register adds the worker's flags, defaulting to their ROADBOOK_* variables.
func (w *workerFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&w.geocoder, "geocoder", "gazetteer", "gazetteer (offline, bundled), nominatim or none ($ROADBOOK_GEOCODER)")
	fs.StringVar(&w.nominatimURL, "nominatim-url", "https://nominatim.openstreetmap.org", "Nominatim base URL ($ROADBOOK_NOMINATIM_URL)")
	fs.StringVar(&w.userAgent, "user-agent", workerserver.DefaultUserAgent, "identifying User-Agent for third parties ($ROADBOOK_USER_AGENT)")
	fs.StringVar(&w.consumer, "consumer", "roadbook-worker", "durable consumer name on JOBS ($ROADBOOK_WORKER_CONSUMER)")
	fs.StringVar(&w.komootURL, "komoot-url", "", "Komoot base URL (default https://www.komoot.com) ($ROADBOOK_KOMOOT_URL)")
	fs.StringVar(&w.stravaURL, "strava-url", "", "Strava base URL (default https://www.strava.com) ($ROADBOOK_STRAVA_URL)")
	fs.StringVar(&w.rwgpsURL, "ridewithgps-url", "", "RideWithGPS base URL (default https://ridewithgps.com) ($ROADBOOK_RIDEWITHGPS_URL)")
	fs.StringVar(&w.overpassURL, "overpass-url", "", "Overpass API base URL; empty: POI and accommodation rules off ($ROADBOOK_OVERPASS_URL)")
	fs.StringVar(&w.openMeteoURL, "openmeteo-url", "", "Open-Meteo base URL; empty: weather rules off ($ROADBOOK_OPENMETEO_URL)")
	fs.StringVar(&w.osrmURL, "osrm-url", "", "OSRM-compatible routing base URL; empty: off ($ROADBOOK_OSRM_URL)")
	fs.StringVar(&w.openMeteoArchiveURL, "openmeteo-archive-url", "", "Open-Meteo historical API base URL for typical weather beyond the forecast; empty: the public archive with the public forecast, else --openmeteo-url ($ROADBOOK_OPENMETEO_ARCHIVE_URL)")
	registerProviders(fs, &w.providers)
	w.fs = fs
	fs.IntVar(&w.streamReplicas, "stream-replicas", workerserver.DefaultStreamOptions().Replicas, "replicas of the EVENTS and JOBS streams and the worker's KV buckets: 1 on one NATS server, 3 on a 3-node cluster ($ROADBOOK_STREAM_REPLICAS)")
}

// registerProviders adds --providers, shared by `roadbook worker` and
// `roadbook dev`.
func registerProviders(fs *flag.FlagSet, p *string) {
	fs.StringVar(p, "providers", workerserver.ProvidersNone,
		"none (data providers off unless their URL is set) or public (the public Overpass, Open-Meteo and Nominatim, paced by their usage policies; set --user-agent with a contact) ($ROADBOOK_PROVIDERS)")
}

// apply checks the settings and writes them into cfg.
func (w *workerFlags) apply(cfg *workerserver.Config) error {
	if w.streamReplicas < 1 || w.streamReplicas > 5 {
		return fmt.Errorf("--stream-replicas %d is not 1..5 (1 on one NATS server, 3 on a 3-node cluster)", w.streamReplicas)
	}
	streams := workerserver.DefaultStreamOptions()
	if cfg.Streams != nil {
		streams = *cfg.Streams
	}
	streams.Replicas = w.streamReplicas
	cfg.Streams = &streams
	switch w.geocoder {
	case workerserver.GeocoderGazetteer, workerserver.GeocoderNominatim, workerserver.GeocoderNone:
	default:
		return fmt.Errorf("geocoder %q is not one of gazetteer, nominatim, none", w.geocoder)
	}
	switch w.providers {
	case "", workerserver.ProvidersNone, workerserver.ProvidersPublic:
	default:
		return fmt.Errorf("--providers %q is not one of none, public", w.providers)
	}
	for _, u := range []struct{ flag, value string }{
		{"nominatim-url", w.nominatimURL}, {"komoot-url", w.komootURL}, {"strava-url", w.stravaURL},
		{"ridewithgps-url", w.rwgpsURL}, {"overpass-url", w.overpassURL}, {"openmeteo-url", w.openMeteoURL}, {"osrm-url", w.osrmURL},
		{"openmeteo-archive-url", w.openMeteoArchiveURL},
	} {
		if u.value == "" {
			continue
		}
		p, err := url.Parse(u.value)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return fmt.Errorf("--%s %q is not an http(s) URL", u.flag, u.value)
		}
	}
	cfg.Geocoder, cfg.NominatimURL, cfg.UserAgent = w.geocoder, w.nominatimURL, w.userAgent
	cfg.KomootURL, cfg.StravaURL, cfg.RideWithGPSURL = w.komootURL, w.stravaURL, w.rwgpsURL
	cfg.OverpassURL, cfg.OpenMeteoURL, cfg.OSRMURL = w.overpassURL, w.openMeteoURL, w.osrmURL
	cfg.OpenMeteoArchiveURL = w.openMeteoArchiveURL
	if w.providers == workerserver.ProvidersPublic {
		cfg.UsePublicProviders(w.chosen("geocoder") || os.Getenv("ROADBOOK_GEOCODER") != "")
	}
	if w.consumer != "" {
		cons := workerserver.DefaultConsumerOptions()
		if cfg.Consumers != nil {
			cons = *cfg.Consumers
		}
		cons.Durable = w.consumer
		cfg.Consumers = &cons
	}
	return nil
}

// chosen reports whether a flag was given on the command line.
func (w *workerFlags) chosen(name string) bool {
	found := false
	if w.fs != nil {
		w.fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	}
	return found
}
