// Package provider holds the data providers of the analysis (DOMAIN §5–§7):
// accommodations and the OSM rules' nodes and ways from an
// Overpass-compatible endpoint, daily forecasts from Open-Meteo, and an
// optional OSRM-compatible routing endpoint for waypoint detours. Every call goes
// through an upstream.Client the caller builds (base URL, pacer, cache,
// breaker, User-Agent), so providers are switchable by configuration.
//
// [Analyzer] applies domain/alert to what they answer: accommodation
// shortlists (alert.Shortlist, within 5 km of each stage end, re-scanned to
// 15 km); the OSM rules, one Overpass query per stage — traffic on trunk and
// primary roads, rough surfaces (roads.go), resupply and water gaps > 30 km
// (gaps.go), bicycle shops within 2 km, stations within 10 km, health
// services within 15 km (services.go), border, ferry and ford crossings
// (crossings.go), cultural places within 500 m (culture.go), each in its
// rule family (trip.FamilyOf); the comfort index and the trip-wide headwind
// alert. A provider that is off or failing marks its family
// (alert.FamilyOSM, alert.FamilyWeather) unavailable with a reason — never
// a silent "no alerts".
package provider
