// Package pipelinetest holds what the worker's end-to-end tests, fault
// tests and the pipeline benchmark share: an embedded JetStream server that
// can be stopped and restarted on the same store directory and port, trip
// creation from an uploaded GPX the way the API does it, and the audit of a
// store after a run (contiguous stream versions, exactly one terminal event
// per requested computation). It is not imported by production code.
package pipelinetest
