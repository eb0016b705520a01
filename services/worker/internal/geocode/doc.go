// Package geocode is the worker's geocoding seam: the Geocoder interface both
// the offline gazetteer and the Nominatim client implement, the NATS
// request-reply responder the API calls synchronously, and the label queue
// that names stage ends progressively within a provider's rate limit.
//
// The queue exists because the public Nominatim allows 1 request/s for the
// whole application (DOMAIN §7, ARCHITECTURE §6): a 30-stage trip needs ~60
// reverse lookups, so labels must fill in over time, fair across trips, and
// interactive searches must jump ahead of them.
package geocode
