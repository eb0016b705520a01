// Package evidence holds Roadbook's whole-system evidence: the programs
// behind `make fuzz`, `make hostile`, `make soak` and `make chaos`, which
// run the real services as separate processes and write what they measured
// to results/*.json, and the report that turns those files into the tables
// of docs/RELIABILITY.md. Its tests are fast; the long runs are make
// targets, never CI tests.
package evidence
