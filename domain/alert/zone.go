package alert

import (
	"errors"
	"fmt"
	"sync"
	"time"
	_ "time/tzdata" // zone rules embedded: the rules must not depend on the host's /usr/share/zoneinfo

	"github.com/ringsaturn/tzf"
)

// ErrNoZone is returned (wrapped) when no time zone is known for a point.
var ErrNoZone = errors.New("alert: no time zone for point")

// ZoneFinder names the IANA time zone of a point. The sunset rule needs the
// local clock of the stage end (twilight at 22:40 means nothing without it)
// and the calendar rule derives the country from the zone.
type ZoneFinder interface {
	// ZoneName returns the IANA name (e.g. "Europe/Paris") for lat/lon in
	// degrees, or an error wrapping ErrNoZone.
	ZoneName(lat, lon float64) (string, error)
}

// TZFFinder is the offline ZoneFinder of DOMAIN §7, backed by
// github.com/ringsaturn/tzf's DefaultFinder with the "lite" data set
// (github.com/ringsaturn/tzf-rel-lite, derived from
// evansiroky/timezone-boundary-builder, oceans included, ≈ 10 MB embedded).
//
// Accuracy: the lite polygons are simplified, so within roughly a kilometre of
// a zone border (typically a national border) a point may get the
// neighbouring zone; the fuzzy tile index answers first and can also be wrong
// right at borders. Elsewhere the answer is the one of the full data set. At
// sea the answer is an Etc/GMT±N nautical zone. For the rules here a border
// error costs at most the neighbour's clock (usually the same offset in
// Europe) or its holiday calendar — acceptable for nudges and a warning.
//
// Building one costs about a second and ~150 MB transient memory (60 MB kept),
// so build it once per process and share it: it is safe for concurrent use.
type TZFFinder struct {
	f tzf.F
}

// NewTZFFinder loads the embedded lite data set.
func NewTZFFinder() (*TZFFinder, error) {
	f, err := tzf.NewDefaultFinder()
	if err != nil {
		return nil, fmt.Errorf("alert: loading tzf data: %w", err)
	}
	return &TZFFinder{f: f}, nil
}

var (
	sharedOnce   sync.Once
	sharedFinder *TZFFinder
	sharedErr    error
)

// SharedTZFFinder is one TZFFinder for the whole process, built on first
// use: every worker, test and rule of a process shares its tens of MB
// instead of loading its own.
func SharedTZFFinder() (*TZFFinder, error) {
	sharedOnce.Do(func() { sharedFinder, sharedErr = NewTZFFinder() })
	return sharedFinder, sharedErr
}

// ZoneName implements ZoneFinder. tzf takes longitude first; this method
// takes latitude first like the rest of Roadbook.
func (z *TZFFinder) ZoneName(lat, lon float64) (string, error) {
	name := z.f.GetTimezoneName(lon, lat)
	if name == "" {
		return "", fmt.Errorf("%w: %.5f,%.5f", ErrNoZone, lat, lon)
	}
	return name, nil
}

// zoneLocation resolves the time zone of a point to a *time.Location.
func zoneLocation(zones ZoneFinder, lat, lon float64) (*time.Location, string, error) {
	name, err := zones.ZoneName(lat, lon)
	if err != nil {
		return nil, "", err
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, "", fmt.Errorf("%w: zone %q at %.5f,%.5f is not in the zone database: %v", ErrNoZone, name, lat, lon, err)
	}
	return loc, name, nil
}
