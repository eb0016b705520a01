package alert

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func cand(id string, tags map[string]string) Candidate {
	return Candidate{ID: id, Name: id, Lat: 45, Lon: 5, Tags: tags}
}

func TestAccommodationTypes(t *testing.T) {
	t.Parallel()
	types := AccommodationTypes()
	require.Len(t, types, 7)
	outdoor := 0
	for _, ti := range types {
		require.Equal(t, "tourism="+string(ti.Type), ti.Tag)
		require.Less(t, ti.MinEUR, ti.MaxEUR)
		if ti.Family == Outdoor {
			outdoor++
		}
	}
	require.Equal(t, 2, outdoor, "camp_site and wilderness_hut")
	types[0].MinEUR = -1
	again, _ := LookupType(Hotel)
	require.Equal(t, 50.0, again.MinEUR, "callers get a copy")
}

func TestEstimatePrice(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		tags map[string]string
		want Price
	}{
		{"a hotel without data is its bracket", map[string]string{"tourism": "hotel"}, Price{50, 120, false}},
		{"3 stars raise the floor by 0.25 of the bracket", map[string]string{"tourism": "hotel", "stars": "3"}, Price{67.5, 120, false}},
		{"4 stars by 0.5", map[string]string{"tourism": "hotel", "stars": "4"}, Price{85, 120, false}},
		{"5 stars by 0.75", map[string]string{"tourism": "hotel", "stars": "5"}, Price{102.5, 120, false}},
		{"the raise is capped at 0.75", map[string]string{"tourism": "hotel", "stars": "7"}, Price{102.5, 120, false}},
		{"2 stars raise nothing", map[string]string{"tourism": "guest_house", "stars": "2"}, Price{40, 80, false}},
		{"superior stars read their number", map[string]string{"tourism": "hotel", "stars": "3S"}, Price{67.5, 120, false}},
		{"a number in charge is exact", map[string]string{"tourism": "hotel", "charge": "89 EUR"}, Price{89, 89, true}},
		{"a number in fee is exact, decimal comma included", map[string]string{"tourism": "camp_site", "fee": "12,50 €"}, Price{12.5, 12.5, true}},
		{"charge wins over fee", map[string]string{"tourism": "hostel", "charge": "22", "fee": "30"}, Price{22, 22, true}},
		{"fee=no is free", map[string]string{"tourism": "wilderness_hut", "fee": "no"}, Price{0, 0, true}},
		{"fee=yes without a number is the bracket", map[string]string{"tourism": "alpine_hut", "fee": "yes"}, Price{25, 45, false}},
		{"a camp site for backpackers is capped at 15", map[string]string{"tourism": "camp_site", "backpack": "yes"}, Price{8, 15, false}},
		{"a tents camp site with 4 stars raises within the cap", map[string]string{"tourism": "camp_site", "tents": "yes", "stars": "4"}, Price{11.5, 15, false}},
		{"a chalet", map[string]string{"tourism": "chalet"}, Price{30, 70, false}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p, ok := EstimatePrice(cand("x", c.tags))
			require.True(t, ok)
			require.InDelta(t, c.want.MinEUR, p.MinEUR, 1e-9)
			require.InDelta(t, c.want.MaxEUR, p.MaxEUR, 1e-9)
			require.Equal(t, c.want.Exact, p.Exact)
		})
	}
	t.Run("a museum is not an accommodation", func(t *testing.T) {
		t.Parallel()
		_, ok := EstimatePrice(cand("m", map[string]string{"tourism": "museum", "fee": "8"}))
		require.False(t, ok)
	})
}

func TestCompleteness(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		tags map[string]string
		want float64
	}{
		{"a bare tag scores a third", map[string]string{"tourism": "camp_site"}, 1.0 / 3},
		{"website +3, url counts the same", map[string]string{"tourism": "hotel", "url": "https://x"}, 3 + 2.0/3},
		{"every field", map[string]string{"tourism": "hotel", "website": "w", "description": "d", "opening_hours": "24/7",
			"wikidata": "Q1", "stars": "3", "capacity": "40"}, 3 + 3 + 2 + 2 + 2 + 1 + 2},
		{"the tag bonus is capped at 2", map[string]string{"tourism": "hotel", "a": "1", "b": "1", "c": "1", "d": "1", "e": "1", "f": "1", "g": "1", "h": "1"}, 2},
		{"an empty website does not count", map[string]string{"tourism": "hotel", "website": " "}, 2.0 / 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			require.InDelta(t, c.want, Completeness(cand("x", c.tags)), 1e-9)
		})
	}
}

