package alert

import (
	_ "embed"
	"strings"
	"sync"
)

// zoneTab is tzdata's zone.tab: one line per IANA zone with the ISO
// 3166-1 alpha-2 code of its country (data/NOTICE.md).
//
//go:embed data/zone.tab
var zoneTab string

var (
	zoneCountryOnce sync.Once
	zoneCountry     map[string]string
)

// CountryForZone returns the ISO 3166-1 alpha-2 code of the country of an
// IANA zone, or "" for a zone of no country (the sea's Etc/GMT±N). With the
// offline ZoneFinder this is the offline country lookup of the border and
// holiday rules: the tz database's zones follow national borders (each
// zone.tab zone lies in one country), so the country is exact wherever the
// zone is. Its limits are the ZoneFinder's (see TZFFinder): within about a
// kilometre of a border a point may get the neighbour's zone, hence its
// country.
func CountryForZone(zone string) string {
	zoneCountryOnce.Do(func() {
		zoneCountry = map[string]string{}
		for _, line := range strings.Split(zoneTab, "\n") {
			if strings.HasPrefix(line, "#") {
				continue
			}
			f := strings.Split(line, "\t")
			if len(f) >= 3 {
				zoneCountry[f[2]] = f[0]
			}
		}
	})
	return zoneCountry[zone]
}

// CountryAt is the country of a point (CountryForZone of its zone), ""
// at sea.
func CountryAt(zones ZoneFinder, lat, lon float64) (string, error) {
	z, err := zones.ZoneName(lat, lon)
	if err != nil {
		return "", err
	}
	return CountryForZone(z), nil
}
