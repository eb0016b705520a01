// Package stream holds the JetStream settings of ARCHITECTURE §5 in one
// place: the EVENTS and JOBS streams and the one durable pull consumer every
// worker replica shares on JOBS, built from validated options so a
// misconfiguration (a dedup window shorter than a relay restart, an AckWait
// below the job time, a prefetch of 500) is refused at start-up with a named
// field, not discovered as a redelivery storm in production.
package stream