func TestPossiblyClosed(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		tags  map[string]string
		month time.Month
		want  bool
	}{
		{"open May to September, in July", map[string]string{"opening_hours": "May-Sep 08:00-20:00"}, time.July, false},
		{"open May to September, in November", map[string]string{"opening_hours": "May-Sep 08:00-20:00"}, time.November, true},
		{"a range wrapping the new year, in January", map[string]string{"opening_hours": "Nov-Feb"}, time.January, false},
		{"a range wrapping the new year, in June", map[string]string{"opening_hours": "Nov-Feb"}, time.June, true},
		{"day bounds keep the boundary month open", map[string]string{"opening_hours": "Apr 15-Oct 15"}, time.April, false},
		{"several open ranges", map[string]string{"opening_hours": "Apr-Jun 09:00-18:00; Sep-Oct 09:00-18:00"}, time.August, true},
		{"a closed whole-month range", map[string]string{"opening_hours": "Mo-Su 08:00-22:00; Nov-Mar off"}, time.December, true},
		{"outside a closed range", map[string]string{"opening_hours": "Mo-Su 08:00-22:00; Nov-Mar off"}, time.July, false},
		{"a few closed days do not close the month", map[string]string{"opening_hours": "Mo-Su 08:00-22:00; Dec 24-Dec 26 off"}, time.December, false},
		{"weekly hours say nothing about months", map[string]string{"opening_hours": "Mo-Fr 08:00-18:00"}, time.January, false},
		{"seasonal=yes in March", map[string]string{"seasonal": "yes"}, time.March, true},
		{"seasonal=yes in April", map[string]string{"seasonal": "yes"}, time.April, false},
		{"an unknown month says nothing", map[string]string{"seasonal": "yes", "opening_hours": "Jun-Aug"}, 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, c.want, PossiblyClosed(c.tags, c.month))
		})
	}
}

func TestShortlist(t *testing.T) {
	t.Parallel()
	var cands []Candidate
	// Six equally complete camp sites with decreasing exact prices, so the
	// cheapest win the ties.
	for i := range 6 {
		cands = append(cands, cand(fmt.Sprintf("camp%d", i), map[string]string{"tourism": "camp_site", "fee": fmt.Sprint(20 - i)}))
	}
	cands = append(cands,
		cand("hotel", map[string]string{"tourism": "hotel"}),
		cand("shop", map[string]string{"shop": "bakery", "website": "w", "description": "d"}),
		cand("hut", map[string]string{"tourism": "alpine_hut", "website": "w", "seasonal": "yes"}),
	)
	t.Run("keeps 5, at most 4 outdoor, best first, ties to the cheaper", func(t *testing.T) {
		t.Parallel()
		got := Shortlist(cands, nil, time.December)
		var ids []string
		for _, a := range got {
			ids = append(ids, a.ID)
		}
		// hut scores 3 + 1 = 4; camps 2/3 each; hotel 1/3.
		require.Equal(t, []string{"hut", "camp5", "camp4", "camp3", "camp2"}, ids)
		require.True(t, got[0].PossiblyClosed, "seasonal in December")
		require.Equal(t, AlpineHut, got[0].Type)
		require.Equal(t, Indoor, got[0].Family)
		require.Equal(t, Price{15, 15, true}, got[1].Price)
	})
	t.Run("with only camp sites the family cap leaves room for the hotel", func(t *testing.T) {
		t.Parallel()
		got := Shortlist(cands, []AccommodationType{CampSite, Hotel}, time.July)
		var ids []string
		for _, a := range got {
			ids = append(ids, a.ID)
		}
		require.Equal(t, []string{"camp5", "camp4", "camp3", "camp2", "hotel"}, ids)
	})
	t.Run("disabled types and non-accommodations are dropped", func(t *testing.T) {
		t.Parallel()
		got := Shortlist(cands, []AccommodationType{Hostel}, time.July)
		require.Empty(t, got)
	})
}
