// Package alert holds Roadbook's rule engine for stage alerts (DOMAIN §5) and
// the pure helpers the analysis worker needs around it: the rider time
// estimator (DOMAIN §3), NOAA solar events, public holidays, the weather
// comfort index and relative wind, and accommodation pricing and ranking
// (DOMAIN §6).
//
// Everything here is a pure function of its inputs: no I/O, no network and no
// clock reads. Dates and "today" are inputs, and the only lookup that needs a
// data set — the time zone of a point — goes through the ZoneFinder
// interface, whose offline implementation embeds its data in the binary.
// That keeps the rules identical in the API (which decides) and the worker
// (which computes).
package alert
