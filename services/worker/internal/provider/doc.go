// Package provider holds the data providers of the analysis (DOMAIN §5–§7):
// accommodations and resupply/water POIs from an Overpass-compatible
// endpoint, daily forecasts from Open-Meteo, and an optional
// OSRM-compatible routing endpoint for waypoint detours. Every call goes
// through an upstream.Client the caller builds (base URL, pacer, cache,
// breaker, User-Agent), so providers are switchable by configuration.
//
// [Analyzer] applies domain/alert to what they answer: accommodation
// shortlists (alert.Shortlist, within 5 km of each stage end, re-scanned to
// 15 km), resupply and water gaps > 30 km along each stage, the comfort
// index and the trip-wide headwind alert. A provider that is off or failing
// marks its family (alert.FamilyOSM, alert.FamilyWeather) unavailable with a
// reason — never a silent "no alerts".
package provider
