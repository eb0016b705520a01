// Package workerserver builds and runs Roadbook's worker: the relay (the
// store's ordered feed into JetStream, one active replica at a time), the
// one durable consumer on JOBS (default "roadbook-worker", every job kind:
// import, stages, analysis, accommodations, dispatched by subject) with its
// bounded pool, the max-deliveries advisory handler, the reconciler, and the
// third parties built from plain Config: the geocoder (gazetteer by default,
// or Nominatim behind the paced queue) that labels stages and answers the
// API's roadbook.geocode.* requests, the SSRF-guarded route fetcher, and the
// optional data providers (Overpass, Open-Meteo). It is the worker module's
// one public package; cmd/roadbook composes it with the API and the MCP
// server, in one process (embedded NATS and store) or as its own Deployment.
package workerserver
