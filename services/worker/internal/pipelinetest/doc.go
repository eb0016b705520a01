// Package pipelinetest holds what the worker's end-to-end tests, fault
// tests and the pipeline benchmark share beyond package testkit (NATS,
// PostgreSQL, fixtures): trip creation from an uploaded GPX the way the API
// does it, and the audit of a store after a run (contiguous stream
// versions, exactly one terminal event per requested computation). It is not
// imported by production code.
package pipelinetest
