package alert

import (
	"cmp"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// AccommodationType is one of the seven kinds of place to sleep of DOMAIN §6.
type AccommodationType string

// The seven types, named by their OSM tourism=* value.
const (
	Hotel         AccommodationType = "hotel"
	GuestHouse    AccommodationType = "guest_house"
	Chalet        AccommodationType = "chalet"
	Hostel        AccommodationType = "hostel"
	AlpineHut     AccommodationType = "alpine_hut"
	CampSite      AccommodationType = "camp_site"
	WildernessHut AccommodationType = "wilderness_hut"
)

// Family groups types so one stage's shortlist offers a choice between a bed
// and a pitch: at most 4 of 5 from one family.
type Family string

// The two families of DOMAIN §6.
const (
	Outdoor Family = "outdoor" // camp_site, wilderness_hut
	Indoor  Family = "indoor"  // everything else
)

// TypeInfo describes a type: its OSM tag and its price bracket in euros per
// night, used when the data has no price.
type TypeInfo struct {
	Type AccommodationType
	// Tag is the OSM tag selecting the type, "tourism=<value>".
	Tag            string
	MinEUR, MaxEUR float64
	Family         Family
}

var typeInfos = []TypeInfo{
	{Hotel, "tourism=hotel", 50, 120, Indoor},
	{GuestHouse, "tourism=guest_house", 40, 80, Indoor},
	{Chalet, "tourism=chalet", 30, 70, Indoor},
	{Hostel, "tourism=hostel", 20, 35, Indoor},
	{AlpineHut, "tourism=alpine_hut", 25, 45, Indoor},
	{CampSite, "tourism=camp_site", 8, 25, Outdoor},
	{WildernessHut, "tourism=wilderness_hut", 0, 10, Outdoor},
}

// AccommodationTypes returns the seven types in DOMAIN §6 order (the order
// the worker builds its Overpass query in).
func AccommodationTypes() []TypeInfo {
	return slices.Clone(typeInfos)
}

// LookupType returns the description of a type.
func LookupType(t AccommodationType) (TypeInfo, bool) {
	i := slices.IndexFunc(typeInfos, func(ti TypeInfo) bool { return ti.Type == t })
	if i < 0 {
		return TypeInfo{}, false
	}
	return typeInfos[i], true
}

// Candidate is an accommodation as the worker found it in OSM.
type Candidate struct {
	ID       string
	Name     string
	Lat, Lon float64
	Tags     map[string]string
}

// Type classifies a candidate by its tourism tag; false for anything else.
func (c Candidate) Type() (TypeInfo, bool) {
	return LookupType(AccommodationType(c.Tags["tourism"]))
}

// Price is a night's price in euros: exact when the data says it, otherwise
// the estimated bracket.
type Price struct {
	MinEUR, MaxEUR float64
	// Exact says the price came from the charge or fee tag (Min == Max).
	Exact bool
}

var numberRe = regexp.MustCompile(`\d+(?:[.,]\d+)?`)

// campSiteBackpackMaxEUR caps a camp site taking tents or backpackers.
const campSiteBackpackMaxEUR = 15

// EstimatePrice prices a night (DOMAIN §6): a number in `charge` (else `fee`)
// is exact; `fee=no` is free; otherwise the type's bracket, a camp site
// taking tents or backpackers capped at 15 €, and stars above 2 raising the
// floor by min(0.75, (stars−2)·0.25)·(max−min). false for a candidate that
// is none of the seven types.
func EstimatePrice(c Candidate) (Price, bool) {
	ti, ok := c.Type()
	if !ok {
		return Price{}, false
	}
	for _, k := range []string{"charge", "fee"} {
		if n := numberRe.FindString(c.Tags[k]); n != "" {
			v, err := strconv.ParseFloat(strings.Replace(n, ",", ".", 1), 64)
			if err == nil {
				return Price{MinEUR: v, MaxEUR: v, Exact: true}, true
			}
		}
	}
	if strings.EqualFold(strings.TrimSpace(c.Tags["fee"]), "no") {
		return Price{Exact: true}, true
	}
	lo, hi := ti.MinEUR, ti.MaxEUR
	if ti.Type == CampSite && (c.Tags["backpack"] == "yes" || c.Tags["tents"] == "yes") {
		hi = campSiteBackpackMaxEUR
	}
	if stars, ok := starsOf(c.Tags); ok && stars > 2 {
		lo += math.Min(0.75, (stars-2)*0.25) * (hi - lo)
	}
	return Price{MinEUR: lo, MaxEUR: hi}, true
}

// starsOf reads the leading number of the stars tag ("4", "3S").
func starsOf(tags map[string]string) (float64, bool) {
	n := numberRe.FindString(tags["stars"])
	if n == "" || !strings.HasPrefix(strings.TrimSpace(tags["stars"]), n) {
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.Replace(n, ",", ".", 1), 64)
	return v, err == nil
}

// Completeness scores how much a rider can learn about a place before
// booking (DOMAIN §6): website or url +3, description +3, opening_hours +2,
// wikidata +2, stars +2, capacity +1, plus min(2, number of tags / 3).
func Completeness(c Candidate) float64 {
	has := func(keys ...string) bool {
		for _, k := range keys {
			if strings.TrimSpace(c.Tags[k]) != "" {
				return true
			}
		}
		return false
	}
	s := 0.0
	for _, r := range []struct {
		keys  []string
		score float64
	}{
		{[]string{"website", "contact:website", "url"}, 3},
		{[]string{"description"}, 3},
		{[]string{"opening_hours"}, 2},
		{[]string{"wikidata"}, 2},
		{[]string{"stars"}, 2},
		{[]string{"capacity"}, 1},
	} {
		if has(r.keys...) {
			s += r.score
		}
	}
	return s + math.Min(2, float64(len(c.Tags))/3)
}

var monthNames = []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

var monthRangeRe = regexp.MustCompile(`\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)(\s*\d{1,2})?\s*-\s*(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)(\s*\d{1,2})?\b`)

var offRe = regexp.MustCompile(`\b(off|closed)\b`)

// PossiblyClosed says a place may be closed in the stage month (DOMAIN §6):
// its opening_hours names month ranges ("May-Sep", "Apr 15-Oct 15", wrapping
// ranges like "Nov-Mar" included) none of which contains the month, or a
// rule closes a whole-month range containing it ("Nov-Mar off"); or it is
// seasonal=yes and the month is November to March. A month range with day
// bounds counts its boundary months as open (partly open is not closed).
// month 0 means the stage has no date: nothing is known, so false.
func PossiblyClosed(tags map[string]string, month time.Month) bool {
	if month < time.January || month > time.December {
		return false
	}
	if tags["seasonal"] == "yes" && (month >= time.November || month <= time.March) {
		return true
	}
	oh := tags["opening_hours"]
	if oh == "" {
		return false
	}
	openRanges, inOpen := 0, false
	for _, rule := range strings.FieldsFunc(strings.ReplaceAll(oh, "||", ";"), func(r rune) bool { return r == ';' }) {
		off := offRe.MatchString(strings.ToLower(rule))
		for _, m := range monthRangeRe.FindAllStringSubmatch(rule, -1) {
			from, to := monthIndex(m[1]), monthIndex(m[3])
			in := monthInRange(month, from, to)
			if off {
				if m[2] == "" && m[4] == "" && in {
					return true
				}
				continue
			}
			openRanges++
			inOpen = inOpen || in
		}
	}
	return openRanges > 0 && !inOpen
}

func monthIndex(name string) time.Month {
	return time.Month(slices.Index(monthNames, name) + 1)
}

// monthInRange handles ranges wrapping the new year.
func monthInRange(m, from, to time.Month) bool {
	if from <= to {
		return m >= from && m <= to
	}
	return m >= from || m <= to
}

// Accommodation is a ranked, priced candidate.
type Accommodation struct {
	Candidate
	Type           AccommodationType
	Family         Family
	Price          Price
	Score          float64
	PossiblyClosed bool
}

// Shortlist sizes of DOMAIN §6.
const (
	shortlistSize      = 5
	shortlistPerFamily = 4
)

// Shortlist ranks one stage's candidates and keeps the best 5 (DOMAIN §6):
// by completeness, ties to the cheaper (floor of the price, then ceiling,
// then ID, so the order is total), at most 4 from one family. Candidates that
// are none of the seven types or not in enabled are dropped; a nil enabled
// means all seven. month is the stage month for PossiblyClosed (0 if unknown).
func Shortlist(cands []Candidate, enabled []AccommodationType, month time.Month) []Accommodation {
	all := make([]Accommodation, 0, len(cands))
	for _, c := range cands {
		ti, ok := c.Type()
		if !ok || (enabled != nil && !slices.Contains(enabled, ti.Type)) {
			continue
		}
		p, _ := EstimatePrice(c)
		all = append(all, Accommodation{
			Candidate:      c,
			Type:           ti.Type,
			Family:         ti.Family,
			Price:          p,
			Score:          Completeness(c),
			PossiblyClosed: PossiblyClosed(c.Tags, month),
		})
	}
	slices.SortStableFunc(all, func(a, b Accommodation) int {
		return cmp.Or(
			cmp.Compare(b.Score, a.Score),
			cmp.Compare(a.Price.MinEUR, b.Price.MinEUR),
			cmp.Compare(a.Price.MaxEUR, b.Price.MaxEUR),
			cmp.Compare(a.ID, b.ID),
		)
	})
	out := make([]Accommodation, 0, shortlistSize)
	perFamily := map[Family]int{}
	for _, a := range all {
		if len(out) == shortlistSize {
			break
		}
		if perFamily[a.Family] == shortlistPerFamily {
			continue
		}
		perFamily[a.Family]++
		out = append(out, a)
	}
	return out
}
