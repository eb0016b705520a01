package provider

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/roadbook/roadbook/domain/alert"
	"github.com/roadbook/roadbook/domain/route"
)

// Culture rule of DOMAIN §5 (event family "culture"): one cultural_poi
// nudge per stage naming up to CultureListed named POIs within
// CultureRadiusM of the route, in route order; its value is how many there
// are. OSM names are third-party text: they appear only quoted in the
// alert's message (stage data), each cut to MaxPOINameRunes with control
// and format characters removed.
const (
	CultureRadiusM  = 500.0
	CultureListed   = 3
	MaxPOINameRunes = 80
)

// cultureTourism and cultureHistoric are the tag values of the rule.
var (
	cultureTourism  = []string{"museum", "attraction", "viewpoint", "artwork"}
	cultureHistoric = []string{"castle", "monument", "memorial", "ruins", "archaeological_site"}
)

// isCultural: a named museum, attraction, viewpoint, artwork, castle,
// monument, memorial, ruin or archaeological site.
func isCultural(tags map[string]string) bool {
	return poiName(tags["name"]) != "" &&
		(slices.Contains(cultureTourism, tags["tourism"]) || slices.Contains(cultureHistoric, tags["historic"]))
}

// poiName makes an OSM name safe to show: printable runes only, whitespace
// collapsed, at most MaxPOINameRunes runes (an ellipsis marks a cut).
func poiName(raw string) string {
	clean := strings.Map(func(r rune) rune {
		switch {
		case unicode.IsSpace(r):
			return ' '
		case !unicode.IsPrint(r):
			return -1
		}
		return r
	}, raw)
	clean = strings.Join(strings.Fields(clean), " ")
	if rs := []rune(clean); len(rs) > MaxPOINameRunes {
		clean = strings.TrimSpace(string(rs[:MaxPOINameRunes-1])) + "…"
	}
	return clean
}

// cultureAlert raises the stage's cultural_poi nudge, if any.
func cultureAlert(index int, t track, feats []Feature) []alert.Alert {
	if len(t.pts) < 2 {
		return nil
	}
	type poi struct {
		name string
		at   float64
		loc  route.Point
	}
	var pois []poi
	for _, f := range feats {
		if !isCultural(f.Tags) {
			continue
		}
		if _, at, ok := t.nearest(f.Line, CultureRadiusM); ok {
			loc := f.Line[0]
			if f.Type == "way" {
				loc = t.pointAt(at)
			}
			pois = append(pois, poi{name: poiName(f.Tags["name"]), at: at, loc: loc})
		}
	}
	slices.SortStableFunc(pois, func(a, b poi) int { return cmp.Compare(a.at, b.at) })
	seen := map[string]bool{}
	pois = slices.DeleteFunc(pois, func(p poi) bool {
		key := strings.ToLower(p.name)
		dup := seen[key]
		seen[key] = true
		return dup
	})
	if len(pois) == 0 {
		return nil
	}
	var names []string
	for _, p := range pois[:min(CultureListed, len(pois))] {
		names = append(names, fmt.Sprintf("%q", p.name))
	}
	more := ""
	if n := len(pois) - CultureListed; n > 0 {
		more = fmt.Sprintf(" and %d more", n)
	}
	msg := fmt.Sprintf("Worth a stop within %.0f m of the route: %s%s.", CultureRadiusM, strings.Join(names, ", "), more)
	return []alert.Alert{{
		Code: alert.CodeCulturalPOI, Severity: alert.SeverityNudge, StageIndex: index, Message: msg,
		HasPoint: true, Lat: pois[0].loc.Lat, Lon: pois[0].loc.Lon, Value: float64(len(pois)),
	}}
}
