package servers

import (
	"flag"
	"fmt"
	"net/url"

	"github.com/roadbook/roadbook/cmd/roadbook/internal/envflag"
	"github.com/roadbook/roadbook/services/worker/workerserver"
)

// workerFlags are the worker's third-party settings: which geocoder labels
// stages and answers searches, where the route sources and data providers
// are, how Roadbook introduces itself to them, and the durable consumer.
type workerFlags struct {
	geocoder, nominatimURL, userAgent, consumer string
	komootURL, stravaURL, rwgpsURL              string
	overpassURL, openMeteoURL, osrmURL          string
}

// register adds the worker's flags, defaulting to their ROADBOOK_* variables.
func (w *workerFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&w.geocoder, "geocoder", envflag.Env("ROADBOOK_GEOCODER", "gazetteer"), "gazetteer (offline, bundled), nominatim or none ($ROADBOOK_GEOCODER)")
	fs.StringVar(&w.nominatimURL, "nominatim-url", envflag.Env("ROADBOOK_NOMINATIM_URL", "https://nominatim.openstreetmap.org"), "Nominatim base URL ($ROADBOOK_NOMINATIM_URL)")
	fs.StringVar(&w.userAgent, "user-agent", envflag.Env("ROADBOOK_USER_AGENT", workerserver.DefaultUserAgent), "identifying User-Agent for third parties ($ROADBOOK_USER_AGENT)")
	fs.StringVar(&w.consumer, "consumer", envflag.Env("ROADBOOK_WORKER_CONSUMER", "roadbook-worker"), "durable consumer name on JOBS ($ROADBOOK_WORKER_CONSUMER)")
	fs.StringVar(&w.komootURL, "komoot-url", envflag.Env("ROADBOOK_KOMOOT_URL", ""), "Komoot base URL (default https://www.komoot.com) ($ROADBOOK_KOMOOT_URL)")
	fs.StringVar(&w.stravaURL, "strava-url", envflag.Env("ROADBOOK_STRAVA_URL", ""), "Strava base URL (default https://www.strava.com) ($ROADBOOK_STRAVA_URL)")
	fs.StringVar(&w.rwgpsURL, "ridewithgps-url", envflag.Env("ROADBOOK_RIDEWITHGPS_URL", ""), "RideWithGPS base URL (default https://ridewithgps.com) ($ROADBOOK_RIDEWITHGPS_URL)")
	fs.StringVar(&w.overpassURL, "overpass-url", envflag.Env("ROADBOOK_OVERPASS_URL", ""), "Overpass API base URL; empty: POI and accommodation rules off ($ROADBOOK_OVERPASS_URL)")
	fs.StringVar(&w.openMeteoURL, "openmeteo-url", envflag.Env("ROADBOOK_OPENMETEO_URL", ""), "Open-Meteo base URL; empty: weather rules off ($ROADBOOK_OPENMETEO_URL)")
	fs.StringVar(&w.osrmURL, "osrm-url", envflag.Env("ROADBOOK_OSRM_URL", ""), "OSRM-compatible routing base URL; empty: off ($ROADBOOK_OSRM_URL)")
}

// apply checks the settings and writes them into cfg.
func (w *workerFlags) apply(cfg *workerserver.Config) error {
	switch w.geocoder {
	case workerserver.GeocoderGazetteer, workerserver.GeocoderNominatim, workerserver.GeocoderNone:
	default:
		return fmt.Errorf("geocoder %q is not one of gazetteer, nominatim, none", w.geocoder)
	}
	for _, u := range []struct{ flag, value string }{
		{"nominatim-url", w.nominatimURL}, {"komoot-url", w.komootURL}, {"strava-url", w.stravaURL},
		{"ridewithgps-url", w.rwgpsURL}, {"overpass-url", w.overpassURL}, {"openmeteo-url", w.openMeteoURL}, {"osrm-url", w.osrmURL},
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
