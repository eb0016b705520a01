package alert

import "strings"

// zoneCountry maps the IANA zones of the supported holiday countries to their
// ISO 3166-1 alpha-2 code. Deriving the country from the zone reuses the one
// offline lookup the sunset rule already needs instead of shipping country
// borders; it is exact for these countries because each of their zones lies
// in one country, with three documented approximations:
//   - Europe/London covers all of the United Kingdom, but the GB calendar here
//     is England & Wales's; Scotland and Northern Ireland differ slightly.
//   - Europe/Busingen (a German exclave inside Switzerland) is Germany.
//   - Points within about a kilometre of a border may get the neighbour's
//     zone (see TZFFinder), hence its calendar.
//
// A caller that knows the country better (from reverse geocoding) sets
// Stage.Country, which takes precedence.
var zoneCountry = map[string]string{
	"Europe/Paris":     "FR",
	"Europe/Berlin":    "DE",
	"Europe/Busingen":  "DE",
	"Europe/Madrid":    "ES",
	"Africa/Ceuta":     "ES",
	"Atlantic/Canary":  "ES",
	"Europe/Rome":      "IT",
	"Europe/Brussels":  "BE",
	"Europe/Amsterdam": "NL",
	"Europe/Zurich":    "CH",
	"Europe/Vienna":    "AT",
	"Europe/London":    "GB",
	"America/New_York": "US", "America/Chicago": "US", "America/Denver": "US",
	"America/Phoenix": "US", "America/Los_Angeles": "US", "America/Anchorage": "US",
	"America/Juneau": "US", "America/Sitka": "US", "America/Metlakatla": "US",
	"America/Yakutat": "US", "America/Nome": "US", "America/Adak": "US",
	"Pacific/Honolulu": "US", "America/Detroit": "US", "America/Boise": "US",
	"America/Menominee": "US",
}

// usZonePrefixes are the US zone families with many members.
var usZonePrefixes = []string{"America/Indiana/", "America/Kentucky/", "America/North_Dakota/"}

// CountryForZone returns the ISO country code of an IANA zone among the
// countries with a holiday calendar, or "" when the zone is elsewhere (the
// calendar rule then only checks Sundays).
func CountryForZone(zone string) string {
	if c, ok := zoneCountry[zone]; ok {
		return c
	}
	for _, p := range usZonePrefixes {
		if strings.HasPrefix(zone, p) {
			return "US"
		}
	}
	return ""
}
