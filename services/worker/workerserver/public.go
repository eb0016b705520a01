package workerserver

import (
	"fmt"
	"strings"

	"github.com/roadbook/roadbook/domain/alert"
	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/services/worker/internal/geocode/nominatim"
	"github.com/roadbook/roadbook/services/worker/internal/provider"
)

// The public endpoints ProvidersPublic turns on. Each is used within its
// usage policy by the one upstream mechanism every provider goes through:
// the identifying UserAgent, the application-wide pacer (ProviderInterval,
// 1 request/s by default; Nominatim 1 per 1.1 s), the shared cache and the
// circuit breaker.
const (
	PublicOverpassURL         = provider.DefaultOverpassBaseURL
	PublicOpenMeteoURL        = provider.DefaultOpenMeteoBaseURL
	PublicOpenMeteoArchiveURL = provider.DefaultOpenMeteoArchiveURL
	PublicNominatimURL        = nominatim.PublicBaseURL
)

// Provider sets a rider can switch on at once (`--providers`).
const (
	// ProvidersNone leaves every data provider off unless its URL is set
	// (the default: nothing leaves the machine).
	ProvidersNone = "none"
	// ProvidersPublic uses the public Overpass, Open-Meteo (forecast and
	// archive) and Nominatim for every provider whose URL is not set.
	ProvidersPublic = "public"
)

// UsePublicProviders fills every unset provider URL with its public
// endpoint and makes Nominatim the geocoder unless keepGeocoder (the
// geocoder was chosen explicitly).
func (c *Config) UsePublicProviders(keepGeocoder bool) {
	if c.OverpassURL == "" {
		c.OverpassURL = PublicOverpassURL
	}
	if c.OpenMeteoURL == "" {
		c.OpenMeteoURL = PublicOpenMeteoURL
	}
	if c.OpenMeteoArchiveURL == "" && c.OpenMeteoURL == PublicOpenMeteoURL {
		c.OpenMeteoArchiveURL = PublicOpenMeteoArchiveURL
	}
	if !keepGeocoder {
		c.Geocoder = GeocoderNominatim
	}
	if c.Geocoder == GeocoderNominatim && c.NominatimURL == "" {
		c.NominatimURL = PublicNominatimURL
	}
}

// ProviderSummary says, one line each, which rule families and services
// the configuration turns on and how to turn on the others: what `roadbook
// dev` prints so a rider knows what "no alerts" covers.
func (c Config) ProviderSummary() string {
	var b strings.Builder
	line := func(what, url, off string) {
		if url != "" {
			fmt.Fprintf(&b, "  %-44s on  (%s)\n", what, url)
			return
		}
		fmt.Fprintf(&b, "  %-44s off (%s)\n", what, off)
	}
	var offline []string
	for _, f := range trip.SourceFamilies(alert.FamilyGeometry) {
		offline = append(offline, string(f))
	}
	fmt.Fprintf(&b, "Data providers (offline rules — %s — always run):\n", strings.Join(offline, ", "))
	line("OSM rules, resupply points, accommodations", c.OverpassURL, "--overpass-url or --providers public")
	weather := c.OpenMeteoURL
	if weather != "" && c.OpenMeteoArchiveURL != "" && c.OpenMeteoArchiveURL != c.OpenMeteoURL {
		weather += ", typical days: " + c.OpenMeteoArchiveURL
	}
	line("weather (forecast, typical beyond 16 days)", weather, "--openmeteo-url or --providers public")
	line("routed waypoint detours (OSRM)", c.OSRMURL, "--osrm-url; no public instance is used")
	switch c.Geocoder {
	case GeocoderNominatim:
		url := c.NominatimURL
		if url == "" {
			url = PublicNominatimURL
		}
		line("place names and search (Nominatim)", url+", 1 request/1.1 s", "")
	case GeocoderNone:
		line("place names and search", "", "--geocoder gazetteer or nominatim")
	default:
		line("place names and search (bundled gazetteer)", "offline", "")
	}
	publicUsed := c.OverpassURL == PublicOverpassURL || c.OpenMeteoURL == PublicOpenMeteoURL ||
		(c.Geocoder == GeocoderNominatim && (c.NominatimURL == "" || c.NominatimURL == PublicNominatimURL))
	if publicUsed && (c.UserAgent == "" || c.UserAgent == DefaultUserAgent) {
		b.WriteString("  The public services ask every client to identify itself: set --user-agent (ROADBOOK_USER_AGENT)\n" +
			"  to your application and a contact, e.g. \"MyTrips/1.0 (me@example.org)\".\n")
	}
	return b.String()
}
