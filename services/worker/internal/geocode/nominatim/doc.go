// Package nominatim is the geocode.Geocoder for a Nominatim instance (the
// public one or any compatible server, by base URL). It only builds requests
// and reads jsonv2 answers; everything the usage policy demands — 1 request/s
// for the whole application, a 24 h shared cache, singleflight, the circuit
// breaker, the identifying User-Agent — comes from the upstream.Client it is
// given, the one third-party mechanism (ARCHITECTURE §6, DOMAIN §7).
//
// Nominatim is not an autocomplete: callers search on submit.
package nominatim
